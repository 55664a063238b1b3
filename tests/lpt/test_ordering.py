"""OpenVINO's node order: the last Result's subgraph first, input 0 before input 1."""
from __future__ import annotations

from lpt_cli.ir import Graph, Node
from lpt_cli.ir.eltypes import f32
from lpt_cli.lpt.engine.ordering import ordered_ops

from .fq_graphs import SHAPE, parameter, result, unary


def test_last_result_subgraph_comes_first():
    graph = Graph()
    a, b = parameter(graph), parameter(graph)
    relu_a = unary(graph, "Relu", a)
    relu_b = unary(graph, "Relu", b)
    result(graph, relu_a.output())
    result(graph, relu_b.output())
    names = [n.name for n in ordered_ops(graph)]
    assert names.index(relu_b.name) < names.index(relu_a.name)


def test_producers_precede_consumers_and_input_zero_goes_first():
    graph = Graph()
    a, b = parameter(graph), parameter(graph)
    left, right = unary(graph, "Relu", a), unary(graph, "Relu", b)
    concat = graph.add_node("Concat", [left.output(), right.output()], outputs=[(f32, (1, 6, 4, 4))],
                            attrs={"axis": "1"})
    result(graph, concat.output())
    order = ordered_ops(graph)
    position = {n.id: i for i, n in enumerate(order)}
    assert position[left.id] < position[right.id] < position[concat.id]
    assert len(order) == len(graph)


def _stateful(graph: Graph) -> tuple[Node, Node, Node]:
    """x -> Relu -> Assign(s); ReadValue(s) -> Relu -> Result: (read_value, assign, relu after the read)."""
    x = parameter(graph)
    stored = unary(graph, "Relu", x)
    initial = graph.add_constant(0.0, f32)
    read = graph.add_node("ReadValue", [initial.output()], outputs=[(f32, SHAPE)], version="opset6",
                          attrs={"variable_id": "s", "variable_type": "f32", "variable_shape": "1,3,4,4"})
    assign = graph.add_node("Assign", [stored.output()], outputs=[(f32, SHAPE)], version="opset6",
                            attrs={"variable_id": "s"})
    after = unary(graph, "Relu", read.output())
    result(graph, after.output())
    return read, assign, after


def test_an_assign_is_a_root_and_comes_after_the_read_value_of_its_variable():
    # OpenVINO: sinks are roots; the IR reader gives an Assign a control dependency on its
    # ReadValue, which topological_sort visits before the Assign's inputs.
    graph = Graph()
    read, assign, after = _stateful(graph)
    position = {n.id: i for i, n in enumerate(ordered_ops(graph))}
    assert position[read.id] < position[assign.input_node(0).id] < position[assign.id] < position[after.id]
    assert graph.read_value_of(assign) is read
