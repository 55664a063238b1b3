"""PReluTransformation: PRelu(s*x) = s*PRelu(x) for s >= 0; PRelu stays f32 out (it is type-relaxed)."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..dequantization import get_dequantization
from ..base_checks import can_be_transformed
from ..moving import move_dequantization_after, separate_in_standalone_branch
from ..transformation import Transformation


class PReluTransformation(Transformation):
    name = "PReluTransformation"
    op_types = ("PRelu",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.input_node(0).type == "Multiply" and node.input_node(1).type == "Constant"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        dq = get_dequantization(node, precisions)
        if dq.empty or dq.subtract is not None:
            return self.reject(node, "no_dequantization" if dq.empty else "zero_point",
                               "PRelu needs a dequantization without a zero point")
        if np.any(dq.scale < 0):
            return self.reject(node, "negative_scale", "a negative scale does not commute with PRelu")
        separate_in_standalone_branch(node, precisions)
        move_dequantization_after(node, get_dequantization(node, precisions),
                                  update_output_precision=False, move_subtract=False)
        return True
