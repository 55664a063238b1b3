"""ReluTransformation: Relu commutes with a non-negative scale, so the dequantization moves after it."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...engine.layer_checks import can_be_transformed
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...engine.transformation import Transformation


class ReluTransformation(Transformation):
    """Also the base of PReluTransformation: both commute with a scale >= 0 without a zero point."""

    name = "ReluTransformation"
    op_types = ("Relu",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.type == "Relu" and node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        dq = get_dequantization(node, precisions)
        if dq.empty or dq.subtract is not None:
            return self.reject(node, "no_dequantization" if dq.empty else "zero_point",
                               f"{node.type} needs a dequantization without a zero point")
        if np.any(dq.scale < 0):
            return self.reject(node, "negative_scale", f"a negative scale does not commute with {node.type}")
        separate_in_standalone_branch(node, precisions)
        self.move(node, get_dequantization(node, precisions))
        return True

    def move(self, node: Node, dq: Dequantization) -> None:
        """Relu keeps the low-precision type on its output."""
        move_dequantization_after(node, dq)
