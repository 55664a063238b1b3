"""BatchToSpace: batch entries become spatial blocks; only a per-tensor dequantization follows."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal
from .space_to_batch import per_tensor_refusal


class BatchToSpaceTransformation(MoveDequantizationTransformation):
    name = "BatchToSpaceTransformation"
    needs_multiply_input = False
    needs_per_channel = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        return per_tensor_refusal(dq)
