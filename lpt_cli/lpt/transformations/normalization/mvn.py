"""MVNTransformation: mean-variance normalization removes a positive scale (and keeps its
sign) when variance is normalized, and commutes with it otherwise, as long as one scale
covers each normalized slice. The MVN then reads the integer data."""
from __future__ import annotations

from ....ir import Node, Output
from ...engine.layer_checks import Refusal
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like
from ...common_optimizations.mvn import DECOMPOSED_BY_PLUGIN
from .scale_after import ScaleAfterTransformation, sign_constant


def reduction_axes(mvn: Node) -> set[int] | None:
    """The normalized axes (non-negative), or None when they need an unknown rank."""
    rank = mvn.input_value(0).rank
    if mvn.version == "opset6":
        axes = mvn.input_node(1).value.reshape(-1).astype(int).tolist()
        if any(a < 0 for a in axes) and rank is None:
            return None
        return {a + rank if a < 0 else a for a in axes}
    axes = mvn.attr_ints("reduction_axes")
    if axes:
        return set(axes)
    if rank is None:
        return None
    return set(range(1 if mvn.attr_bool("across_channels") else 2, rank))


class MVNTransformation(ScaleAfterTransformation):
    name = "MVNTransformation"

    def applies_to(self, node: Node) -> bool:
        if node.input_node(0).type != "Multiply":
            return False
        if node.version == "opset6":
            return len(node.inputs) == 2 and node.input_node(1).type == "Constant"
        return len(node.inputs) == 1

    def new_scale(self, node: Node, dq: Dequantization) -> Output:
        scale = dq.multiply_constant
        assert scale is not None, "ScaleAfterTransformation moves only dequantizations with a scale"
        if node.attr_bool("normalize_variance"):
            return sign_constant(self.graph, scale.value, self.config.deq_precision)
        return scale.output()

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if node.annotations.get(DECOMPOSED_BY_PLUGIN):
            return ("decomposed_by_plugin", ("the plugin's MVN kernel does not take these axes: it decomposes the "
                                             "MVN before LPT, so the dequantization stays in front of it"))
        if node.attr_bool("normalize_variance") and self.config.deq_precision.name not in ("f16", "f32"):
            return "deq_precision", "the sign scale needs an f16/f32 deq precision"
        axes = reduction_axes(node)
        if axes is None:
            return "dynamic_rank", "negative reduction axes with a dynamic rank"
        assert dq.multiply_constant is not None, "ScaleAfterTransformation checks only dequantizations with a scale"
        if not is_scalar_like(dq.multiply_constant.value) and dq.channel_dim in axes:
            return "per_channel_across_channels", "per-channel scales inside one normalized slice"
        return None
