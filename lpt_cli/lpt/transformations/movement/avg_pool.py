"""AvgPoolTransformation: averaging is linear, so any per-channel DQ (zero point included) moves after.

The pooled value is integral only when markup found the AvgPool precision-preserved
(MarkupAvgPoolPrecisionPreserved); otherwise the type-relaxed AvgPool reads u8/i8 and
returns the dequantization's float type.
"""
from __future__ import annotations

from ....ir import Node
from ...dequantization.attributes import is_precision_preserved
from ...dequantization.chain import get_dequantization
from ...engine.layer_checks import dequantization_refusal
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...engine.transformation import Transformation


class AvgPoolTransformation(Transformation):
    name = "AvgPoolTransformation"
    op_types = ("AvgPool",)
    op_versions = ("opset1",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.version in self.op_versions and node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        refusal = dequantization_refusal(node, precisions)
        if refusal is not None:
            return self.reject(node, *refusal)
        separate_in_standalone_branch(node, precisions)
        move_dequantization_after(node, get_dequantization(node, precisions),
                                  update_output_precision=is_precision_preserved(node))
        return True
