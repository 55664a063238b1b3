"""Transpose: dequantization constants are permuted like the data.

A per-channel dequantization only follows while the batch and channel axes stay in place
(OpenVINO's legacy limit); equal values follow any permutation.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import adapt_constants, constants, with_leading_ones
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like
from .move_dequantization import MoveDequantizationTransformation, Refusal


class TransposeTransformation(MoveDequantizationTransformation):
    name = "TransposeTransformation"
    constant_inputs = (1,)
    needs_per_channel = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        parts = constants(dq)
        if not all(is_scalar_like(c.value) for _, c in parts):
            order = node.input_node(1).value.reshape(-1).tolist()
            if len(order) < 2 or order[0] != 0 or order[1] != 1:
                return "channel_moved", "a per-channel dequantization cannot follow a permuted batch/channel axis"
        out_rank = node.output().rank
        for _, constant in parts:
            rank = constant.value.ndim
            if out_rank is None or not (rank <= 1 or rank == out_rank or rank == out_rank - 1):
                return "constant_rank", f"dequantization constant of rank {rank} does not fit the output"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        parts = constants(dq)
        if all(c.value.ndim <= 1 for _, c in parts):
            return
        order = node.input_node(1).value.reshape(-1).astype(np.int64).tolist()

        def permute(value: np.ndarray) -> np.ndarray:
            rank = len(order) or (node.output().rank or value.ndim)
            return np.transpose(with_leading_ones(value, rank), order or None)

        adapt_constants(dq, permute)
