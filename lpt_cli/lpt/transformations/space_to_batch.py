"""SpaceToBatch: spatial blocks become batch entries; only a per-tensor dequantization follows."""
from __future__ import annotations

from collections.abc import Iterable

from ...ir import Node
from ...ir.eltypes import ElementType
from ..base_checks import can_be_transformed
from ..dequantization import Dequantization
from ..transparent import MoveDequantizationTransformation, Refusal


def per_tensor_refusal(node: Node, dq: Dequantization, precisions: Iterable[ElementType]) -> Refusal | None:
    """The check SpaceToBatch and BatchToSpace share: base check, then one value per constant."""
    if not can_be_transformed(node, precisions):
        return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
    if not dq.is_per_tensor():
        return "per_channel", "the op mixes batch and space: only a per-tensor dequantization can follow"
    return None


class SpaceToBatchTransformation(MoveDequantizationTransformation):
    name = "SpaceToBatchTransformation"
    op_types = ("SpaceToBatch",)
    needs_multiply_input = False

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        return per_tensor_refusal(node, dq, self.precisions)
