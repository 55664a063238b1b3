"""LowPrecision::isFunctionQuantized: the plugin runs LPT only on a model that has a FakeQuantize."""
from __future__ import annotations

from collections.abc import Collection

from ...ir import Graph, Node

# QuantizationDetails::isSupportedLevel for the CPU plugin: int4, int4 narrow, int8, int8 narrow
# (Transformations::UpToLpt passes these levels).
SUPPORTED_LEVELS = frozenset({15, 16, 255, 256})
# LPT's `all_levels` (layer_transformation.hpp, the `levels` enum): isFunctionQuantized's default,
# what the GPU plugin asks (transformations_pipeline.cpp calls it without levels).
ALL_LEVELS = frozenset({15, 16, 255, 256, 65535, 65536, 2**32 - 1, 2**32})


def _constant(node: Node) -> bool:
    """An interval input is constant, or Convert(Constant) (f16 constants of older IRs)."""
    return node.type == "Constant" or (node.type == "Convert" and node.input_node(0).type == "Constant")


def is_function_quantized(graph: Graph, levels: Collection[int] = SUPPORTED_LEVELS) -> bool:
    """A FakeQuantize with one of `levels` and constant intervals exists (weight-only compressed
    models have none: the plugin then keeps their decompression for its compressed kernels)."""
    for node in graph:
        if node.type != "FakeQuantize" or len(node.inputs) != 5:
            continue
        if (node.attr_int("levels", 0) or 0) in levels and all(_constant(node.input_node(i)) for i in range(1, 5)):
            return True
    return False
