"""MarkupBias: an Add of a constant right after a weighted layer is a bias, not a dequantization."""
from __future__ import annotations

from math import prod

from ...ir import Graph
from ..dequantization.attributes import BIAS
from ..engine.ordering import ordered_ops

_LAYERS = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData",
                     "GroupConvolutionBackpropData", "MatMul"})


def markup_bias(graph: Graph) -> None:
    for node in ordered_ops(graph):
        if node.type != "Add" or len(node.inputs) != 2:
            continue
        for layer_index in (0, 1):
            layer, const = node.input_node(layer_index), node.input_node(1 - layer_index)
            if layer.type not in _LAYERS or const.type != "Constant" or layer.output().rank is None:
                continue
            shape = const.output().shape or ()
            if prod(shape) == 1 or sum(1 for d in shape if d > 1) == 1:
                node.annotations[BIAS] = True
            break
