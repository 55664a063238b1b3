"""Squeeze: full-rank dequantization constants drop the same axes as the data."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import adapt_constants
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation


def squeezed_axes(node: Node) -> tuple[int, ...]:
    """The axes a Squeeze removes from its input (all 1-dims when the axes input is empty)."""
    shape = node.input_value(0).shape or ()
    axes = node.input_node(1).value.reshape(-1).astype(np.int64).tolist() if len(node.inputs) > 1 else []
    if not axes:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    return tuple(sorted({a + len(shape) if a < 0 else a for a in axes}))


class SqueezeTransformation(MoveDequantizationTransformation):
    name = "SqueezeTransformation"
    constant_inputs = (1,)
    needs_per_channel = True

    def prepare(self, node: Node, dq: Dequantization) -> None:
        rank = dq.data.rank if dq.data is not None else None
        axes = squeezed_axes(node)
        adapt_constants(dq, lambda value: np.squeeze(value, axis=axes) if value.ndim == rank else None)
