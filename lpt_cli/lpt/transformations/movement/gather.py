"""Gather: a constant that varies along the gathered axis is gathered with the same indices."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import adapt_constants, constants, with_leading_ones
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like, to_scalar_if_possible
from .move_dequantization import MoveDequantizationTransformation, Refusal


class GatherTransformation(MoveDequantizationTransformation):
    name = "GatherTransformation"
    needs_per_channel = True

    def _axis(self, node: Node) -> int:
        return node.axis(int(node.input_node(2).value.reshape(-1)[0]), node.input_value(0).rank or 0)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
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
            if constant.value.size == 1 or with_leading_ones(constant.value, rank).shape[axis] == 1:
                continue
            indices = node.input_node(1)
            if indices.type != "Constant" or indices.value.ndim > 1:
                return "indices", "gathering along the dequantized axis needs constant 0-D/1-D indices"
            if node.attr_int("batch_dims", 0) != 0:
                return "batch_dims", "gathering a dequantization constant with batch_dims is not supported"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        rank = node.input_value(0).rank or 0

        def gather(value: np.ndarray) -> np.ndarray:
            value = with_leading_ones(value, rank)
            axis = self._axis(node) if node.input_node(2).type == "Constant" else None
            if axis is not None and value.shape[axis] != 1:
                indices = node.input_node(1).value.astype(np.int64)
                value = to_scalar_if_possible(np.take(value, indices, axis=axis))
            return value

        adapt_constants(dq, gather)
