"""MarkupCanBeQuantized: weighted layers whose weights are not quantized, and Concats of
dynamic rank, get empty precisions on every input (nothing may be quantized for them)."""
from __future__ import annotations

from collections.abc import Sequence

from ...ir import Graph, Node
from ...ir.eltypes import ElementType
from ..dequantization.attributes import PRECISIONS, PrecisionsAttribute
from ..engine.ordering import ordered_ops
# OpenVINO's markup calls WeightableLayerTransformation::isQuantizedStatic: one rule for both.
from ..transformations.weightable.weightable_layer import is_quantized_static


def _needs_disable(node: Node, default_precisions: Sequence[ElementType]) -> bool:
    if node.type in ("Convolution", "ConvolutionBackpropData"):
        return len(node.inputs) > 1 and not is_quantized_static(node, False, default_precisions)
    if node.type == "GroupConvolution":
        return len(node.inputs) > 1 and not is_quantized_static(node, True, default_precisions)
    if node.type == "Concat":
        return node.output().rank is None
    return False


def markup_can_be_quantized(graph: Graph, default_precisions: Sequence[ElementType]) -> None:
    default_precisions = tuple(default_precisions)
    for node in ordered_ops(graph):
        if _needs_disable(node, default_precisions):
            for slot in node.inputs:
                slot.annotations.setdefault(PRECISIONS, PrecisionsAttribute([]))
