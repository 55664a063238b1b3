"""Slice (opset8): a per-tensor dequantization moves after it; per-channel values stay in front.

OpenVINO's SliceTransformation, unlike StridedSlice's, does not slice the dequantization
constants along the data: it takes a one-value scale (and zero point) only.
"""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal


class SliceTransformation(MoveDequantizationTransformation):
    name = "SliceTransformation"
    op_versions = ("opset8",)
    needs_multiply_input = False
    needs_per_channel = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not dq.is_per_tensor():
            return "per_channel", "Slice takes a per-tensor dequantization only (one scale, one zero point)"
        return None
