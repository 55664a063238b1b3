"""MaxPoolTransformation: max commutes with a non-decreasing affine map, so the DQ moves after it."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...dequantization.chain import get_dequantization
from ...engine.layer_checks import dequantization_refusal
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...engine.transformation import Transformation


class MaxPoolTransformation(Transformation):
    name = "MaxPoolTransformation"
    op_types = ("MaxPool",)
    op_versions = ("opset1",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        # LPT knows MaxPool-1; the plugin's common optimizations (lpt_cli/lpt/common_optimizations/pooling.py)
        # turn MaxPool-14 and MaxPool-8 into it where they may.
        return node.version in self.op_versions and node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        refusal = dequantization_refusal(node, precisions)
        if refusal is not None:
            return self.reject(node, *refusal)
        if np.any(get_dequantization(node, precisions).scale < 0):
            return self.reject(node, "negative_scale", "a negative scale does not commute with max")
        separate_in_standalone_branch(node, precisions)
        move_dequantization_after(node, get_dequantization(node, precisions))
        return True
