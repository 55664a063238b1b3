"""AssignAndReadValueTransformation on tiny stateful graphs: what the reference cases cannot show
(a variable without an initial value, which nodes the pass offers to the step again)."""
from __future__ import annotations

import numpy as np

from lpt_cli.ir import Graph, Node
from lpt_cli.ir.eltypes import f32, u8
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult, run_pipeline

SHAPE = (1, 4)


def _stateful(initial: bool = True) -> Graph:
    """Assign(Multiply(Convert(q u8), 3)); ReadValue -> Add(x) -> Result."""
    graph = Graph()
    x = graph.add_node("Parameter", outputs=[(f32, SHAPE)], name="x")
    q = graph.add_node("Parameter", outputs=[(u8, SHAPE)], name="q")
    convert = graph.add_node("Convert", [q.output()], outputs=[(f32, SHAPE)], attrs={"destination_type": "f32"})
    scale = graph.add_constant(np.float32(3.0), f32)
    multiply = graph.add_node("Multiply", [convert.output(), scale.output()], outputs=[(f32, SHAPE)], name="deq")
    inputs = [graph.add_constant(np.zeros(SHAPE, np.float32), f32).output()] if initial else []
    read = graph.add_node("ReadValue", inputs, outputs=[(f32, SHAPE)], version="opset6", name="read",
                          attrs={"variable_id": "s", "variable_type": "f32", "variable_shape": "1,4"})
    graph.add_node("Assign", [multiply.output()], outputs=[(f32, SHAPE)], version="opset6", name="assign",
                   attrs={"variable_id": "s"})
    total = graph.add_node("Add", [read.output(), x.output()], outputs=[(f32, SHAPE)], name="sum")
    graph.add_node("Result", [total.output()])
    return graph


def _run(graph: Graph, *names: str) -> PipelineResult:
    return run_pipeline(graph, config_from_dict({"transformations": {"only": list(names)}}))


def _assign(graph: Graph) -> Node:
    return graph.find("assign")


def test_the_state_stores_the_integers_and_the_read_is_dequantized():
    graph = _stateful()
    _run(graph, "AssignAndReadValueTransformation")
    assert _assign(graph).input_node(0).name == "q"
    read = graph.read_value_of(_assign(graph))
    assert read is not None and read.output().element_type == u8 and read.attrs["variable_type"] == "u8"
    multiply = graph.find("sum").input_node(0)
    assert multiply.type == "Multiply" and multiply.input_node(0).type == "Convert"
    assert multiply.input_node(0).input_node(0) is read


def test_a_variable_without_initial_value_is_left_alone_with_a_reason():
    graph = _stateful(initial=False)
    result = _run(graph, "AssignAndReadValueTransformation")
    assert _assign(graph).input_node(0).name == "deq"
    codes = [d.code for d in result.decisions[_assign(graph).id]]
    assert codes == ["no_initial_value"]


def test_only_the_fused_fake_quantize_is_offered_to_the_step_again():
    # OpenVINO registers nothing else it builds: the Multiply after the read is not visited by
    # MultiplyPartialTransformation in that step (it would record a decision if it were).
    graph = _stateful()
    result = _run(graph, "AssignAndReadValueTransformation", "MultiplyPartialTransformation")
    multiply = graph.find("sum").input_node(0)
    assert multiply.id not in result.decisions and multiply.id not in result.matched
