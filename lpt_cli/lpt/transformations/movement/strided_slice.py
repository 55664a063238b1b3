"""StridedSlice: dequantization constants are sliced like the data along the axes they vary on."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import adapt_constants, with_leading_ones
from ...dequantization.chain import Dequantization
from ...surgery.constants import to_scalar_if_possible, value_of
from .move_dequantization import MoveDequantizationTransformation, Refusal


@dataclass
class SliceSpec:
    """StridedSlice's inputs 1..3 and its five masks (1 = set), as lists."""

    begin: list[int]
    end: list[int]
    strides: list[int]
    begin_mask: list[int]
    end_mask: list[int]
    new_axis: list[int]
    shrink: list[int]
    ellipsis: list[int]

    @classmethod
    def of(cls, node: Node) -> SliceSpec | None:
        found = [value_of(node.input_value(i)) for i in (1, 2, 3)] if len(node.inputs) >= 4 else []
        values = [v for v in found if v is not None]
        if len(values) != 3:
            return None
        begin, end, strides = (v.reshape(-1).astype(np.int64).tolist() for v in values)
        masks = [node.attr_ints(k) for k in ("begin_mask", "end_mask", "new_axis_mask",
                                              "shrink_axis_mask", "ellipsis_mask")]
        return cls(begin, end, strides, *masks)

    def keep_whole(self, dims: list[int]) -> None:
        """Makes the spec take every position of the given constant dims (those of size 1)."""
        for i in dims:
            for values, fill in ((self.begin, 0), (self.end, 0), (self.strides, 1),
                                 (self.begin_mask, 1), (self.end_mask, 1)):
                if i < len(values):
                    values[i] = fill

    def apply(self, value: np.ndarray) -> np.ndarray:
        """numpy StridedSlice (opset1 semantics)."""
        def flag(mask: list[int], i: int) -> bool:
            return i < len(mask) and mask[i] == 1
        count = len(self.begin)
        consuming = sum(1 for i in range(count) if not flag(self.new_axis, i) and not flag(self.ellipsis, i))
        index: list[int | slice | None] = []
        for i in range(count):
            if flag(self.ellipsis, i):
                index.extend([slice(None)] * max(value.ndim - consuming, 0))
            elif flag(self.new_axis, i):
                index.append(None)
            elif flag(self.shrink, i):
                index.append(self.begin[i])
            else:
                start = None if flag(self.begin_mask, i) else self.begin[i]
                stop = None if flag(self.end_mask, i) else self.end[i]
                index.append(slice(start, stop, self.strides[i] if i < len(self.strides) else 1))
        return value[tuple(index)]


class StridedSliceTransformation(MoveDequantizationTransformation):
    name = "StridedSliceTransformation"
    needs_multiply_input = False

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if _is_scalar(dq):
            return None
        if node.input_value(0).rank is None:
            return "dynamic_rank", "a per-channel dequantization needs a static rank"
        if SliceSpec.of(node) is None:
            return "non_constant_bounds", "begin, end or strides are not constant"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        rank = node.input_value(0).rank or 0

        def slice_(value: np.ndarray) -> np.ndarray:
            value = with_leading_ones(value, rank)
            spec = SliceSpec.of(node)
            assert spec is not None
            spec.keep_whole([i for i, d in enumerate(value.shape) if d == 1])
            return to_scalar_if_possible(spec.apply(value))

        adapt_constants(dq, slice_)


def _is_scalar(dq: Dequantization) -> bool:
    """OpenVINO's shortcut: a one-element subtract AND a one-element multiply."""
    return (dq.subtract_constant is not None and dq.subtract_constant.constant_data.count == 1
            and dq.multiply_constant is not None and dq.multiply_constant.constant_data.count == 1)
