"""Pad (v1 and v12): the dequantization follows when padded positions dequantize to what the
original Pad wrote there.

In CONSTANT mode a padded position holds the pad value; after the move it holds the pad value
in low precision, dequantized with whatever the constants hold at that position. Constants
that vary along a padded axis are therefore padded too: with 0 (zero point) and 1 (scale), so
the position dequantizes to exactly the pad value. That works for one padded axis only.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from ....ir import Node
from ...engine.layer_checks import static_output_ranks
from ...surgery.channel_constants import constants, one_element_to_scalar, set_constant, with_leading_ones
from ...dequantization.chain import Dequantization
from ...surgery.constants import cast, remove_unused
from .move_dequantization import MoveDequantizationTransformation, Refusal

MODES = ("constant", "edge", "reflect", "symmetric")
# The other modes as numpy's typed spelling of them.
_NUMPY_MODES: dict[str, Literal["edge", "reflect", "symmetric"]] = {
    "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def pad_array(value: np.ndarray, begin: list[int], end: list[int], mode: str, fill: float) -> np.ndarray:
    """numpy Pad-12: negative pads crop, positive pads extend in `mode`."""
    crop = tuple(slice(max(-b, 0), value.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begin, end)))
    cropped = value[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        return np.pad(cropped, widths, mode="constant", constant_values=np.asarray(fill).astype(value.dtype))
    return np.pad(cropped, widths, mode=_NUMPY_MODES[mode])


class PadTransformation(MoveDequantizationTransformation):
    name = "PadTransformation"
    constant_inputs = (1, 2, 3)

    def _pads(self, node: Node) -> tuple[list[int], list[int]]:
        return ([int(v) for v in node.input_node(1).value.reshape(-1)],
                [int(v) for v in node.input_node(2).value.reshape(-1)])

    def _pad_value(self, node: Node) -> float:
        return float(node.input_node(3).value.reshape(-1)[0])

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not static_output_ranks(node):
            return "dynamic_rank", "an output rank is dynamic"
        mode = node.attr("pad_mode", "constant")
        if mode not in MODES:
            return "pad_mode", f"pad mode {mode!r} is not supported"
        begin, end = self._pads(node)
        if not any(p > 0 for p in begin + end):
            return None
        assert dq.multiply_constant is not None, "the movement checks only dequantizations with a scale"
        if mode == "constant":
            if dq.subtract_constant is not None and not self._same_dimension(node, dq.subtract_constant.value):
                return "padded_zero_point", "the zero point varies along another axis than the one padded"
            if self._pad_value(node) != 0 and not self._same_dimension(node, dq.multiply_constant.value):
                return "padded_scale", "a non-zero pad value needs the scale to vary only along the padded axis"
        if mode == "reflect" and not self._reflect_ok(node, dq.multiply_constant.value):
            return "reflected_scale", "REFLECT mode cannot pad along an axis the scale varies on"
        return None

    def _same_dimension(self, node: Node, constant: np.ndarray) -> bool:
        """Pads touch at most one axis, and the constant varies along that axis only."""
        begin, end = self._pads(node)
        begin_axes = [i for i, p in enumerate(begin) if p != 0]
        end_axes = [i for i, p in enumerate(end) if p != 0]
        if len(begin_axes) > 1 or len(end_axes) > 1:
            return False
        if not begin_axes and not end_axes:
            return True
        if begin_axes and end_axes and begin_axes != end_axes:
            return False
        axis = (begin_axes or end_axes)[0]
        shape = node.input_value(0).shape
        if shape is None or shape[axis] < 0:
            return False
        if constant.size <= 1:
            return True
        dims = with_leading_ones(constant, len(shape)).shape
        return all(d <= 1 or i == axis for i, d in enumerate(dims))

    def _reflect_ok(self, node: Node, scale: np.ndarray) -> bool:
        if scale.size == 1:
            return True
        rank = node.input_value(0).rank
        if rank is None:
            return False
        begin, end = self._pads(node)
        dims = with_leading_ones(scale, rank).shape
        return all(d == 1 or (begin[i] == 0 and end[i] == 0) for i, d in enumerate(dims))

    def prepare(self, node: Node, dq: Dequantization) -> None:
        mode = node.attr("pad_mode", "constant")
        begin, end = self._pads(node)
        pad_value = self._pad_value(node)
        if mode == "constant" and any(p > 0 for p in begin + end):
            self._spread_scalars(node, dq, pad_value)
        for part, constant in constants(dq):
            owner = dq.subtract if part == "subtract" else dq.multiply
            assert owner is not None, "constants() yields the parts present"
            value = with_leading_ones(constant.value, owner.output().rank or 0)
            fill = (0.0 if part == "subtract" else 1.0) if mode == "constant" else pad_value
            set_constant(dq, part, self._fold(value, begin, end, mode, fill))
        # the pad value now fills low-precision data (a C++ cast: truncation toward zero)
        data_type = dq.source.element_type
        old = node.input_node(3)
        low_value = self.graph.add_constant(cast(np.trunc(np.asarray(pad_value)) if not data_type.is_real
                                                 else np.asarray(pad_value), data_type), data_type)
        node.set_input(3, low_value.output())
        remove_unused(old)

    def _spread_scalars(self, node: Node, dq: Dequantization, pad_value: float) -> None:
        """A one-value constant becomes a vector along the padded axis, so it can be padded."""
        begin, end = self._pads(node)
        axis = next((i for i, (b, e) in enumerate(zip(begin, end)) if b != 0 or e != 0), 0)
        shape = node.input_value(0).shape or ()
        target = [1] * len(shape)
        target[axis] = shape[axis]
        for part, constant in constants(dq):
            if constant.value.size == 1 and (part == "subtract" or pad_value != 0):
                set_constant(dq, part, np.broadcast_to(constant.value.reshape(()), target).copy())

    @staticmethod
    def _fold(value: np.ndarray, begin: list[int], end: list[int], mode: str, fill: float) -> np.ndarray:
        if value.size == 1:
            return one_element_to_scalar(value)
        const_begin = [b if b != 0 and d != 1 else 0 for b, d in zip(begin, value.shape)]
        const_end = [e if e != 0 and d != 1 else 0 for e, d in zip(end, value.shape)]
        if not any(const_begin) and not any(const_end):
            return value
        return pad_array(value, const_begin, const_end, mode, fill)
