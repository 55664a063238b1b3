"""NormalizeL2Transformation: x*s normalized equals sign(s)*normalize(x) for one scale s,
so NormalizeL2 reads the integer data and only the scale's sign stays behind it."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..base_checks import can_be_transformed
from ..dequantization import get_dequantization
from ..folding import is_scalar_like
from ..moving import separate_in_standalone_branch
from ..scale_after import rescale_after, sign_constant
from ..transformation import Transformation

_SUPPORTED_AXES = ([1], [1, 2, 3])


class NormalizeL2Transformation(Transformation):
    name = "NormalizeL2Transformation"
    op_types = ("NormalizeL2",)

    def applies_to(self, node: Node) -> bool:
        return (len(node.inputs) == 2 and node.input_node(0).type == "Multiply"
                and node.input_node(1).type == "Constant")

    def transform(self, node: Node) -> bool:
        problem = self._problem(node)
        if problem is not None:
            return self.reject(node, *problem)
        precisions = self.config.default_precisions
        separate_in_standalone_branch(node, precisions)
        dq = get_dequantization(node, precisions)
        scale = dq.multiply_constant
        rescale_after(node, dq, sign_constant(self.graph, scale.value, scale.data.element_type),
                      self.config.deq_precision)
        return True

    def _problem(self, node: Node) -> tuple[str, str] | None:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return "not_per_channel", "dynamic rank or per-spatial dequantization"
        dq = get_dequantization(node, precisions)
        if dq.subtract is not None or dq.multiply_constant is None:
            return "no_scale_only_dequantization", "needs a dequantization with a scale and no zero point"
        if node.input_node(1).value.astype(np.int64).reshape(-1).tolist() not in _SUPPORTED_AXES:
            return "axes", "axes other than [1] or [1, 2, 3]"
        scale = dq.multiply_constant
        if scale.data.count != 1:
            shape = node.output().shape
            if len(shape) < 2 or shape[1] != scale.data.count:
                return "not_per_channel", "the scale does not match the channel dimension"
        if not is_scalar_like(scale.value):
            return "different_scales", "per-channel scales differ"
        if scale.data.element_type.name not in ("f16", "f32"):
            return "scale_type", "the scale is not f16/f32"
        return None
