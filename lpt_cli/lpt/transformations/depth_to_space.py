"""DepthToSpace: channels become spatial positions, so only an all-equal dequantization can follow."""
from __future__ import annotations

from ...ir import Node
from ..base_checks import can_be_transformed
from ..channel_constants import constants
from ..dequantization import Dequantization
from ..folding import is_scalar_like
from ..transparent import MoveDequantizationTransformation, Refusal


class DepthToSpaceTransformation(MoveDequantizationTransformation):
    name = "DepthToSpaceTransformation"
    op_types = ("DepthToSpace",)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not can_be_transformed(node, self.precisions):
            return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
        if not all(is_scalar_like(constant.value) for _, constant in constants(dq)):
            return "per_channel", "channels move into space: only equal dequantization values can follow"
        return None
