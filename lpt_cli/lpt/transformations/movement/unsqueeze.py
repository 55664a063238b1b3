"""Unsqueeze: full-rank dequantization constants gain the same axes as the data."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import adapt_constants
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation


def inserted_axes(node: Node) -> tuple[int, ...]:
    """The output axes an Unsqueeze inserts, normalized against the output rank."""
    out_rank = node.output().rank or 0
    axes = node.input_node(1).value.reshape(-1).astype(np.int64).tolist()
    return tuple(sorted({a + out_rank if a < 0 else a for a in axes}))


class UnsqueezeTransformation(MoveDequantizationTransformation):
    name = "UnsqueezeTransformation"
    constant_inputs = (1,)
    needs_per_channel = True

    def prepare(self, node: Node, dq: Dequantization) -> None:
        rank = dq.data.rank if dq.data is not None else None
        axes = inserted_axes(node)
        adapt_constants(dq, lambda value: np.expand_dims(value, axis=axes) if value.ndim == rank else None)
