"""MarkupCanBeQuantized: weighted layers whose weights are not quantized, and Concats of
dynamic rank, get empty precisions on every input (nothing may be quantized for them)."""
from __future__ import annotations

from collections.abc import Iterable
from math import prod

from ...ir import Graph, Node
from ...ir.eltypes import ElementType
from ..dequantization.attributes import PRECISIONS, PrecisionsAttribute
from ..dequantization.chain import get_dequantization
from ..dequantization.precision import is_quantize_supported, is_supported_precision
from ..engine.ordering import ordered_ops

# Output-channel axes of the weights, per layer (GroupConvolution: with/without a Reshape).
_OUT_CHANNEL_AXES = {"Convolution": (0,), "ConvolutionBackpropData": (1,), "GroupConvolution": (0, 1)}


def _const_shape_ok(shape: tuple[int, ...], axes: tuple[int, ...]) -> bool:
    """checkConstShape: a scalar, or values that vary only along the output-channel axes."""
    count = prod(shape)
    if count == 1:
        return True
    if any(a >= len(shape) for a in axes):
        return False
    return count == prod(shape[a] for a in axes)


def is_quantized_static(layer: Node, reshape_is_required: bool, default_precisions: Iterable[ElementType]) -> bool:
    """WeightableLayerTransformation::isQuantizedStatic: are the weights (input 1) quantized?"""
    axes = _OUT_CHANNEL_AXES[layer.type]
    weights = layer.input_value(1)
    if reshape_is_required and weights.node.type == "Reshape":
        axes = (0,)
        parent = weights.node.input_node(0)
        if parent.type == "FakeQuantize":
            return is_quantize_supported(parent)
        dq = get_dequantization(parent, default_precisions, in_place=True)
    elif weights.node.type == "FakeQuantize":
        return is_quantize_supported(weights.node)
    else:
        dq = get_dequantization(layer, default_precisions, 1)
    if dq.empty:
        return False
    for const in (dq.subtract_constant, dq.multiply_constant):
        if const is not None and not _const_shape_ok(const.output().dims, axes):
            return False
    data = dq.source.node
    if data.type == "Constant":
        if not is_supported_precision(data.output().element_type):
            return False
        if dq.subtract_convert is not None and dq.subtract_constant is not None:
            return dq.subtract_constant.output().element_type == data.output().element_type
        return True
    if data.type == "FakeQuantize":
        return all(_const_shape_ok(data.input_node(i).output().dims, axes) for i in range(1, 5)
                   if data.input_node(i).type == "Constant")
    return False


def _needs_disable(node: Node, default_precisions: Iterable[ElementType]) -> bool:
    if node.type in ("Convolution", "ConvolutionBackpropData"):
        return len(node.inputs) > 1 and not is_quantized_static(node, False, default_precisions)
    if node.type == "GroupConvolution":
        return len(node.inputs) > 1 and not is_quantized_static(node, True, default_precisions)
    if node.type == "Concat":
        return node.output().rank is None
    return False


def markup_can_be_quantized(graph: Graph, default_precisions: Iterable[ElementType]) -> None:
    for node in ordered_ops(graph):
        if _needs_disable(node, default_precisions):
            for slot in node.inputs:
                slot.annotations.setdefault(PRECISIONS, PrecisionsAttribute([]))
