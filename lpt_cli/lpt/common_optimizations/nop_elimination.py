"""EliminateEltwise (NopElimination, in the MOC part of CommonOptimizations before LPT).

`x + 0`, `x - 0`, `x * 1` and `x / 1` leave the graph when the constant broadcasts no dimension
of x. Such ops appear where a layout rounds constants: densenet121's BatchNorm scale
1/sqrt(1 + 1e-5) is exactly 1.0 in the legacy f16 layout. With the Multiply gone the plugin's
LPT sees `Concat -> Relu -> FakeQuantize` and moves the FakeQuantize above the Concat; with the
Multiply kept, lpt did not (7.3e-3 of max). A dequantization (`Convert(integer) -> [Subtract]
-> Multiply`, also the `Multiply(1.0)` of lpt's own runtime dialect) is never eliminated, as in
OpenVINO's can_eliminate_eltwise_node (transformations/utils/utils.cpp).

EliminateSqueeze and EliminateUnsqueeze (the same NopElimination) turn a Squeeze or an Unsqueeze
whose output rank is known, not 0, with at most one dynamic dimension into a Reshape to that shape
(a Reshape, Squeeze or Unsqueeze before it taken in; none at all when the shape does not change).
LPT moves a dequantization through a Reshape by other rules than through an Unsqueeze.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ..surgery.constants import remove_unused, replace_output

_RESHAPES = ("Reshape", "Squeeze", "Unsqueeze")

_NEUTRAL = {"Add": 0.0, "Subtract": 0.0, "Multiply": 1.0, "Divide": 1.0}
_COMMUTATIVE = ("Add", "Multiply")


def _is_dequantization(node: Node) -> bool:
    """Multiply(Convert(integer -> real) [- anything], ...), OpenVINO's is_dequantization_subgraph."""
    if node.type != "Multiply":
        return False
    parent = node.input_node(0)
    if parent.type == "Subtract":
        parent = parent.input_node(0)
    return (parent.type == "Convert" and not parent.input_value(0).element_type.is_real
            and parent.output().element_type.is_real)


def _neutral_constant(op_type: str, constant: Node) -> bool:
    """`constant` is a Constant whose elements all equal `op_type`'s neutral value."""
    if constant.type != "Constant" or constant.output().element_type.name not in (
            "f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16"):
        return False
    values = np.asarray(constant.value).reshape(-1)
    return values.size > 0 and bool(np.all(values.astype(np.float32) == np.float32(_NEUTRAL[op_type])))


def _broadcasts_nothing(constant: Output, data: Output) -> bool:
    """The constant changes no dimension of `data` (a scalar never does)."""
    shape = tuple(constant.shape or ())
    if not shape:
        return True
    if data.shape is None or len(data.shape) < len(shape):
        return False
    return all(c == 1 or d == c for c, d in zip(reversed(shape), reversed(data.shape)))


def neutral_operand(op_type: str, operand: Output, data: Output) -> bool:
    """`data op operand` has `data`'s values and shape: a neutral Constant that broadcasts no dimension."""
    return _neutral_constant(op_type, operand.node) and _broadcasts_nothing(operand, data)


def _eliminable(node: Node) -> Output | None:
    """The input that replaces `node`, when `node` is a neutral eltwise."""
    if node.type not in _NEUTRAL or len(node.inputs) != 2 or _is_dequantization(node):
        return None
    for index in ((1, 0) if node.type in _COMMUTATIVE else (1,)):
        data = node.inputs[1 - index].source
        if neutral_operand(node.type, node.inputs[index].source, data) \
                and data.element_type == node.output().element_type:
            return data
    return None


def _bypass(node: Node, data: Output) -> None:
    """replace_output_update_name: `data` takes `node`'s consumers (and its name before a Result)."""
    graph, out = node.graph, node.output()
    names, out.names = out.names, None
    feeds_result = any(use.node.type == "Result" for use in out.uses)
    out.replace_all_uses_with(data)
    data.names = data.names or names
    name = node.name
    remove_unused(node)
    if feeds_result and data.node.type not in ("Parameter", "Constant"):
        graph.rename(data.node, name)


def eliminate_eltwise(graph: Graph) -> int:
    """Removes every neutral Add/Subtract/Multiply/Divide; returns how many."""
    removed = 0
    for node in list(graph.topological_order()):
        if not node.alive:
            continue
        data = _eliminable(node)
        if data is not None:
            _bypass(node, data)
            removed += 1
    return removed


def squeezes_to_reshapes(graph: Graph) -> int:
    """Every opset-1 Squeeze/Unsqueeze of a known output shape with at most one dynamic dimension
    becomes a Reshape (or leaves); returns how many."""
    replaced = 0
    for node in list(graph.topological_order()):
        shape = node.output().shape if node.outputs else None
        if not node.alive or node.type not in ("Squeeze", "Unsqueeze") or node.version != "opset1" \
                or not shape or sum(d < 0 for d in shape) > 1:
            continue
        producer = node.input_node(0)
        data = producer.input_value(0) if producer.type in _RESHAPES else node.input_value(0)
        if data.shape == shape:
            _bypass(node, data)
        else:
            target = graph.add_constant(np.array(shape, np.int64)).output()
            reshape = graph.add_node("Reshape", [data, target], outputs=[(node.output().element_type, shape)],
                                     attrs={"special_zero": "false"})
            replace_output(node, reshape.output())
        replaced += 1
    return replaced
