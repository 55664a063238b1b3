"""ReduceMean: the mean of dequantized values is the dequantized mean, computed in f32."""
from __future__ import annotations

from .reduce_base import ReduceBaseTransformation


class ReduceMeanTransformation(ReduceBaseTransformation):
    name = "ReduceMeanTransformation"
    update_precision = False
