"""MaxPoolTransformation: max commutes with a non-decreasing affine map, so the DQ moves after it."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...dequantization.chain import Dequantization
from ...engine.layer_checks import Refusal
from .move_dequantization import MoveDequantizationTransformation


class MaxPoolTransformation(MoveDequantizationTransformation):
    name = "MaxPoolTransformation"
    # LPT knows MaxPool-1; the plugin's common optimizations (lpt_cli/lpt/common_optimizations/pooling.py)
    # turn MaxPool-14 and MaxPool-8 into it where they may.
    op_versions = ("opset1",)
    revisits_created = False
    layer_checks_first = True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if np.any(dq.scale < 0):
            return "negative_scale", "a negative scale does not commute with max"
        return None
