"""MaxPoolTransformation: max commutes with a non-decreasing affine map, so the DQ moves after it."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..dequantization import get_dequantization
from ..base_checks import can_be_transformed
from ..moving import move_dequantization_after, separate_in_standalone_branch
from ..transformation import Transformation


class MaxPoolTransformation(Transformation):
    name = "MaxPoolTransformation"
    op_types = ("MaxPool",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.version == "opset1" and node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        dq = get_dequantization(node, precisions)
        if dq.empty:
            return self.reject(node, "no_dequantization", "no dequantization on the input")
        if np.any(dq.scale < 0):
            return self.reject(node, "negative_scale", "a negative scale does not commute with max")
        separate_in_standalone_branch(node, precisions)
        move_dequantization_after(node, get_dequantization(node, precisions))
        return True
