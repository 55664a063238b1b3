"""ReduceMin: the minimum commutes with a non-negative scale, so the op stays in low precision."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .reduce_base import ReduceBaseTransformation
from ...engine.layer_checks import Refusal
from .reduce_max import negative_scale_refusal


class ReduceMinTransformation(ReduceBaseTransformation):
    name = "ReduceMinTransformation"

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        return super().check(node, dq) or negative_scale_refusal(dq)
