"""ReluTransformation: Relu commutes with a non-negative scale, so the dequantization moves after it."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...dequantization.chain import Dequantization
from ...engine.layer_checks import Refusal
from .move_dequantization import MoveDequantizationTransformation


class ReluTransformation(MoveDequantizationTransformation):
    """Also the base of PReluTransformation: both commute with a scale >= 0 without a zero point."""

    name = "ReluTransformation"
    revisits_created = False
    layer_checks_first = True
    needs_dequantization = False  # `check` says why, with the op's name

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if dq.empty or dq.subtract is not None:
            return ("no_dequantization" if dq.empty else "zero_point",
                    f"{node.type} needs a dequantization without a zero point")
        if np.any(dq.scale < 0):
            return "negative_scale", f"a negative scale does not commute with {node.type}"
        return None
