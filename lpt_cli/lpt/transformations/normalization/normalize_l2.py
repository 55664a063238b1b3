"""NormalizeL2Transformation: x*s normalized equals sign(s)*normalize(x) for one scale s,
so NormalizeL2 reads the integer data and only the scale's sign stays behind it."""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ...engine.layer_checks import Refusal
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like
from .scale_after import ScaleAfterTransformation, sign_constant

_SUPPORTED_AXES = ([1], [1, 2, 3])


class NormalizeL2Transformation(ScaleAfterTransformation):
    name = "NormalizeL2Transformation"

    def applies_to(self, node: Node) -> bool:
        return (len(node.inputs) == 2 and node.input_node(0).type == "Multiply"
                and node.input_node(1).type == "Constant")

    def new_scale(self, node: Node, dq: Dequantization) -> Output:
        scale = dq.multiply_constant
        assert scale is not None, "ScaleAfterTransformation moves only dequantizations with a scale"
        return sign_constant(self.graph, scale.value, scale.constant_data.element_type)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if node.input_node(1).value.astype(np.int64).reshape(-1).tolist() not in _SUPPORTED_AXES:
            return "axes", "axes other than [1] or [1, 2, 3]"
        scale = dq.multiply_constant
        assert scale is not None, "ScaleAfterTransformation checks only dequantizations with a scale"
        if scale.constant_data.count != 1:
            shape = node.output().dims
            if len(shape) < 2 or shape[1] != scale.constant_data.count:
                return "not_per_channel", "the scale does not match the channel dimension"
        if not is_scalar_like(scale.value):
            return "different_scales", "per-channel scales differ"
        if scale.constant_data.element_type.name not in ("f16", "f32"):
            return "scale_type", "the scale is not f16/f32"
        return None
