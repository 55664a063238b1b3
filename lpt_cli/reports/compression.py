"""Weight-only compression: layers whose weights stay compressed for the plugin's kernels.

`nncf.compress_weights` leaves no FakeQuantize: a MatMul (or convolution) reads
`Constant(u8/i8/u4/i4/nf4) -> Convert -> [Subtract] -> Multiply [-> Reshape]`. LPT has nothing
to do there (the plugin runs no LPT on such a model), yet the weights are low precision; the
report says so instead of a bare "0 % in low precision".
"""
from __future__ import annotations

from ..ir import Graph, Node
from ..ir.eltypes import COMPRESSED_WEIGHT_TYPES
from .topology import WEIGHTABLE

_DECOMPRESSION = ("Reshape", "Multiply", "Subtract", "Convert")


def compressed_weights_type(layer: Node) -> str | None:
    """The element type of `layer`'s compressed weights, or None if its weights are not compressed."""
    if layer.type not in WEIGHTABLE or len(layer.inputs) < 2:
        return None
    node = layer.input_node(1)
    seen_convert = False
    while node.type in _DECOMPRESSION:
        if node.type == "Convert":
            seen_convert = True
        node = node.input_node(0)
    if not seen_convert or node.type != "Constant":
        return None
    etype = node.output().element_type
    return etype.name if etype in COMPRESSED_WEIGHT_TYPES else None


def weight_compressed_layers(graph: Graph, quantized: bool) -> dict[str, str]:
    """Layer name -> weights type for weight-only compressed layers (none in a FakeQuantize model,
    where compressed weights are LPT's own business)."""
    if quantized:
        return {}
    found = {}
    for node in graph:
        etype = compressed_weights_type(node)
        if etype is not None:
            found[node.name] = etype
    return found
