"""FuseSubtractToFakeQuantizeTransformation: `FQ -> [Convert] -> Subtract(c)` becomes one
FakeQuantize whose output interval is shifted by -c (computed in the deq precision)."""
from __future__ import annotations

import numpy as np

from .fuse_to_fake_quantize import FuseElementwiseToFakeQuantize


class FuseSubtractToFakeQuantizeTransformation(FuseElementwiseToFakeQuantize):
    name = "FuseSubtractToFakeQuantizeTransformation"

    @staticmethod
    def combine(interval: np.ndarray, operand: np.ndarray) -> np.ndarray:
        return np.subtract(interval, operand)
