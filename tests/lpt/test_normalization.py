"""MVN, NormalizeL2 and Interpolate: which dequantizations move past them, and what stays."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.eltypes import ElementType, f16, f32, i64, u8
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline

SHAPE = (1, 2, 4, 4)


def _run(graph: Graph, name: str) -> None:
    run_pipeline(graph, config_from_dict({"transformations": {"only": [name]}}))


def _dequantized(graph: Graph, scale, *, shift=None, etype: ElementType = f32) -> tuple[Output, Output]:
    """(u8 data, Multiply(scale) of Convert(data) [- shift])."""
    data = graph.add_node("Parameter", outputs=[(u8, SHAPE)]).output()
    value = graph.add_node("Convert", [data], outputs=[(etype, SHAPE)], attrs={"destination_type": etype.name}).output()
    if shift is not None:
        const = graph.add_constant(shift, etype).output()
        value = graph.add_node("Subtract", [value, const], outputs=[(etype, SHAPE)]).output()
    const = graph.add_constant(np.asarray(scale, dtype=np.float32), etype).output()
    return data, graph.add_node("Multiply", [value, const], outputs=[(etype, SHAPE)]).output()


def _axes(graph: Graph, axes: list[int]) -> Output:
    return graph.add_constant(np.array(axes, np.int64), i64).output()


def _result(graph: Graph, node: Node) -> Node:
    return graph.add_node("Result", [node.output()])


def _mvn(graph: Graph, value: Output, axes: list[int], normalize_variance: bool) -> Node:
    attrs = {"normalize_variance": str(normalize_variance).lower(), "eps": "1e-09", "eps_mode": "inside_sqrt"}
    return graph.add_node("MVN", [value, _axes(graph, axes)], outputs=[(value.element_type, SHAPE)],
                          attrs=attrs, version="opset6")


# --- MVN ---------------------------------------------------------------------------------
@pytest.mark.parametrize("normalize_variance, scale, after", [
    (True, -0.5, [-1.0]),
    (True, 0.45, [1.0]),
    (False, 0.45, [0.45]),
])
def test_mvn_reads_integer_data_and_keeps_what_is_left_of_the_scale(normalize_variance, scale, after):
    graph = Graph()
    data, value = _dequantized(graph, scale)
    mvn = _mvn(graph, value, [1, 2, 3], normalize_variance)
    out = _result(graph, mvn)
    _run(graph, "MVNTransformation")
    multiply = out.input_node(0)
    assert multiply.type == "Multiply" and multiply.input_node(0) is mvn
    assert mvn.input_value(0) is data and mvn.output().element_type == f32
    assert multiply.input_node(1).value.reshape(-1).tolist() == pytest.approx(after)


def test_mvn_per_channel_scale_moves_when_channels_are_not_reduced():
    graph = Graph()
    _, value = _dequantized(graph, np.array([0.45, -0.45]).reshape(1, 2, 1, 1))
    mvn = _mvn(graph, value, [-2, -1], True)
    out = _result(graph, mvn)
    _run(graph, "MVNTransformation")
    assert out.input_node(0).input_node(1).value.reshape(-1).tolist() == [1.0, -1.0]


def test_mvn_per_channel_scale_stays_when_channels_are_reduced():
    graph = Graph()
    _, value = _dequantized(graph, np.array([0.45, 0.3]).reshape(1, 2, 1, 1))
    mvn = _mvn(graph, value, [1, 2, 3], False)
    _result(graph, mvn)
    _run(graph, "MVNTransformation")
    assert mvn.input_node(0).type == "Multiply"


def test_mvn_with_a_zero_point_stays():
    graph = Graph()
    _, value = _dequantized(graph, 0.45, shift=127.0)
    mvn = _mvn(graph, value, [1, 2, 3], True)
    _result(graph, mvn)
    _run(graph, "MVNTransformation")
    assert mvn.input_node(0).type == "Multiply"


# --- NormalizeL2 -----------------------------------------------------------------------
def _normalize(graph: Graph, value: Output, axes: list[int]) -> Node:
    return graph.add_node("NormalizeL2", [value, _axes(graph, axes)], outputs=[(value.element_type, SHAPE)],
                          attrs={"eps": "1e-06", "eps_mode": "add"})


def test_normalize_l2_keeps_the_sign_in_the_scale_type():
    graph = Graph()
    data, value = _dequantized(graph, -12.3, etype=f16)
    norm = _normalize(graph, value, [1])
    out = _result(graph, norm)
    _run(graph, "NormalizeL2Transformation")
    multiply = out.input_node(0)
    assert norm.input_value(0) is data and norm.output().element_type == f32
    sign = multiply.input_node(1)
    assert sign.data.element_type == f16 and sign.value.reshape(-1).tolist() == [-1.0]
    assert multiply.output().element_type == f16


@pytest.mark.parametrize("scale, axes", [
    (np.array([12.3, -12.3]).reshape(1, 2, 1, 1), [1]),  # scales differ
    (12.3, [2, 3]),  # axes LPT does not handle
])
def test_normalize_l2_leaves_unsupported_cases(scale, axes):
    graph = Graph()
    _, value = _dequantized(graph, scale)
    norm = _normalize(graph, value, axes)
    _result(graph, norm)
    _run(graph, "NormalizeL2Transformation")
    assert norm.input_node(0).type == "Multiply"


# --- Interpolate -------------------------------------------------------------------------
def _interpolate4(graph: Graph, value: Output, mode: str) -> Node:
    sizes = graph.add_constant(np.array([1, 2, 8, 8], np.int64), i64).output()
    scales = graph.add_constant(np.array([1, 1, 2, 2], np.float32), f32).output()
    attrs = {"mode": mode, "shape_calculation_mode": "sizes", "coordinate_transformation_mode": "half_pixel",
             "nearest_mode": "round_prefer_floor", "antialias": "false", "pads_begin": "0, 0, 0, 0",
             "pads_end": "0, 0, 0, 0", "cube_coeff": "-0.75"}
    return graph.add_node("Interpolate", [value, sizes, scales], outputs=[(value.element_type, (1, 2, 8, 8))],
                          attrs=attrs, version="opset4")


def test_nearest_interpolate_runs_on_integer_data():
    graph = Graph()
    data, value = _dequantized(graph, 0.1, shift=-0.32)
    interp = _interpolate4(graph, value, "nearest")
    out = _result(graph, interp)
    _run(graph, "InterpolateTransformation")
    assert interp.input_value(0) is data and interp.output().element_type == u8
    multiply = out.input_node(0)
    assert [multiply.type, multiply.input_node(0).type] == ["Multiply", "Subtract"]
    assert multiply.output().shape == (1, 2, 8, 8)


def test_linear_interpolate_stays():
    graph = Graph()
    _, value = _dequantized(graph, 0.1)
    interp = _interpolate4(graph, value, "linear_onnx")
    _result(graph, interp)
    _run(graph, "InterpolateTransformation")
    assert interp.input_node(0).type == "Multiply"


def test_interpolate1_over_the_channel_axis_stays():
    graph = Graph()
    _, value = _dequantized(graph, 0.1)
    target = graph.add_constant(np.array([4, 8, 8], np.int64), i64).output()
    interp = graph.add_node("Interpolate", [value, target], outputs=[(f32, (1, 4, 8, 8))], version="opset1",
                            attrs={"axes": "1, 2, 3", "mode": "nearest", "align_corners": "false",
                                   "antialias": "false", "pads_begin": "0", "pads_end": "0"})
    _result(graph, interp)
    _run(graph, "InterpolateTransformation")
    assert interp.input_node(0).type == "Multiply"
