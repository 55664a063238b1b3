"""ReduceMax: the maximum commutes with a non-negative scale, so the op stays in low precision."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...dequantization.chain import Dequantization
from .reduce_base import ReduceBaseTransformation
from ...engine.layer_checks import Refusal


def negative_scale_refusal(dq: Dequantization) -> Refusal | None:
    """Max/Min only commute with scales >= 0 (a negative scale swaps them)."""
    if dq.multiply_constant is not None and np.any(dq.multiply_constant.value < 0):
        return "negative_scale", "a negative scale turns the reduction into its opposite"
    return None


class ReduceMaxTransformation(ReduceBaseTransformation):
    name = "ReduceMaxTransformation"

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        return super().check(node, dq) or negative_scale_refusal(dq)
