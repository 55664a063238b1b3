"""FakeQuantizeDecomposition and the FQ math: precision choice, zero points, aligned intervals."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32, i8, u8
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.dequantization.fake_quantize_math import calculate_levels, evaluate_fake_quantize
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.lpt.dequantization.precision import get_precision_details, max_value, min_value

from .fq_graphs import fake_quantize, parameter, result

ONLY_DECOMPOSITION = {"transformations": {"only": ["FakeQuantizeDecompositionTransformation"]}}


def _decompose(low, high, levels=256, **config):
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), low, high, levels)
    out = result(graph, fq.output())
    run_pipeline(graph, config_from_dict({**ONLY_DECOMPOSITION, **config}))
    chain = []
    node = out.input_node(0)
    while node.type != "Parameter":
        chain.append(node)
        node = node.input_node(0)
    return list(reversed(chain))


def _const(node, index=1):
    return np.asarray(node.input_node(index).value, dtype=np.float64)


def test_unsigned_interval_becomes_u8_without_zero_point():
    fq, convert, multiply = _decompose(0.0, 2.55)
    assert [n.type for n in (fq, convert, multiply)] == ["FakeQuantize", "Convert", "Multiply"]
    assert fq.output().element_type == u8
    assert _const(fq, 3) == 0 and _const(fq, 4) == 255
    assert _const(multiply) == pytest.approx(0.01)
    assert multiply.output().element_type == f32


def test_symmetric_full_range_becomes_i8():
    fq, _, multiply = _decompose(-1.28, 1.27)
    assert fq.output().element_type == i8
    assert (_const(fq, 3), _const(fq, 4)) == (-128, 127)
    assert _const(multiply) == pytest.approx(0.01)


def test_asymmetric_interval_takes_the_first_precision_with_a_zero_point():
    fq, _, subtract, multiply = _decompose(-1.0, 1.0)
    assert fq.output().element_type == u8 and subtract.type == "Subtract"
    assert _const(subtract) == pytest.approx(127.5)  # not rounded here
    assert _const(multiply) == pytest.approx(2 / 255)


def test_update_precisions_false_keeps_float():
    fq, multiply = _decompose(0.0, 2.55, update_precisions=False)
    assert fq.output().element_type == f32 and multiply.type == "Multiply"
    assert _const(fq, 4) == 255


def test_restricted_to_nothing_leaves_the_fq():
    chain = _decompose(0.0, 2.55, default_precisions=[])
    assert [n.type for n in chain] == ["FakeQuantize"]


def test_sixteen_bit_levels_choose_u16():
    fq, _, _ = _decompose(0.0, 65.535, levels=65536, default_precisions=["u8", "i8", "u16", "i16"])
    assert fq.output().element_type.name == "u16"


def test_precision_details_thresholds():
    assert get_precision_details(256, [-1.28], [1.27]).precision == i8
    assert get_precision_details(255, [-1.27], [1.27]).precision == i8
    assert get_precision_details(256, [-1.0], [1.0]).precision is None  # needs a zero point
    assert get_precision_details(256, [0.5], [2.0]).has_zero_point


def test_min_max_quirks():
    assert (min_value(u8, 255), max_value(u8, 255)) == (0, 255)
    assert (min_value(i8, 255), max_value(i8, 255)) == (-127, 127)
    assert max_value(i8, 16) == 7


def test_calculate_levels_for_a_narrower_branch():
    update = calculate_levels(0, 255, 0.0, 2.55, 0.0, 1.275)
    assert update.levels == 129 and update.dequantization_mul == pytest.approx(0.01)
    assert update.dequantization_sub == 0 and update.updated_high == pytest.approx(127.5)


def test_evaluate_fake_quantize_rounds_to_levels():
    x = np.array([-1.0, 0.0, 0.004, 0.006, 2.55, 3.0], np.float32)
    out = evaluate_fake_quantize(x, 0.0, 2.55, 0.0, 255.0, 256)
    assert out.tolist() == [0.0, 0.0, 0.0, 1.0, 255.0, 255.0]


def test_integer_fq_with_dequantization_is_recomposed_to_the_required_precision():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0.0, 2.55, out_low=0.0, out_high=255.0)
    fq.output().element_type = u8
    convert = graph.add_node("Convert", [fq.output()], outputs=[(f32, fq.output().shape)],
                             attrs={"destination_type": "f32"})
    subtract = graph.add_node("Subtract", [convert.output(), graph.add_constant(128.0, f32).output()],
                              outputs=[(f32, fq.output().shape)])
    multiply = graph.add_node("Multiply", [subtract.output(), graph.add_constant(0.01, f32).output()],
                              outputs=[(f32, fq.output().shape)])
    out = result(graph, multiply.output())
    run_pipeline(graph, config_from_dict({**ONLY_DECOMPOSITION, "default_precisions": ["i8"]}))
    last = out.input_node(0)
    new_fq = last.input_node(0).input_node(0)
    assert last.type == "Multiply" and _const(last) == pytest.approx(0.01)
    assert new_fq.type == "FakeQuantize" and new_fq.output().element_type == i8
    assert (_const(new_fq, 3), _const(new_fq, 4)) == (-128, 127)


def test_a_convert_fused_into_its_fake_quantize_gives_it_its_name():
    """NetworkHelper::fuseConvert: `FQ -> Convert(u8)` (a QDQ model read by OpenVINO: the Convert is
    ONNX's QuantizeLinear) becomes one u8 FakeQuantize named after the Convert, as the plugin's
    runtime model names it (not `x_QuantizeLinear_1`)."""
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0.0, 2.55, out_low=0.0, out_high=255.0)
    to_u8 = graph.add_node("Convert", [fq.output()], outputs=[(u8, fq.output().shape)],
                           attrs={"destination_type": "u8"}, name="x_QuantizeLinear")
    convert = graph.add_node("Convert", [to_u8.output()], outputs=[(f32, fq.output().shape)],
                             attrs={"destination_type": "f32"})
    multiply = graph.add_node("Multiply", [convert.output(), graph.add_constant(0.01, f32).output()],
                              outputs=[(f32, fq.output().shape)])
    result(graph, multiply.output())
    run_pipeline(graph, config_from_dict(ONLY_DECOMPOSITION))
    fused = graph.find("x_QuantizeLinear")
    assert fused.type == "FakeQuantize" and fused.output().element_type == u8
