"""The GPU plugin's callbacks on LPT's passes: src/plugins/intel_gpu/src/plugin/transformations_pipeline.cpp,
TransformationsPipeline::apply, the `lptPassConfig->set_callback<...>` calls (OpenVINO 2025.x as
read). Each returns why the plugin skips the node, or None. Its FoldConvert / FuseConvert callbacks
(decompression Multiplies) are what MarkDequantization's marks do in common_optimizations/gpu.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import Node
from ..dequantization.chain import get_dequantization
from ..transformations.weightable.weightable_layer import is_asymmetric_on_weights, is_asymmetric_quantization
from . import Callbacks

if TYPE_CHECKING:
    from ..engine.config import Config


def _static_channel(shape: tuple[int, ...] | None) -> int | None:
    """fillStaticChannel: dim 1 of a shape of static rank >= 2, when static."""
    if shape is None or len(shape) < 2 or shape[1] < 0:
        return None
    return shape[1]


def skip_convolution_backprop_data(node: Node, config: Config) -> str | None:
    """ConvolutionBackpropDataTransformation: skipped without static input and output channels,
    with input channels not a multiple of 4 or output channels not a multiple of 16, and for
    asymmetric activations or weights."""
    channels_in = _static_channel(node.input_value(0).shape)
    channels_out = _static_channel(node.output().shape)
    if channels_in is None or channels_out is None:
        return "the input or output channel count is not static"
    if channels_in % 4 or channels_out % 16:
        return f"{channels_in} input channels (a multiple of 4 needed), {channels_out} output (of 16)"
    defaults = config.default_precisions
    if is_asymmetric_quantization(node, defaults) or is_asymmetric_on_weights(node, defaults):
        return "asymmetric activations or weights"
    return None


def skip_transpose(node: Node, config: Config) -> str | None:
    """TransposeTransformation: skipped for a Transpose that feeds a ScaledDotProductAttention."""
    if any(user.type == "ScaledDotProductAttention" for user in node.consumers()):
        return "it feeds a ScaledDotProductAttention"
    return None


def can_be_transformed_to_group_convolution(node: Node) -> bool:
    """MultiplyToGroupConvolutionTransformation::canBeTransformedToGroupConvolution: a Constant
    input and an output of rank 4 or 5."""
    if node.input_node(0).type != "Constant" and node.input_node(1).type != "Constant":
        return False
    return node.output().rank in (4, 5)


def skip_markup_precisions(node: Node, config: Config) -> str | None:
    """MarkupPrecisions: no marks at all on a Multiply that cannot become a GroupConvolution."""
    if node.type == "Multiply" and not can_be_transformed_to_group_convolution(node):
        return "a Multiply that cannot become a GroupConvolution gets no precision marks"
    return None


def _dynamic_or_scalar(node: Node) -> bool:
    """MultiplyToGroupConvolutionTransformation::isDynamicOrScalar: its Constant input has a
    dynamic shape or only 1s (a scalar)."""
    for index in (1, 0):
        if node.input_node(index).type == "Constant":
            shape = node.input_value(index).shape
            return shape is None or any(d < 0 for d in shape) or all(d == 1 for d in shape)
    return False


def skip_multiply_to_group_convolution(node: Node, config: Config) -> str | None:
    """MultiplyToGroupConvolutionTransformation: skipped when the dequantization's data has one
    consumer (the Multiply fuses into the op producing it) and for a scalar or dynamic constant."""
    dq = get_dequantization(node, config.default_precisions, 0, in_place=True)
    if not dq.empty and dq.data is not None and len(dq.data.node.output().uses) == 1:
        return "the dequantized data has one consumer: the plugin fuses the Multiply into its producer"
    if _dynamic_or_scalar(node):
        return "the Multiply's constant is a scalar or dynamic"
    return None


CALLBACKS: Callbacks = {
    "ConvolutionBackpropDataTransformation": skip_convolution_backprop_data,
    "TransposeTransformation": skip_transpose,
    "MarkupPrecisions": skip_markup_precisions,
    "MultiplyToGroupConvolutionTransformation": skip_multiply_to_group_convolution,
}
