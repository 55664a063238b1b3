"""Squeeze: full-rank dequantization constants drop the same axes as the data."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..base_checks import can_be_transformed
from ..channel_constants import constants, one_element_to_scalar, set_constant
from ..dequantization import Dequantization
from ..transparent import MoveDequantizationTransformation, Refusal


def squeezed_axes(node: Node) -> tuple[int, ...]:
    """The axes a Squeeze removes from its input (all 1-dims when the axes input is empty)."""
    shape = node.input_value(0).shape or ()
    axes = node.input_node(1).value.reshape(-1).astype(np.int64).tolist() if len(node.inputs) > 1 else []
    if not axes:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    return tuple(sorted({a + len(shape) if a < 0 else a for a in axes}))


class SqueezeTransformation(MoveDequantizationTransformation):
    name = "SqueezeTransformation"
    op_types = ("Squeeze",)
    constant_inputs = (1,)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not can_be_transformed(node, self.precisions):
            return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
        return None

    def rewrite(self, node: Node, dq: Dequantization) -> None:
        rank = dq.data.rank if dq.data is not None else None
        axes = squeezed_axes(node)
        for part, constant in constants(dq):
            value = constant.value
            if value.size == 1:
                set_constant(dq, part, one_element_to_scalar(value))
            elif value.ndim == rank:
                set_constant(dq, part, np.squeeze(value, axis=axes))
