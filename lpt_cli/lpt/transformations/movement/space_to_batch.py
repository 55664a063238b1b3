"""SpaceToBatch: spatial blocks become batch entries; only a per-tensor dequantization follows."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal


def per_tensor_refusal(dq: Dequantization) -> Refusal | None:
    """The check SpaceToBatch and BatchToSpace share: one value per constant."""
    if not dq.is_per_tensor():
        return "per_channel", "the op mixes batch and space: only a per-tensor dequantization can follow"
    return None


class SpaceToBatchTransformation(MoveDequantizationTransformation):
    name = "SpaceToBatchTransformation"
    needs_multiply_input = False
    needs_per_channel = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        return per_tensor_refusal(dq)
