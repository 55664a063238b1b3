"""LinOpSequenceFusion: folds chains of Add/Multiply by constants into one op each.

Three rewrites, tried in OpenVINO's order: Multiply(Add(x, a), m) -> Add(Multiply(x, m), a*m),
Add(Add(x, a), b) -> Add(x, a+b), Multiply(Multiply(x, m), n) -> Multiply(x, m*n). The inner op
must have no other consumer. The plugin runs it twice: in CommonOptimizations, after the
decompositions (a BatchNorm's `((x - mean) * scale) + beta` becomes `x * scale + shift`, which
the FakeQuantize fusions then see), and as one of LPT's prerequisites, where it merges e.g. two
scales of dequantized weights.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.eltypes import ElementType
from ...ir.shapes import broadcast_shapes
from ..surgery.constants import cast, remove_unused


def _split_constant(node: Node) -> tuple[Output, Node] | None:
    """(other input, Constant input) of a binary op with a Constant operand."""
    for index in (1, 0):
        if node.input_node(index).type == "Constant":
            return node.input_value(1 - index), node.input_node(index)
    return None


def _inner(node: Node, op_type: str) -> tuple[Node, Output, Node, Node] | None:
    """(inner op, its data, its constant, outer constant) for outer(inner(data, c1), c2)."""
    if len(node.inputs) != 2:
        return None
    outer = _split_constant(node)
    if outer is None:
        return None
    value, outer_constant = outer
    inner = value.node
    if inner.type != op_type or len(inner.inputs) != 2 or len(value.uses) != 1:
        return None
    found = _split_constant(inner)
    if found is None:
        return None
    return inner, found[0], found[1], outer_constant


def fuse_lin_op_sequence(graph: Graph, node: Node) -> bool:
    """Rewrites the chain ending at `node` (an Add or a Multiply); True when it did."""
    if node.type == "Add":
        return _merge_constants(graph, node)
    return node.type == "Multiply" and (_add_multiply(graph, node) or _merge_constants(graph, node))


def fuse_lin_op_sequences(graph: Graph) -> int:
    """LinOpSequenceFusion over the whole graph, the ops it creates tried again; returns how many."""
    fused = 0
    queue = deque(graph.topological_order())
    while queue:
        node = queue.popleft()
        first_new = graph.next_id
        if node.alive and fuse_lin_op_sequence(graph, node):
            fused += 1
            queue.extendleft(n for n in list(graph.nodes.values()) if n.id >= first_new)
    return fused


def _fold(graph: Graph, op: str, left: Node, right: Node) -> Output:
    function = np.multiply if op == "Multiply" else np.add
    etype = left.output().element_type
    value = function(left.value.astype(np.float64), right.value.astype(np.float64))
    return graph.add_constant(cast(value, etype), etype).output()


def _binary(graph: Graph, op: str, data: Output, constant: Output, etype: ElementType) -> Node:
    shape = broadcast_shapes(data.shape, constant.shape)
    return graph.add_node(op, [data, constant], outputs=[(etype, shape)])


def _replace(old: Node, new: Node) -> bool:
    old.output().replace_all_uses_with(new.output())
    remove_unused(old)
    return True


def _add_multiply(graph: Graph, node: Node) -> bool:
    found = _inner(node, "Add")
    if found is None:
        return False
    _, data, add_constant, mul_constant = found
    etype = mul_constant.output().element_type
    if data.element_type != etype or add_constant.output().element_type != etype:
        return False
    new_mul = _binary(graph, "Multiply", data, mul_constant.output(), node.output().element_type)
    shift = _fold(graph, "Multiply", add_constant, mul_constant)
    return _replace(node, _binary(graph, "Add", new_mul.output(), shift, node.output().element_type))


def _merge_constants(graph: Graph, node: Node) -> bool:
    """op(op(x, c1), c2) -> op(x, c1 op c2), for op = Add or Multiply (`node`'s type)."""
    found = _inner(node, node.type)
    if found is None:
        return False
    _, data, first, second = found
    merged = _fold(graph, node.type, first, second)
    return _replace(node, _binary(graph, node.type, data, merged, node.output().element_type))
