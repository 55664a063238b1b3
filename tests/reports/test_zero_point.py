"""A weightable layer behind LPT's zero-point Subtract runs in low precision (issue 5).

LPT keeps an asymmetric zero point as Subtract(integer data, integer Constant) -> f32 in
front of the layer; the plugins fold it into the kernel, so the layer still counts as INT8.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphs import ACT, conv, fake_quantize, finish, original
from lpt_cli.ir import Graph, Output
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.model import LOW, ORIGINAL


def zero_point_subtract(g: Graph, data: Output, zero_point: np.ndarray, name: str) -> Output:
    """Subtract(data, zero point Constant) with LPT's type-relaxed f32 output."""
    zp = g.add_constant(zero_point).outputs[0]
    return g.add_node("Subtract", [data, zp], outputs=[("f32", data.shape)], name=name).outputs[0]


def after_lpt(*, activation_zp: np.ndarray | None = None, weights_zp: np.ndarray | None = None,
              float_weights: bool = False) -> Graph:
    """input -> fq(u8) -> [zero-point Subtract] -> conv(i8 weights [- zero point]) -> softmax."""
    g = Graph("after")
    x = g.add_node("Parameter", outputs=[("f32", ACT)], name="input").outputs[0]
    data = fake_quantize(g, x, "fq", "u8")
    if activation_zp is not None:
        data = zero_point_subtract(g, data, activation_zp, "act_zp")
    w = g.add_constant(np.ones((4, 3, 3, 3), np.float32 if float_weights else np.int8)).outputs[0]
    if weights_zp is not None:
        w = zero_point_subtract(g, w, weights_zp, "w_zp")
    return finish(g, conv(g, data, w))


def conv_row(after: Graph):
    rep = build_report("m.xml", original(), after, PipelineResult(), config_from_dict({}))
    return next(r for r in rep.layers if r.name == "conv"), rep.summary


U8_ZP = np.full((1, 3, 1, 1), 128, np.uint8)
I8_ZP = np.full((4, 1, 1, 1), 3, np.int8)


@pytest.mark.parametrize("graph", [
    pytest.param(lambda: after_lpt(activation_zp=U8_ZP), id="activation-zero-point"),
    pytest.param(lambda: after_lpt(weights_zp=I8_ZP), id="weights-zero-point"),
    pytest.param(lambda: after_lpt(activation_zp=U8_ZP, weights_zp=I8_ZP), id="both"),
])
def test_zero_point_subtract_keeps_the_layer_low_precision(graph):
    row, summary = conv_row(graph())
    assert (row.status, row.reason) == (LOW, None)
    assert row.input_precisions == ("u8", "i8")  # the tensors the kernel computes on
    assert (summary.weightable_low_precision, summary.low_precision_share) == (1, 100.0)


@pytest.mark.parametrize("graph", [
    pytest.param(lambda: after_lpt(activation_zp=np.full((1, 3, 1, 1), 128.0, np.float32)), id="float-zero-point"),
    pytest.param(lambda: after_lpt(float_weights=True), id="float-weights"),
    pytest.param(lambda: after_lpt(activation_zp=U8_ZP, float_weights=True), id="zero-point-float-weights"),
])
def test_layer_with_a_float_operand_is_not_low_precision(graph):
    row, summary = conv_row(graph())
    assert row.status == ORIGINAL
    assert summary.weightable_low_precision == 0
