"""PReluTransformation: PRelu(s*x) = s*PRelu(x) for s >= 0; PRelu stays f32 out (it is type-relaxed)."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from ...surgery.moving import move_dequantization_after
from .relu import ReluTransformation


class PReluTransformation(ReluTransformation):
    name = "PReluTransformation"
    constant_inputs = (1,)  # the slope

    def move(self, node: Node, dq: Dequantization) -> None:
        move_dequantization_after(node, dq, update_output_precision=False, move_subtract=False)
