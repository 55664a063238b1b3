"""Shape subgraphs on static dimensions become constants, as the plugin's folding makes them.

Exports keep batch and H/W dynamic, yet read static dimensions through ShapeOf: shufflenet's
channel split is `ShapeOf -> Gather(1) -> Divide(2) -> Concat -> VariadicSplit`. OpenVINO's
ConstantFolding folds such values, so LPT sees constant split lengths; but only the values whose
bounds OpenVINO evaluated, which it does for the inputs shape inference reads as values
(`SHAPE_VALUE_INPUTS`) and everything upstream of them. swin_t's attention scale
`ShapeOf -> Gather(3) -> Divide -> Floor -> Convert -> Power` reads a static dimension but feeds
only a Multiply: the plugin computes it at run time, and folding it let the plugin fuse the scale
into the next FakeQuantize on lpt's output only. Here every integer value is evaluated as a
partial value (numbers plus a mask of which are known); a node whose whole value is known and
whose bounds OpenVINO evaluates becomes a Constant.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.op_facts import SHAPE_VALUE_INPUTS
from ..surgery.constants import cast
from .constant_folding import replace_by_constant

Partial = tuple[np.ndarray, np.ndarray]  # (values, known mask), same shape

_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Maximum": np.maximum,
    "Minimum": np.minimum, "Greater": np.greater, "GreaterEqual": np.greater_equal, "Less": np.less,
    "LessEqual": np.less_equal, "Equal": np.equal, "NotEqual": np.not_equal, "FloorMod": np.mod,
}


def _divide(node: Node, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    if node.attr_bool("m_pythondiv", True):
        return np.floor_divide(a, safe)
    return np.trunc(a / safe).astype(a.dtype)


def _mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    return np.fmod(a, safe)  # Mod-1 takes the sign of the dividend


def _partial(node: Node, inputs: list[Partial | None]) -> Partial | None:
    """The partial value of `node`'s first output, or None when lpt does not evaluate the op."""
    out = node.output()
    if node.type == "ShapeOf":
        shape = node.input_value(0).shape
        if shape is None:
            return None
        dims = np.array(shape, dtype=np.int64)
        return cast(np.where(dims < 0, 0, dims), out.element_type), dims >= 0
    if any(p is None for p in inputs):
        return None
    parts: list[Partial] = [p for p in inputs if p is not None]
    if node.type == "Convert" and out.element_type.dtype is not None:
        return cast(parts[0][0], out.element_type), parts[0][1]
    if node.type in _BINARY or node.type in ("Divide", "Mod"):
        (a, ka), (b, kb) = parts
        if node.type == "Divide":
            value = _divide(node, a, b)
        elif node.type == "Mod":
            value = _mod(a, b)
        else:
            value = _BINARY[node.type](a, b)
        known = np.broadcast_to(ka, value.shape) & np.broadcast_to(kb, value.shape)
        return cast(value, out.element_type), known
    if node.type == "Gather" and parts[1][1].all() and parts[2][1].all():
        axis = int(parts[2][0].reshape(-1)[0])
        if node.attr_int("batch_dims", 0) or parts[0][0].ndim == 0:
            return None
        index = parts[1][0].astype(np.int64)
        return np.take(parts[0][0], index, axis=axis), np.take(parts[0][1], index, axis=axis)
    if node.type == "Concat":
        axis = node.attr_int("axis", 0) or 0
        return (np.concatenate([p[0].reshape(p[0].shape or (1,)) for p in parts], axis=axis),
                np.concatenate([p[1].reshape(p[1].shape or (1,)) for p in parts], axis=axis))
    if node.type in ("Squeeze", "Unsqueeze", "Reshape") and out.is_static:
        return parts[0][0].reshape(out.shape), parts[0][1].reshape(out.shape)
    if node.type == "Broadcast" and len(parts) == 2 and parts[1][1].all():
        return _broadcast(node, parts[0], parts[1][0])
    return None


def _broadcast(node: Node, data: Partial, target: np.ndarray) -> Partial | None:
    """Broadcast in numpy or bidirectional mode (torch.split's uneven sizes: edgenext's
    `Broadcast(chunk, [n]) -> Concat(..., -1) -> VariadicSplit`)."""
    shape = tuple(int(d) for d in target.reshape(-1))
    mode = node.attrs.get("mode", "numpy")
    if mode == "bidirectional":
        shape = np.broadcast_shapes(np.shape(data[0]), shape)
    elif mode != "numpy":
        return None
    return np.broadcast_to(data[0], shape).copy(), np.broadcast_to(data[1], shape).copy()


def _known(values: dict[int, Partial], value: Output) -> Partial | None:
    """What is known of an integer `value`; a Constant is decoded only when a foldable op
    reads it (so the integer weights of a compressed model are never decoded here)."""
    if id(value) not in values and value.node.type == "Constant" and not value.element_type.is_real:
        array = value.node.value
        values[id(value)] = (array, np.ones(np.shape(array), dtype=bool))
    return values.get(id(value))


def shape_path(graph: Graph) -> set[int]:
    """The nodes (by Python `id`) whose output bounds OpenVINO evaluates while validating the
    model: every node upstream of an input that shape inference reads as a value, up to a ShapeOf
    (whose bounds come from its input's shape, not from its input's values). The same walk marks
    the Divides ConvertDivide leaves (MarkDividesInShapeSubgraphs)."""
    seen: set[int] = set()
    stack = [slot.source.node for node in graph if node.type in SHAPE_VALUE_INPUTS
             for index in SHAPE_VALUE_INPUTS[node.type] if index < len(node.inputs)
             for slot in (node.inputs[index],)]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.type != "ShapeOf":
            stack.extend(slot.source.node for slot in node.inputs)
    return seen


def fold_shape_subgraphs(graph: Graph) -> int:
    """Replaces the integer values that static dimensions determine by Constants, where OpenVINO's
    folding does; returns how many."""
    values: dict[int, Partial] = {}
    evaluated = shape_path(graph)
    folded = 0
    for node in graph.topological_order():
        if not node.alive or len(node.outputs) != 1 or node.output().element_type.is_real:
            continue
        if node.type not in ("ShapeOf", "Convert", "Divide", "Mod", "Gather", "Concat", "Squeeze",
                             "Unsqueeze", "Reshape", "Broadcast", *_BINARY):
            continue
        inputs = [_known(values, slot.source) for slot in node.inputs]
        try:
            part = _partial(node, inputs)
        except (ValueError, IndexError, TypeError):
            part = None  # inconsistent shapes: leave the subgraph as it is
        if part is None:
            continue
        values[id(node.output())] = part
        if id(node) in evaluated and part[1].all() and np.shape(part[0]) == tuple(node.output().shape or ()):
            values[id(replace_by_constant(node, part[0]))] = part
            folded += 1
    return folded
