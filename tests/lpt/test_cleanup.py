"""The cleanup step (EliminateFakeQuantize, FoldConvert, FuseConvert, FuseSubtract/Multiply-
ToFakeQuantize, MultiplyToGroupConvolution) and FoldFakeQuantize, on tiny graphs."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.eltypes import ElementType, f16, f32, i8, u8
from lpt_cli.lpt.dequantization import attributes
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.lpt.engine.transformation import Context
from lpt_cli.lpt.transformations.cleanup.fuse_multiply_to_fake_quantize import FuseMultiplyToFakeQuantizeTransformation
from lpt_cli.lpt.transformations.fake_quantize.fold_fake_quantize import is_constant_path

from .fq_graphs import fake_quantize, parameter, result

SHAPE = (1, 4, 2, 2)


def _run(graph: Graph, name: str, **config) -> None:
    run_pipeline(graph, config_from_dict({**config, "transformations": {"only": [name]}}))


def _param(graph: Graph, etype: ElementType = u8, shape=SHAPE) -> Output:
    return graph.add_node("Parameter", outputs=[(etype, shape)]).output()


def _convert(graph: Graph, value: Output, etype: ElementType = f32) -> Output:
    return graph.add_node("Convert", [value], outputs=[(etype, value.shape)],
                          attrs={"destination_type": etype.name}).output()


def _binary(graph: Graph, op: str, data: Output, value, etype: ElementType = f32, out_type=None) -> Node:
    const = graph.add_constant(np.asarray(value, dtype=np.float64), etype).output()
    return graph.add_node(op, [data, const], outputs=[(out_type or f32, data.shape)])


def _producer(out: Node, index: int = 0) -> Node:
    return out.input_node(index)


# --- FoldConvert ------------------------------------------------------------------------
def test_fold_convert_turns_a_converted_zero_point_into_a_constant():
    graph = Graph()
    data = _convert(graph, _param(graph))
    zero_point = _convert(graph, graph.add_constant(np.array([7], np.uint8), u8).output())
    sub = graph.add_node("Subtract", [data, zero_point], outputs=[(f32, SHAPE)])
    result(graph, sub.output())
    _run(graph, "FoldConvertTransformation")
    folded = sub.input_node(1)
    assert folded.type == "Constant" and folded.data.element_type == f32 and folded.value.tolist() == [7.0]


def test_fold_convert_respects_disable_cleanup():
    graph = Graph()
    zero_point = _convert(graph, graph.add_constant(np.array([7], np.uint8), u8).output())
    sub = graph.add_node("Subtract", [_convert(graph, _param(graph)), zero_point], outputs=[(f32, SHAPE)])
    attributes.disable_cleanup(sub)
    result(graph, sub.output())
    _run(graph, "FoldConvertTransformation")
    assert sub.input_node(1).type == "Convert"


# --- FuseConvert ------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["Subtract", "Multiply", "Add"])
def test_fuse_convert_makes_the_op_read_low_precision(op):
    graph = Graph()
    data = _param(graph)
    node = _binary(graph, op, _convert(graph, data), 2.0)
    out = result(graph, node.output())
    _run(graph, "FuseConvertTransformation")
    fused = _producer(out)
    assert fused.type == op and fused.input_value(0) is data and fused.output().element_type == f32
    assert not any(n.type == "Convert" for n in graph)


def test_fuse_convert_keeps_a_negative_constant_away_from_unsigned_data():
    graph = Graph()
    sub = _binary(graph, "Subtract", _convert(graph, _param(graph, u8)), -1.0)
    out = result(graph, sub.output())
    _run(graph, "FuseConvertTransformation")
    assert _producer(out) is sub and sub.input_node(0).type == "Convert"


def test_fuse_convert_accepts_a_negative_constant_on_signed_data():
    graph = Graph()
    data = _param(graph, i8)
    out = result(graph, _binary(graph, "Subtract", _convert(graph, data), -1.0).output())
    _run(graph, "FuseConvertTransformation")
    assert _producer(out).input_value(0) is data


def test_fuse_convert_ignores_a_convert_to_an_integer_type():
    graph = Graph()
    node = _binary(graph, "Multiply", _convert(graph, _param(graph, f32), i8), 2.0, i8, i8)
    result(graph, node.output())
    _run(graph, "FuseConvertTransformation")
    assert node.alive and node.input_node(0).type == "Convert"


def test_fuse_convert_folds_a_constant_in_front_of_a_fake_quantize():
    graph = Graph()
    const = graph.add_constant(np.full(SHAPE, 128, np.uint8), u8).output()
    fq = fake_quantize(graph, _convert(graph, const), 0.0, 0.1)
    result(graph, fq.output())
    _run(graph, "FuseConvertTransformation")
    folded = fq.input_node(0)
    assert folded.type == "Constant" and folded.data.element_type == f32 and float(folded.value.max()) == 128.0


# --- FuseSubtract/MultiplyToFakeQuantize --------------------------------------------------
def _fq_chain(graph: Graph, op: str, value, *, convert: bool = True) -> tuple[Node, Node, Node]:
    fq = fake_quantize(graph, parameter(graph, SHAPE), 0.0, 2.55, out_low=0.0, out_high=255.0)
    data = _convert(graph, fq.output()) if convert else fq.output()
    node = _binary(graph, op, data, value)
    return fq, node, result(graph, node.output())


@pytest.mark.parametrize("op, value, low, high", [
    ("Subtract", 128.0, [-128.0], [127.0]),
    ("Multiply", 0.5, [0.0], [127.5]),
    ("Subtract", np.array([128.0, 64.0, 32.0, 16.0]).reshape(1, 4, 1, 1), [-128, -64, -32, -16], [127, 191, 223, 239]),
])
def test_elementwise_fuses_into_the_output_interval(op, value, low, high):
    graph = Graph()
    fq, _, out = _fq_chain(graph, op, value)
    data = fq.input_value(0)
    _run(graph, f"Fuse{op}ToFakeQuantizeTransformation")
    fused = _producer(out)
    assert fused.type == "FakeQuantize" and fused.input_value(0) is data and not fq.alive
    assert fused.input_node(3).value.reshape(-1).tolist() == low
    assert fused.input_node(4).value.reshape(-1).tolist() == high
    assert fused.input_node(2).value.reshape(-1).tolist() == pytest.approx([2.55])


def test_fused_bounds_take_the_deq_precision():
    graph = Graph()
    _, _, out = _fq_chain(graph, "Multiply", 0.5)
    _run(graph, "FuseMultiplyToFakeQuantizeTransformation", deq_precision="f16")
    fused = _producer(out)
    assert {fused.input_node(i).data.element_type for i in range(1, 5)} == {f16}
    assert fused.output().element_type == f32


def test_a_shared_fake_quantize_is_not_fused():
    graph = Graph()
    fq, node, out = _fq_chain(graph, "Subtract", 128.0, convert=False)
    result(graph, fq.output())
    _run(graph, "FuseSubtractToFakeQuantizeTransformation")
    assert _producer(out) is node


def test_a_spatial_constant_is_not_fused():
    graph = Graph()
    _, node, out = _fq_chain(graph, "Multiply", np.arange(1, 17, dtype=np.float64).reshape(1, 4, 2, 2))
    _run(graph, "FuseMultiplyToFakeQuantizeTransformation")
    assert _producer(out) is node


def test_multiply_fusion_restores_the_aligned_levels():
    graph = Graph()
    fq, node, out = _fq_chain(graph, "Multiply", 0.5)
    fq.attrs["levels"] = "128"
    alignment = attributes.IntervalsAlignment((0.0, 2.55), (0.0, 2.55), 256)
    fq.annotations[attributes.INTERVALS_ALIGNMENT] = attributes.IntervalsAlignmentAttribute(alignment, 256)
    pass_ = FuseMultiplyToFakeQuantizeTransformation(Context(graph, config_from_dict({})))
    assert pass_.transform(node)
    assert _producer(out).attr_int("levels") == 256


# --- MultiplyToGroupConvolution -------------------------------------------------------
GC_RESTRICTION = {"restrictions": {"precisions": [{"op": "GroupConvolution", "ports": {0: ["u8"], 1: ["i8"]}}]}}


def test_multiply_becomes_a_depthwise_group_convolution():
    graph = Graph()
    data = _param(graph)
    sub = _binary(graph, "Subtract", _convert(graph, data), np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 4, 1, 1))
    scale = np.array([0.5, 0.25, 0.125, 1.0]).reshape(1, 4, 1, 1)
    mul = _binary(graph, "Multiply", sub.output(), scale)
    out = result(graph, mul.output())
    _run(graph, "MultiplyToGroupConvolutionTransformation", **GC_RESTRICTION)
    assert _producer(out) is mul and mul.input_node(1).value.reshape(-1).tolist() == scale.reshape(-1).tolist()
    add = mul.input_node(0)
    assert add.type == "Add" and add.input_node(1).value.reshape(-1).tolist() == [-1.0, -2.0, -3.0, -4.0]
    conv = add.input_node(0)
    assert conv.type == "GroupConvolution" and conv.input_value(0) is data and conv.output().element_type == f32
    weights = conv.input_node(1)
    assert weights.data.element_type == i8 and weights.data.shape == (4, 1, 1, 1, 1)
    assert weights.value.reshape(-1).tolist() == [1, 1, 1, 1]
    assert conv.attr_ints("strides") == [1, 1] and conv.attr_ints("pads_begin") == [0, 0]


def test_group_convolution_restriction_rejects_other_data_precisions():
    graph = Graph()
    mul = _binary(graph, "Multiply", _convert(graph, _param(graph, i8)), 0.5)
    out = result(graph, mul.output())
    _run(graph, "MultiplyToGroupConvolutionTransformation", **GC_RESTRICTION)
    assert _producer(out) is mul and mul.input_node(0).type == "Convert"


def test_rank_3_multiply_is_not_a_group_convolution():
    graph = Graph()
    mul = _binary(graph, "Multiply", _convert(graph, _param(graph, u8, (1, 4, 2))), 0.5)
    result(graph, mul.output())
    _run(graph, "MultiplyToGroupConvolutionTransformation")
    assert not any(n.type == "GroupConvolution" for n in graph)


# --- EliminateFakeQuantize --------------------------------------------------------------
def _u8_fq(graph: Graph, in_high: float, out_high: float) -> tuple[Output, Node, Node]:
    data = _param(graph, u8)
    bounds = [graph.add_constant(v, f32).output() for v in (0.0, in_high, 0.0, out_high)]
    fq = graph.add_node("FakeQuantize", [data, *bounds], outputs=[(u8, SHAPE)], attrs={"levels": "256"})
    return data, fq, result(graph, fq.output())


@pytest.mark.parametrize("in_high", [255.0, 254.9])
def test_identity_fake_quantize_is_removed(in_high):
    graph = Graph()
    data, _, out = _u8_fq(graph, in_high, 255.0)
    _run(graph, "EliminateFakeQuantizeTransformation")
    assert out.input_value(0) is data


@pytest.mark.parametrize("in_high, out_high", [(127.5, 255.0), (255.0, 254.0)])
def test_fake_quantize_that_changes_values_stays(in_high, out_high):
    graph = Graph()
    _, fq, out = _u8_fq(graph, in_high, out_high)
    _run(graph, "EliminateFakeQuantizeTransformation")
    assert _producer(out) is fq


# --- FoldFakeQuantize -----------------------------------------------------------------
def _weights_fq(graph: Graph, data: Output) -> Node:
    bounds = [graph.add_constant(v, f32).output() for v in (0.0, 254.0, -127.0, 127.0)]
    return graph.add_node("FakeQuantize", [data, *bounds], outputs=[(f32, data.shape)], attrs={"levels": "255"})


def test_fake_quantize_on_a_constant_is_folded_unrounded():
    graph = Graph()
    fq = _weights_fq(graph, graph.add_constant(np.full((3, 1, 1, 1), 1.0, np.float32), f32).output())
    out = result(graph, fq.output())
    _run(graph, "FoldFakeQuantizeTransformation")
    folded = _producer(out)
    assert folded.type == "Constant" and folded.value.reshape(-1).tolist() == [-126.0] * 3


def test_fake_quantize_on_inference_data_is_kept():
    graph = Graph()
    fq = _weights_fq(graph, parameter(graph, (3, 1, 1, 1)))
    out = result(graph, fq.output())
    _run(graph, "FoldFakeQuantizeTransformation")
    assert _producer(out) is fq


def test_fake_quantize_with_equal_output_bounds_is_folded_even_on_data():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph, SHAPE), 0.0, 1.0, out_low=3.0, out_high=3.0)
    out = result(graph, fq.output())
    _run(graph, "FoldFakeQuantizeTransformation")
    folded = _producer(out)
    assert folded.type == "Constant" and folded.data.shape == SHAPE and float(folded.value.min()) == 3.0


def test_constant_path_stops_at_parameters_and_weighted_layers():
    graph = Graph()
    const = graph.add_constant(np.ones((1, 4, 2, 2), np.float32), f32).output()
    assert is_constant_path(_convert(graph, const).node)
    conv = graph.add_node("Convolution", [parameter(graph, SHAPE), const], outputs=[(f32, SHAPE)])
    assert not is_constant_path(_binary(graph, "Multiply", conv.output(), 2.0))


def test_constant_path_follows_rewiring_after_being_asked():
    """The graph remembers data-path answers; re-pointing an input must still be seen."""
    graph = Graph()
    chain = [_binary(graph, "Add", parameter(graph, SHAPE), 1.0)]
    for _ in range(50):
        chain.append(_binary(graph, "Add", chain[-1].output(), 1.0))
    assert not any(is_constant_path(node) for node in chain)
    const = graph.add_constant(np.ones(SHAPE, np.float32), f32).output()
    chain[25].set_input(0, const)  # cuts the chain: layers 25.. now compute from constants only
    assert [is_constant_path(node) for node in chain] == [False] * 25 + [True] * 26
    chain[40].set_input(0, chain[3].output())  # and 40.. are data again
    assert [is_constant_path(node) for node in chain[25:]] == [True] * 15 + [False] * 11
