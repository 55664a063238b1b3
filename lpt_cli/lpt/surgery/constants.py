"""Constant arithmetic over the graph: make, convert and fold Constants with numpy.

Transformations constantly need "this constant, converted to that type, as a scalar if it
is one value": these helpers do it without creating a node that folding would remove again.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.eltypes import ElementType, element_type


def is_scalar_like(value: np.ndarray) -> bool:
    """One element, or all elements equal."""
    flat = np.asarray(value).reshape(-1)
    return flat.size <= 1 or bool(np.all(flat == flat[0]))


def to_scalar_if_possible(value: np.ndarray) -> np.ndarray:
    return np.asarray(value).reshape(-1)[:1].reshape(()) if is_scalar_like(value) and np.size(value) else value


def round_half_away(value: np.ndarray | float) -> np.ndarray:
    """C's round (NetworkHelper::round): ties go away from zero, where numpy's round goes to even."""
    array = np.asarray(value, dtype=np.float64)
    return np.sign(array) * np.floor(np.abs(array) + 0.5)


def cast(value: np.ndarray, etype: ElementType) -> np.ndarray:
    """numpy cast with OpenVINO's Convert semantics (float -> integer rounds to nearest even, saturates)."""
    array = np.asarray(value)
    if etype.is_real or etype.dtype is None:
        return array.astype(np.float32 if etype.dtype is None or etype.name == "bf16" else etype.dtype)
    if array.dtype.kind == "f":
        low, high = etype.range()
        array = np.clip(np.round(array), low, high)
    return array.astype(etype.dtype)


def constant(graph: Graph, value: np.ndarray | float, etype: ElementType | str, *, scalar: bool = False) -> Output:
    """A new Constant of `etype` holding `value` (collapsed to a scalar when asked and possible)."""
    et = element_type(etype)
    array = np.asarray(value)
    if scalar:
        array = to_scalar_if_possible(array)
    return graph.add_constant(cast(array, et), et).output()


def value_of(output: Output) -> np.ndarray | None:
    """The value of a Constant output, or of Convert(Constant), else None."""
    node = output.node
    if node.type == "Constant":
        return node.value
    if node.type == "Convert" and node.input_node(0).type == "Constant":
        return cast(node.input_node(0).value, output.element_type)
    return None


def fold_convert(graph: Graph, value: Output, etype: ElementType) -> Output:
    """`value` as `etype`: the same output if it already is, a new Constant if it is constant,
    else a Convert node."""
    if value.element_type == etype:
        return value
    if value.node.type == "Constant":
        return constant(graph, value.node.value, etype)
    shape = value.shape
    return graph.add_node("Convert", [value], outputs=[(etype, shape)],
                          attrs={"destination_type": etype.name}).output()


_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add,
    "Subtract": np.subtract,
    "Multiply": np.multiply,
    "Divide": np.divide,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
}


def evaluate(node: Node, inputs: list[np.ndarray]) -> np.ndarray | None:
    """numpy value of `node` for constant `inputs`, or None for an op lpt does not fold."""
    out_type = node.output().element_type if node.outputs else None
    if out_type is None or len(node.outputs) != 1:
        return None
    if node.type in _BINARY and len(inputs) == 2:
        a = inputs[0].astype(np.float64) if out_type.is_real else inputs[0]
        b = inputs[1].astype(np.float64) if out_type.is_real else inputs[1]
        return cast(_BINARY[node.type](a, b), out_type)
    if node.type == "Convert":
        return cast(inputs[0], out_type)
    if node.type in ("Reshape", "Squeeze", "Unsqueeze") and node.output().is_static:
        return np.reshape(inputs[0], node.output().dims)
    if node.type == "Transpose":
        return np.transpose(inputs[0], inputs[1].astype(np.int64).tolist() or None)
    if node.type == "Concat":
        axis = node.attr_int("axis", 0)
        return np.concatenate(inputs, axis=axis).astype(out_type.dtype)
    if node.type == "Negative":
        return cast(-inputs[0], out_type)
    if node.type == "Identity":  # ONNX's Identity on a constant path (a QDQ model's shared bias)
        return cast(inputs[0], out_type)
    if node.type == "Floor":
        return cast(np.floor(inputs[0]), out_type)
    if node.type == "Range" and all(np.size(v) == 1 for v in inputs):  # ONNX GlobalAveragePool's axes
        start, stop, step = (np.asarray(v).reshape(-1)[0] for v in inputs)
        return cast(np.arange(start, stop, step), out_type) if step else None
    return None


DISABLE_CONSTANT_FOLDING = "DisableConstantFolding"  # node annotation: ov::disable_constant_folding


def _keeps_decompression(node: Node) -> bool:
    """A Convert of a low-precision or f16 constant is compressed weights / a zero point that
    OpenVINO marks to keep (disable_constant_folding); folding it would undo quantization.
    Nodes a transformation marked (a weights zero point Subtract) are kept too."""
    if node.annotations.get(DISABLE_CONSTANT_FOLDING):
        return True
    if node.type != "Convert":
        return False
    source = node.input_value(0).element_type
    return not source.is_real or source.name == "f16"


def fold_constant_subgraphs(graph: Graph) -> int:
    """Replaces every foldable node whose inputs are all Constants by a Constant."""
    folded = 0
    for node in graph.topological_order():
        if not node.alive or not node.inputs or node.type == "Result":
            continue
        if any(slot.source.node.type != "Constant" for slot in node.inputs):
            continue
        if _keeps_decompression(node):
            continue
        value = evaluate(node, [slot.source.node.value for slot in node.inputs])
        if value is None:
            continue
        replacement = graph.add_constant(value, node.output().element_type)
        node.output().replace_all_uses_with(replacement.output())
        remove_unused(node)
        folded += 1
    return folded


def replace_output(node: Node, value: Output) -> None:
    """`value` takes `node`'s consumers, tensor names and friendly name; `node` and what only fed
    it go (ov::replace_node with the friendly name copied, as the decompositions do)."""
    out, name = node.output(), node.name
    names, out.names = out.names, None
    out.replace_all_uses_with(value)
    value.names = names
    remove_unused(node)
    node.graph.rename(value.node, name)


def remove_unused(node: Node) -> None:
    """Deletes `node` if nothing consumes it, then its producers that became unused."""
    stack = [node]
    while stack:
        current = stack.pop()
        if not current.alive or not current.outputs or current.type in ("Parameter", "Result"):
            continue
        if any(out.uses for out in current.outputs):
            continue
        producers = [slot.source.node for slot in current.inputs]
        current.graph.remove(current)
        stack.extend(producers)
