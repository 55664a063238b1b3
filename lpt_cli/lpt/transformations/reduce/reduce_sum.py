"""ReduceSum: sum((x - z) * s) = (sum(x) - N * z) * s, so the zero point is multiplied by the
number N of summed elements; the sum itself runs in f32."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.channel_constants import set_zero_point
from ...dequantization.chain import Dequantization
from .reduce_base import ReduceBaseTransformation, reduced_axes
from ...engine.layer_checks import Refusal


class ReduceSumTransformation(ReduceBaseTransformation):
    name = "ReduceSumTransformation"
    update_precision = False

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        refusal = super().check(node, dq)
        if refusal is not None or dq.subtract is None:
            return refusal
        shape = node.input_value(0).shape or ()
        if any(shape[a] < 0 for a in reduced_axes(node)):
            return "dynamic_reduced_dims", "the zero point needs the number of summed elements"
        if dq.subtract.input_value(0).element_type != self.config.deq_precision:
            return "deq_precision", "the zero point's data is not in the dequantization precision"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        super().prepare(node, dq)
        if dq.subtract is None or dq.subtract_constant is None:
            return
        shape = node.input_value(0).shape or ()
        count = int(np.prod([shape[a] for a in reduced_axes(node)], dtype=np.int64))
        value = dq.subtract_constant.value.astype(np.float64) * count
        set_zero_point(dq, value, self.config.deq_precision)
