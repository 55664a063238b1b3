"""Convolution, GroupConvolution, ConvolutionBackpropData and MatMul on tiny graphs, plus the
dequantization rewrites they share (optimizeSubtract, optimizeMultipliesAfter)."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.constant import ConstantData
from lpt_cli.ir.eltypes import ElementType, f32, i8, u8
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.surgery.rewrites import optimize_multiplies_after, optimize_subtract
from lpt_cli.lpt.engine.transformation import Context
from lpt_cli.lpt.transformations.weightable.convolution import ConvolutionTransformation
from lpt_cli.lpt.transformations.weightable.convolution_backprop_data import ConvolutionBackpropDataTransformation
from lpt_cli.lpt.transformations.weightable.group_convolution import GroupConvolutionTransformation
from lpt_cli.lpt.transformations.weightable import in_order_dot
from lpt_cli.lpt.transformations.weightable.mat_mul import MatMulTransformation
from lpt_cli.lpt.transformations.weightable.weightable_layer import is_asymmetric_on_weights

from .test_in_order_dot import summed_row_after_row

CONV_ATTRS = {"strides": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0", "dilations": "1, 1",
              "auto_pad": "explicit"}


def binary(graph: Graph, op: str, a: Output, b: Output, etype: ElementType = f32) -> Node:
    return graph.add_node(op, [a, b], outputs=[(etype, a.shape)])


def dequantized_input(graph: Graph, shape: tuple[int, ...], zero_point: float | None,
                      scale: np.ndarray | float) -> Output:
    """u8 Parameter -> Convert(f32) -> [Subtract zero_point] -> Multiply scale."""
    data = graph.add_node("Parameter", outputs=[(u8, shape)], name="input").output()
    value = graph.add_node("Convert", [data], outputs=[(f32, shape)], attrs={"destination_type": "f32"}).output()
    if zero_point is not None:
        value = binary(graph, "Subtract", value, graph.add_constant(zero_point, f32).output()).output()
    return binary(graph, "Multiply", value, graph.add_constant(np.asarray(scale, np.float32), f32).output()).output()


def weights_fake_quantize(graph: Graph, shape: tuple[int, ...], value: float = 2.0) -> Output:
    """f32 weights `value` under FQ 255 levels [0, 254] -> [-1.27, 1.27] (i8 level value - 127)."""
    weights = graph.add_constant(np.full(shape, value, np.float32), f32).output()
    bounds = [graph.add_constant(np.full((1, 1, 1, 1), v, np.float32), f32).output()
              for v in (0.0, 254.0, -1.27, 1.27)]
    return graph.add_node("FakeQuantize", [weights, *bounds], outputs=[(f32, shape)],
                          attrs={"levels": "255", "auto_broadcast": "numpy"}).output()


def compressed_weights(graph: Graph, shape: tuple[int, ...], value: int, zero_point: int | None,
                       scale: float) -> Output:
    """NNCF's i8 Constant -> Convert -> [Subtract(i8 zp -> Convert)] -> Multiply."""
    weights = graph.add_constant(np.full(shape, value, np.int8), i8).output()
    out = graph.add_node("Convert", [weights], outputs=[(f32, shape)], attrs={"destination_type": "f32"}).output()
    if zero_point is not None:
        zp = graph.add_constant(np.int8(zero_point), i8).output()
        zp = graph.add_node("Convert", [zp], outputs=[(f32, ())], attrs={"destination_type": "f32"}).output()
        out = binary(graph, "Subtract", out, zp).output()
    return binary(graph, "Multiply", out, graph.add_constant(np.float32(scale), f32).output()).output()


def layer(graph: Graph, op: str, data: Output, weights: Output, out_shape: tuple[int, ...]) -> Node:
    node = graph.add_node(op, [data, weights], outputs=[(f32, out_shape)], attrs=dict(CONV_ATTRS), name="layer")
    graph.add_node("Result", [node.output()])
    return node


def run(cls, graph: Graph, node: Node, **config) -> bool:
    return cls(Context(graph, config_from_dict(config))).transform(node)


def result_source(graph: Graph) -> Node:
    return graph.results[0].input_node(0)


def test_convolution_moves_scales_after_and_keeps_zero_point_on_u8():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), 128.0, 0.02)
    conv = layer(graph, "Convolution", data, weights_fake_quantize(graph, (6, 3, 1, 1)), (1, 6, 8, 8))

    assert run(ConvolutionTransformation, graph, conv) is True

    multiply = result_source(graph)
    assert multiply.type == "Multiply" and multiply.input_node(0) is conv
    assert multiply.input_node(1).value == pytest.approx(0.0002)
    assert conv.output().element_type == f32
    subtract = conv.input_node(0)
    assert subtract.type == "Subtract" and subtract.input_node(0).type == "Parameter"
    assert subtract.input_value(1).element_type == u8
    assert subtract.input_node(1).value.shape == (1, 3, 1, 1)
    weights = conv.input_node(1)
    assert weights.type == "Constant" and weights.output().element_type == i8
    assert np.all(weights.value == -125)


def test_convolution_with_per_channel_activation_scales_only_folds_weights():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), None, np.array([0.02, 0.01, 0.03]).reshape(1, 3, 1, 1))
    conv = layer(graph, "Convolution", data, weights_fake_quantize(graph, (6, 3, 1, 1)), (1, 6, 8, 8))

    assert run(ConvolutionTransformation, graph, conv) is True

    assert result_source(graph) is conv and conv.input_node(0).type == "Multiply"
    weights = conv.input_node(1)
    assert weights.type == "Constant" and weights.output().element_type == f32
    assert np.allclose(weights.value, -1.25)


def test_convolution_left_alone_when_asymmetric_activations_are_not_supported():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), 128.0, 0.02)
    conv = layer(graph, "Convolution", data, weights_fake_quantize(graph, (6, 3, 1, 1)), (1, 6, 8, 8))

    assert run(ConvolutionTransformation, graph, conv, asymmetric_quantization=False) is False

    assert conv.input_node(0).type == "Multiply" and conv.input_node(1).type == "FakeQuantize"


def test_compressed_weights_zero_point_stays_on_i8_weights_per_output_channel():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), None, 0.02)
    conv = layer(graph, "Convolution", data, compressed_weights(graph, (6, 3, 1, 1), 2, 127, 0.03), (1, 6, 8, 8))

    assert run(ConvolutionTransformation, graph, conv) is True

    subtract = conv.input_node(1)
    assert subtract.type == "Subtract" and subtract.output().element_type == f32
    assert subtract.input_value(0).element_type == i8 and subtract.input_value(1).element_type == i8
    assert subtract.input_node(1).value.shape == (6, 1, 1, 1)
    assert subtract.annotations.get("DisableConstantFolding") is True
    assert result_source(graph).input_node(1).value == pytest.approx(0.0006)


@pytest.mark.parametrize(("zero_point", "expected"), [(127, True), (None, False)])
def test_is_asymmetric_on_weights(zero_point, expected):
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), None, 0.02)
    weights = compressed_weights(graph, (6, 3, 1, 1), 2, zero_point, 0.03)
    conv = layer(graph, "Convolution", data, weights, (1, 6, 8, 8))

    assert is_asymmetric_on_weights(conv, (u8, i8)) is expected


def test_asymmetric_weights_callback_skips_the_layer():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8, 8), None, 0.02)
    conv = layer(graph, "Convolution", data, compressed_weights(graph, (6, 3, 1, 1), 2, 127, 0.03), (1, 6, 8, 8))

    assert run(ConvolutionTransformation, graph, conv, asymmetric_weights=False) is False
    assert conv.input_node(0).type == "Multiply" and conv.input_node(1).type == "Multiply"


def test_group_convolution_expands_group_scales_to_output_channels():
    graph = Graph()
    scales = np.array([0.02, 0.02, 0.04, 0.04, 0.08, 0.08], np.float32).reshape(1, 6, 1, 1)
    data = dequantized_input(graph, (1, 6, 8, 8), None, scales)
    weights = compressed_weights(graph, (3, 4, 2, 1, 1), 2, None, 0.5)
    conv = layer(graph, "GroupConvolution", data, weights, (1, 12, 8, 8))

    assert run(GroupConvolutionTransformation, graph, conv) is True

    after = result_source(graph).input_node(1).value.reshape(-1)
    assert np.allclose(after, np.repeat([0.01, 0.02, 0.04], 4))
    assert conv.input_node(0).type == "Parameter" and conv.input_value(1).element_type == i8


def test_group_convolution_rejects_scales_that_differ_inside_a_group():
    graph = Graph()
    scales = np.array([0.02, 0.03, 0.04, 0.04, 0.08, 0.08], np.float32).reshape(1, 6, 1, 1)
    data = dequantized_input(graph, (1, 6, 8, 8), None, scales)
    conv = layer(graph, "GroupConvolution", data, compressed_weights(graph, (3, 4, 2, 1, 1), 2, None, 0.5),
                 (1, 12, 8, 8))

    assert run(GroupConvolutionTransformation, graph, conv) is False
    assert conv.input_node(1).type == "Multiply"


def test_backprop_data_weights_zero_point_goes_along_dim_1():
    graph = Graph()
    data = dequantized_input(graph, (1, 8, 4, 4), None, 0.02)
    weights = compressed_weights(graph, (8, 2, 1, 1), 2, 1, 0.01)
    cbd = layer(graph, "ConvolutionBackpropData", data, weights, (1, 2, 4, 4))

    assert run(ConvolutionBackpropDataTransformation, graph, cbd) is True

    subtract = cbd.input_node(1)
    assert subtract.type == "Subtract" and subtract.input_node(1).value.shape == (1, 2, 1, 1)
    assert result_source(graph).input_node(1).value == pytest.approx(0.0002)


def test_mat_mul_turns_activation_zero_point_into_a_subtract_after():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 4), 128.0, 0.01)
    weights = graph.add_constant(np.ones((4, 4), np.float32), f32).output()
    bounds = [graph.add_constant(np.float32(v), f32).output() for v in (0.0, 254.0, -12.7, 12.7)]
    fq = graph.add_node("FakeQuantize", [weights, *bounds], outputs=[(f32, (4, 4))], attrs={"levels": "255"})
    matmul = graph.add_node("MatMul", [data, fq.output()], outputs=[(f32, (1, 3, 4))],
                            attrs={"transpose_a": "false", "transpose_b": "false"})
    graph.add_node("Result", [matmul.output()])

    assert run(MatMulTransformation, graph, matmul) is True

    multiply = result_source(graph)
    subtract = multiply.input_node(0)
    assert subtract.type == "Subtract" and subtract.input_node(0) is matmul
    assert np.allclose(subtract.input_node(1).value, -64512.0)  # 128 * 4 * (-126)
    assert multiply.input_node(1).value == pytest.approx(0.001)
    assert matmul.input_value(0).element_type == u8 and matmul.input_value(1).element_type == i8


@pytest.mark.parametrize("transpose", [False, True])
def test_mat_mul_sums_z_at_b_only_when_it_is_read(transpose: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`z @ B` whose first two columns differ is no scalar: its Constant is made with its shape
    from those two columns alone, and the weights are summed when its value is first read (the
    runtime dialect drops it unread), to the value summed at once."""
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 8), 128.0, 0.01)
    stored = np.random.default_rng(4).integers(-127, 128, (6, 8) if transpose else (8, 6)).astype(np.int8)
    weights = graph.add_constant(stored, i8).output()
    converted = graph.add_node("Convert", [weights], outputs=[(f32, stored.shape)], attrs={"destination_type": "f32"})
    scaled = binary(graph, "Multiply", converted.output(), graph.add_constant(np.float32(0.5), f32).output())
    matmul = graph.add_node("MatMul", [data, scaled.output()], outputs=[(f32, (1, 3, 6))],
                            attrs={"transpose_a": "false", "transpose_b": str(transpose).lower()})
    graph.add_node("Result", [matmul.output()])
    columns: list[int] = []
    dot_2d = in_order_dot._dot_2d

    def counted(rows: np.ndarray, weights: ConstantData, transpose: bool) -> np.ndarray:
        out = dot_2d(rows, weights, transpose)
        columns.append(out.shape[1])
        return out

    monkeypatch.setattr(in_order_dot, "_dot_2d", counted)
    assert run(MatMulTransformation, graph, matmul) is True

    product = result_source(graph).input_node(0).input_node(1)
    assert product.outputs[0].shape == (1, 1, 6) and columns == [2]
    value = product.value
    assert columns == [2, 6] and product.value is value  # summed once, when read
    expected = summed_row_after_row(np.full((1, 8), 128.0, np.float32), stored.T if transpose else stored)
    assert value.tobytes() == expected.reshape(1, 1, 6).tobytes()


def test_mat_mul_rejects_scales_along_the_reduction_axis_of_a():
    graph = Graph()
    data = dequantized_input(graph, (1, 3, 4), None, np.array([0.1, 0.2, 0.3, 0.4], np.float32).reshape(1, 1, 4))
    weights = compressed_weights(graph, (4, 4), 2, None, 0.5)
    matmul = graph.add_node("MatMul", [data, weights], outputs=[(f32, (1, 3, 4))])
    graph.add_node("Result", [matmul.output()])

    assert run(MatMulTransformation, graph, matmul) is False
    assert matmul.input_node(0).type == "Multiply"


def test_optimize_subtract_rounds_half_away_from_zero_onto_the_integer_data():
    graph = Graph()
    data = graph.add_node("Parameter", outputs=[(u8, (1, 2))]).output()
    convert = graph.add_node("Convert", [data], outputs=[(f32, (1, 2))], attrs={"destination_type": "f32"})
    subtract = binary(graph, "Subtract", convert.output(), graph.add_constant(np.float32(2.5), f32).output())
    graph.add_node("Result", [subtract.output()])

    assert optimize_subtract(subtract) is subtract
    assert subtract.input_value(0) is data
    assert subtract.input_value(1).element_type == u8 and subtract.input_node(1).value == 3
    assert not convert.alive


def test_optimize_subtract_removes_a_zero_point_that_rounds_to_zero():
    graph = Graph()
    data = graph.add_node("Parameter", outputs=[(i8, (1, 2))]).output()
    convert = graph.add_node("Convert", [data], outputs=[(f32, (1, 2))], attrs={"destination_type": "f32"})
    subtract = binary(graph, "Subtract", convert.output(), graph.add_constant(np.float32(1e-7), f32).output())
    result = graph.add_node("Result", [subtract.output()])

    assert optimize_subtract(subtract) is None
    assert result.input_value(0) is data


def test_optimize_multiplies_after_merges_two_scales():
    graph = Graph()
    data = graph.add_node("Parameter", outputs=[(f32, (1, 2))]).output()
    first = binary(graph, "Multiply", data, graph.add_constant(np.array([2.0, 4.0], np.float32), f32).output())
    second = binary(graph, "Multiply", first.output(), graph.add_constant(np.float32(0.5), f32).output())
    graph.add_node("Result", [second.output()])

    assert optimize_multiplies_after(first) is second
    assert second.input_value(0) is data
    assert np.allclose(second.input_node(1).value, [1.0, 2.0])
    assert not first.alive
