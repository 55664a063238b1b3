"""OpenVINO's node order: the last Result's subgraph first, input 0 before input 1."""
from __future__ import annotations

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32
from lpt_cli.lpt.engine.ordering import ordered_ops

from .fq_graphs import parameter, result, unary


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
