"""AvgPoolTransformation: averaging is linear, so any per-channel DQ (zero point included) moves after.

The pooled value is integral only when markup found the AvgPool precision-preserved
(MarkupAvgPoolPrecisionPreserved); otherwise the type-relaxed AvgPool reads u8/i8 and
returns the dequantization's float type.
"""
from __future__ import annotations

from ....ir import Node
from ...dequantization.attributes import is_precision_preserved
from ...dequantization.chain import Dequantization
from ...surgery.moving import move_dequantization_after
from .move_dequantization import MoveDequantizationTransformation


class AvgPoolTransformation(MoveDequantizationTransformation):
    name = "AvgPoolTransformation"
    op_versions = ("opset1",)
    revisits_created = False
    layer_checks_first = True

    def move(self, node: Node, dq: Dequantization) -> None:
        move_dequantization_after(node, dq, update_output_precision=is_precision_preserved(node))
