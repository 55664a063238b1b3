"""ReduceBase: what ReduceMax/Min/Mean/Sum share.

A dequantization follows a reduction when its constants do not vary along a reduced axis;
the constants are then reduced the same way (which only drops axes when keep_dims is false).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import constants, one_element_to_scalar, set_constant, with_leading_ones
from ...dequantization.chain import Dequantization
from ..movement.move_dequantization import MoveDequantizationTransformation, Refusal

_NUMPY: dict[str, Callable[..., np.ndarray]] = {
    "ReduceMax": np.max, "ReduceMin": np.min, "ReduceMean": np.mean, "ReduceSum": np.sum,
}


def reduced_axes(node: Node) -> tuple[int, ...]:
    """The reduction axes, normalized against the input rank."""
    rank = node.input_value(0).rank or 0
    axes = node.input_node(1).value.reshape(-1).astype(np.int64).tolist()
    return tuple(sorted({node.axis(a, rank, "reduction axis") for a in axes}))


def _owner(dq: Dequantization, part: str) -> Node:
    node = dq.subtract if part == "subtract" else dq.multiply
    assert node is not None
    return node


class ReduceBaseTransformation(MoveDequantizationTransformation):
    """Common check and constant folding of the Reduce* transformations."""

    constant_inputs = (1,)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if node.input_value(0).rank is None:
            return "dynamic_rank", "the input rank is dynamic"
        axes = reduced_axes(node)
        for part, constant in constants(dq):
            dims = with_leading_ones(constant.value, _owner(dq, part).output().rank or 0).shape
            if any(dims[a] != 1 for a in axes if a < len(dims)):
                return "reduced_channel", f"the {part} constant varies along a reduced axis"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        axes = reduced_axes(node)
        keep = node.attr_bool("keep_dims", False)
        for part, constant in constants(dq):
            value = with_leading_ones(constant.value, _owner(dq, part).output().rank or 0)
            if value.size == 1:
                set_constant(dq, part, one_element_to_scalar(value))
                continue
            reduced = _NUMPY[node.type](value, axis=axes, keepdims=keep)
            set_constant(dq, part, np.asarray(reduced).astype(value.dtype))
