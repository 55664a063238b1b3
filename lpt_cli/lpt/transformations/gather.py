"""Gather: a constant that varies along the gathered axis is gathered with the same indices."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..base_checks import can_be_transformed
from ..channel_constants import constants, one_element_to_scalar, scalar_if_possible, set_constant
from ..dequantization import Dequantization
from ..folding import is_scalar_like
from ..transparent import MoveDequantizationTransformation, Refusal


def _full_rank(value: np.ndarray, rank: int) -> np.ndarray:
    """A constant aligned with the data: missing leading dims become 1."""
    if value.ndim >= rank:
        return value
    return value.reshape((1,) * (rank - value.ndim) + value.shape)


class GatherTransformation(MoveDequantizationTransformation):
    name = "GatherTransformation"
    op_types = ("Gather",)

    def _axis(self, node: Node) -> int:
        axis = int(node.input_node(2).value.reshape(-1)[0])
        return axis + (node.input_value(0).rank or 0) if axis < 0 else axis

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not can_be_transformed(node, self.precisions):
            return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
        parts = constants(dq)
        if all(is_scalar_like(c.value) for _, c in parts):
            return None
        if node.input_node(2).type != "Constant":
            return "non_constant_axis", "per-channel dequantization needs a constant Gather axis"
        rank = node.input_value(0).rank
        if rank is None:
            return "dynamic_rank", "the input rank is dynamic"
        axis = self._axis(node)
        for _, constant in parts:
            if _full_rank(constant.value, rank).shape[axis] == 1:
                continue
            indices = node.input_node(1)
            if indices.type != "Constant" or indices.value.ndim > 1:
                return "indices", "gathering along the dequantized axis needs constant 0-D/1-D indices"
            if node.attr_int("batch_dims", 0) != 0:
                return "batch_dims", "gathering a dequantization constant with batch_dims is not supported"
        return None

    def rewrite(self, node: Node, dq: Dequantization) -> None:
        rank = node.input_value(0).rank or 0
        for part, constant in constants(dq):
            value = constant.value
            if value.size == 1:
                set_constant(dq, part, one_element_to_scalar(value))
                continue
            value = _full_rank(value, rank)
            axis = self._axis(node) if node.input_node(2).type == "Constant" else None
            if axis is not None and value.shape[axis] != 1:
                indices = node.input_node(1).value.astype(np.int64)
                value = scalar_if_possible(np.take(value, indices, axis=axis))
            set_constant(dq, part, value)
