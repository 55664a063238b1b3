"""PullReshapeThroughDequantization: a Reshape of dequantized weights moves into the weights."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from .pull_through import PullThroughDequantization


def update_reshape_values(const_shape: tuple[int, ...], eltwise_shape: tuple[int, ...],
                          target: list[int]) -> list[int]:
    """The reshape target for an elementwise constant: target dims that make up a dim the
    constant broadcasts over become 1, the others are kept."""
    updated = list(target)
    t = 0
    for axis, const_dim in enumerate(const_shape):
        broadcast = const_dim != eltwise_shape[axis]
        want = eltwise_shape[axis] if broadcast else const_dim
        product = 1
        while t < len(target):
            product *= target[t]
            if broadcast:
                updated[t] = 1
            t += 1
            if product == want:
                break
    return updated


class PullReshapeThroughDequantization(PullThroughDequantization):
    name = "PullReshapeThroughDequantization"

    def applies_to(self, node: Node) -> bool:
        return super().applies_to(node) and node.output().is_static

    def transform(self, node: Node) -> bool:
        uses = node.output().uses
        if uses and uses[0].node.type == "GroupConvolution":
            return False  # GroupConvolution's own transformation expects the reshape there
        return super().transform(node)

    def fold(self, op: Node, value: np.ndarray) -> np.ndarray:
        return np.reshape(value, op.output().dims)

    def eltwise_constant(self, op: Node, eltwise: Node, value: np.ndarray) -> np.ndarray | None:
        if value.size == 1:
            return value.reshape(())
        target = list(op.output().dims)
        if len(target) == value.ndim and all(c == 1 or c == t for c, t in zip(value.shape, target)):
            return value
        eltwise_shape = eltwise.output().shape
        if eltwise_shape is None or len(eltwise_shape) < value.ndim:
            return None
        new_shape = update_reshape_values(value.shape, eltwise_shape, target)
        if int(np.prod(new_shape)) != value.size:
            return None
        return np.reshape(value, new_shape)
