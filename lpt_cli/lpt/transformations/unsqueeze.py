"""Unsqueeze: full-rank dequantization constants gain the same axes as the data."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..base_checks import can_be_transformed
from ..channel_constants import constants, one_element_to_scalar, set_constant
from ..dequantization import Dequantization
from ..transparent import MoveDequantizationTransformation, Refusal


def inserted_axes(node: Node) -> tuple[int, ...]:
    """The output axes an Unsqueeze inserts, normalized against the output rank."""
    out_rank = node.output().rank or 0
    axes = node.input_node(1).value.reshape(-1).astype(np.int64).tolist()
    return tuple(sorted({a + out_rank if a < 0 else a for a in axes}))


class UnsqueezeTransformation(MoveDequantizationTransformation):
    name = "UnsqueezeTransformation"
    op_types = ("Unsqueeze",)
    constant_inputs = (1,)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not can_be_transformed(node, self.precisions):
            return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
        return None

    def rewrite(self, node: Node, dq: Dequantization) -> None:
        rank = dq.data.rank if dq.data is not None else None
        axes = inserted_axes(node)
        for part, constant in constants(dq):
            value = constant.value
            if value.size == 1:
                set_constant(dq, part, one_element_to_scalar(value))
            elif value.ndim == rank:
                set_constant(dq, part, np.expand_dims(value, axis=axes))
