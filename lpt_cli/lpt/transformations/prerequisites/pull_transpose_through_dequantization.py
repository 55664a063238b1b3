"""PullTransposeThroughDequantization: a Transpose of dequantized weights moves into the weights."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from .pull_through import PullThroughDequantization


class PullTransposeThroughDequantization(PullThroughDequantization):
    name = "PullTransposeThroughDequantization"

    def _order(self, op: Node) -> list[int] | None:
        order = op.input_node(1).value.reshape(-1).astype(np.int64).tolist()
        return order or None

    def fold(self, op: Node, value: np.ndarray) -> np.ndarray:
        return np.transpose(value, self._order(op))

    def eltwise_constant(self, op: Node, eltwise: Node, value: np.ndarray) -> np.ndarray | None:
        rank = op.input_node(1).constant_data.count
        if value.ndim != rank:
            if value.size != 1:
                return None
            value = value.reshape((1,) * rank)
        return np.transpose(value, self._order(op))
