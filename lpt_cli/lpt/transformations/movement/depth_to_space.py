"""DepthToSpace: channels become spatial positions, so only an all-equal dequantization can follow."""
from __future__ import annotations

from ....ir import Node
from ...surgery.channel_constants import constants
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like
from .move_dequantization import MoveDequantizationTransformation, Refusal


class DepthToSpaceTransformation(MoveDequantizationTransformation):
    name = "DepthToSpaceTransformation"
    needs_per_channel = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not all(is_scalar_like(constant.value) for _, constant in constants(dq)):
            return "per_channel", "channels move into space: only equal dequantization values can follow"
        return None
