"""Moving a dequantization across an operation, the step every LPT transformation shares.

`move_dequantization_after(op, dq)` turns `dq(x) -> op` into `op(x) -> dq'`: the op reads
the low-precision data and the Convert/Subtract/Multiply are rebuilt behind it. The op is
rewired in place (it keeps its name and attributes); constant shapes are not changed here:
a transformation that moves or resizes the channel axis rewrites the constants first.
"""
from __future__ import annotations

from collections.abc import Iterable

from ...ir import Graph, Input, Node, Output
from ...ir.shapes import broadcast_shapes
from ...ir.eltypes import ElementType
from ...ir.legalize import MAT_MUL_ZERO_POINT, MatMulZeroPoint
from ...ir.op_facts import Fact, ops_with
from ..dequantization.chain import Dequantization, get_dequantization
from .constants import fold_convert, remove_unused

# Ops OpenVINO wraps as TypeRelaxed: their output type may differ from their input type.
TYPE_RELAXED = ops_with(Fact.TYPE_RELAXED)


def _clone_constant_side(graph: Graph, value: Output) -> Output:
    """A private copy of a dequantization constant (or Convert(Constant))."""
    node = value.node
    if node.type == "Constant":
        return graph.add_constant(node.value, node.constant_data.element_type).output()
    if node.type == "Convert":
        inner = _clone_constant_side(graph, node.input_value(0))
        return graph.add_node("Convert", [inner], outputs=[(value.element_type, value.shape)],
                              attrs=dict(node.attrs)).output()
    return value


def _clone_binary(graph: Graph, node: Node, data: Output, data_index: int) -> Node:
    """A copy of a dequantization Subtract/Multiply on `data`, with a private constant; a MatMul's
    `z @ B` Subtract stays one for the runtime dialect (which moves z before the MatMul, and must
    then take every copy of `z @ B` away with it)."""
    constant_index = 1 - data_index
    other = _clone_constant_side(graph, node.input_value(constant_index))
    inputs = [data, other] if data_index == 0 else [other, data]
    out = node.output()
    clone = graph.add_node(node.type, inputs, outputs=[(out.element_type, out.shape)],
                           attrs=dict(node.attrs), version=node.version)
    record: MatMulZeroPoint | None = node.annotations.get(MAT_MUL_ZERO_POINT)
    if record is not None and other.node.type == "Constant":
        clone.annotations[MAT_MUL_ZERO_POINT] = MatMulZeroPoint(record.zero_point, other.node.constant_data)
    return clone


def separate_in_standalone_branch(node: Node, default_precisions: Iterable[ElementType]) -> list[Output]:
    """Gives `node` a private copy of every shared dequantization chain on its inputs.

    Returns what the replaced original still reads: OpenVINO separates by making a new node and
    replacing the old one, which the running transformation keeps alive (it holds the matched
    root) with its input edges in place. Until that transformation returns, each of those
    producers counts one consumer more (getNotEmpty's consumer checks see it). Empty when
    nothing was separated (the node is not replaced)."""
    graph = node.graph
    precisions = tuple(default_precisions)
    original_sources = [slot.source for slot in node.inputs]
    separated = False
    for slot in node.inputs:
        dq = get_dequantization(node, precisions, slot.index)
        if dq.empty or not dq.is_shared() or dq.data is None:
            continue
        parent = dq.data
        if dq.convert is not None:
            out = dq.convert.output()
            parent = graph.add_node("Convert", [parent], outputs=[(out.element_type, out.shape)],
                                    attrs=dict(dq.convert.attrs)).output()
        for op in (dq.subtract, dq.multiply):
            if op is None:
                continue
            data_index = _data_index(op, dq)
            parent = _clone_binary(graph, op, parent, data_index).output()
        old = slot.source
        slot.set_source(parent)
        remove_unused(old.node)
        separated = True
    return original_sources if separated else []


def redirect_consumers(uses: Iterable[Input], dequantized: Output, raw: Output) -> None:
    """Points `uses` at `dequantized`, except a ShapeOf, which keeps reading `raw` (the op's
    own output): the shape is the same, and OpenVINO leaves shape subgraphs on the raw value."""
    for use in uses:
        use.set_source(raw if use.node.type == "ShapeOf" else dequantized)


def _data_index(op: Node, dq: Dequantization) -> int:
    """Which input of a chain op carries the data (the other carries the constant)."""
    chain = {id(n) for n in (dq.convert, dq.subtract) if n is not None}
    for index, value in enumerate(op.input_values()):
        if id(value.node) in chain or value is dq.data:
            return index
    constant_nodes = {id(n) for n in (dq.subtract_constant, dq.subtract_convert, dq.multiply_constant) if n}
    return 1 if id(op.input_node(0)) in constant_nodes else 0


def move_dequantization_after(op: Node, dq: Dequantization, *, update_output_precision: bool = True,
                              move_subtract: bool = True) -> Node:
    """Rewires `op` to read `dq.data` and rebuilds the dequantization behind it; returns the
    last new dequantization node (which now feeds `op`'s former consumers)."""
    graph = op.graph
    last = dq.last
    assert last is not None and dq.data is not None
    new_input = dq.subtract.output() if not move_subtract and dq.subtract is not None else dq.data
    for slot in op.inputs:
        if slot.source is last.output():
            slot.set_source(new_input)
    out = op.output()
    original_consumers = out.consumers()
    original_type = dq.multiply.output().element_type if dq.multiply else last.output().element_type
    deq_type = dq.multiply_constant.output().element_type if dq.multiply_constant else original_type
    if update_output_precision:
        out.element_type = op.input_value(0).element_type
    elif op.type in TYPE_RELAXED:
        out.element_type = deq_type
    parent = out
    if parent.element_type != deq_type:
        target = dq.convert.output().element_type if dq.convert is not None else deq_type
        parent = graph.add_node("Convert", [parent], outputs=[(target, out.shape)],
                                attrs={"destination_type": target.name}).output()
    if move_subtract and dq.subtract_constant is not None:  # (set together with dq.subtract)
        zero_point = (dq.subtract_convert.output() if dq.subtract_convert is not None
                      else fold_convert(graph, dq.subtract_constant.output(), parent.element_type))
        shape = broadcast_shapes(parent.shape, zero_point.shape)
        parent = graph.add_node("Subtract", [parent, zero_point], outputs=[(parent.element_type, shape)]).output()
    if dq.multiply_constant is not None:  # (set together with dq.multiply)
        scale = fold_convert(graph, dq.multiply_constant.output(), parent.element_type)
        shape = broadcast_shapes(parent.shape, scale.shape)
        parent = graph.add_node("Multiply", [parent, scale], outputs=[(original_type, shape)]).output()
    redirect_consumers(original_consumers, parent, out)
    rename_for_result(op, parent.node)
    remove_unused(last)
    return parent.node


def rename_for_result(op: Node, last: Node) -> None:
    """A model output keeps its name: the dequantization takes it, the op gets `_original`."""
    if any(u.node.type == "Result" for u in last.output().uses):
        graph = op.graph
        name = op.name
        graph.rename(op, graph.unique_name(f"{name}_original"))
        graph.rename(last, name)
