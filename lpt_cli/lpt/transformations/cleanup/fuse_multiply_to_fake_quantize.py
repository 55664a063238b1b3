"""FuseMultiplyToFakeQuantizeTransformation: `FQ -> [Convert] -> Multiply(c)` becomes one
FakeQuantize whose output interval is scaled by c (computed in the deq precision).

Unlike the Subtract fusion it restores the levels an interval alignment recorded on the FQ,
undoing the level change a Concat's shared interval forced during decomposition.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...dequantization import attributes
from .fuse_to_fake_quantize import FuseElementwiseToFakeQuantize


class FuseMultiplyToFakeQuantizeTransformation(FuseElementwiseToFakeQuantize):
    name = "FuseMultiplyToFakeQuantizeTransformation"

    @staticmethod
    def combine(interval: np.ndarray, operand: np.ndarray) -> np.ndarray:
        return np.multiply(interval, operand)

    def levels(self, fq: Node) -> int:
        alignment = attributes.intervals_alignment(fq)
        if alignment is not None and alignment.levels != 0:
            return alignment.levels
        return super().levels(fq)
