"""Tiny graphs around a FakeQuantize, built with the graph API, for the LPT core tests."""
from __future__ import annotations

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.eltypes import f32

SHAPE = (1, 3, 4, 4)


def parameter(graph: Graph, shape=SHAPE) -> Output:
    return graph.add_node("Parameter", outputs=[(f32, shape)]).output()


def fake_quantize(graph: Graph, data: Output, low: float, high: float, levels: int = 256,
                  out_low: float | None = None, out_high: float | None = None) -> Node:
    bounds = [low, high, low if out_low is None else out_low, high if out_high is None else out_high]
    consts = [graph.add_constant(v, f32).output() for v in bounds]
    return graph.add_node("FakeQuantize", [data, *consts], outputs=[(f32, data.shape)],
                          attrs={"levels": str(levels), "auto_broadcast": "numpy"})


def unary(graph: Graph, op: str, data: Output, **attrs: str) -> Node:
    return graph.add_node(op, [data], outputs=[(data.element_type, data.shape)], attrs=attrs)


def result(graph: Graph, data: Output) -> Node:
    return graph.add_node("Result", [data])
