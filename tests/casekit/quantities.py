"""Facts about a graph that set the numeric tolerance and the input ranges."""
from __future__ import annotations

import numpy as np

from lpt_cli.ir.eltypes import LOW_PRECISION
from lpt_cli.ir.graph import Graph, Output

# Ops that only move or select values: a Parameter seen through them still feeds the
# FakeQuantize after them, so its inputs are drawn over that FakeQuantize's interval.
_MOVEMENT = frozenset({
    "Convert", "MaxPool", "Concat", "Reshape", "Transpose", "Gather", "StridedSlice", "Split",
    "VariadicSplit", "Squeeze", "Unsqueeze", "DepthToSpace", "SpaceToDepth", "ShuffleChannels",
    "Broadcast", "Tile", "Pad", "ReduceMax", "ReduceMin", "Relu", "BatchToSpace", "SpaceToBatch",
})


def _constant_value(value: Output) -> np.ndarray | None:
    node = value.node
    while node.type == "Convert":
        node = node.input_node(0)
    return node.value if node.type == "Constant" else None


def _quantized(graph: Graph) -> set[int]:
    """Ids of nodes downstream of a FakeQuantize or a low-precision integer value."""
    marked: set[int] = set()
    for node in graph.topological_order():
        if (node.type == "FakeQuantize" or any(o.element_type in LOW_PRECISION for o in node.outputs)
                or any(s.node.id in marked and _constant_value(s) is None for s in node.input_values())):
            marked.add(node.id)
    return marked


def dequantization_scale(graph: Graph) -> float:
    """Largest |scale| of a Multiply by a constant whose other input is quantized data."""
    marked, best = _quantized(graph), 0.0
    for node in graph:
        if node.type != "Multiply" or len(node.inputs) != 2:
            continue
        for const_port, data_port in ((0, 1), (1, 0)):
            scale = _constant_value(node.input_value(const_port))
            data = node.input_value(data_port)
            if scale is not None and scale.size and data.node.id in marked and _constant_value(data) is None:
                best = max(best, float(np.max(np.abs(scale.astype(np.float64)))))
    return best


def fake_quantize_step(graph: Graph) -> float:
    """Largest output step |oh - ol| / (levels - 1) of a FakeQuantize (0 without one)."""
    best = 0.0
    for node in graph:
        if node.type != "FakeQuantize":
            continue
        low, high = (_constant_value(node.input_value(k)) for k in (3, 4))
        levels = node.attr_int("levels", 0) or 0
        if low is None or high is None or levels < 2:
            continue
        width = np.abs(high.astype(np.float64) - low.astype(np.float64))
        if width.size:
            best = max(best, float(width.max()) / (levels - 1))
    return best


def input_interval(graph: Graph, parameter: str) -> tuple[float, float] | None:
    """The union of the input intervals of the FakeQuantize ops `parameter` feeds, if any."""
    start = next((p for p in graph.parameters if p.name == parameter), None)
    if start is None:
        return None
    low, high, todo, seen = np.inf, -np.inf, [start.output()], set()
    while todo:
        value = todo.pop()
        for use in value.uses:
            node = use.node
            if node.type == "FakeQuantize" and use.index == 0:
                bounds = [_constant_value(node.input_value(k)) for k in (1, 2)]
                if all(b is not None and b.size for b in bounds):
                    low = min(low, float(bounds[0].min()), float(bounds[1].min()))
                    high = max(high, float(bounds[0].max()), float(bounds[1].max()))
            elif node.type in _MOVEMENT and (use.index == 0 or node.type == "Concat") and node.id not in seen:
                seen.add(node.id)
                todo.extend(node.outputs)
    return (low, high) if np.isfinite(low) else None
