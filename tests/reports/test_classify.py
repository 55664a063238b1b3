"""Per-layer status and reason, from hand-built before/after graphs and decision logs."""
from __future__ import annotations

import numpy as np
import pytest

from graphs import declined, lowered, original, untouched
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult
from lpt_cli.lpt.engine.transformation import Decision
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.model import LOW, NOT_QUANTIZED, ORIGINAL, REMOVED
from lpt_cli.reports.render import render


def report(after, config=None, decisions=None):
    result = PipelineResult(decisions=decisions or {})
    return build_report("m.xml", original(), after, result, config or config_from_dict({}))


def rows(rep):
    return {r.name: r for r in rep.layers}


def test_rows_cover_activation_layers_only():
    # Parameters, Results and the weights' Convert -> Multiply are not layers.
    assert [r.name for r in report(lowered()).layers] == ["fq", "conv", "softmax"]


def test_lowered_conv_is_low_precision_with_full_share():
    rep = report(lowered())
    r = rows(rep)
    assert (r["fq"].status, r["conv"].status, r["softmax"].status) == (LOW, LOW, NOT_QUANTIZED)
    assert r["conv"].input_precisions == ("u8", "i8")
    assert r["conv"].reason is None
    assert rep.summary.low_precision_share == 100.0
    assert rep.summary.macs_low_precision == rep.summary.macs_total == 1 * 4 * 8 * 8 * 3 * 3 * 3


def test_transformation_decision_wins():
    after = untouched()
    conv_id = after.find("conv").id
    decisions = {conv_id: [Decision("FuseConvertTransformation", "other", "x"),
                           Decision("ConvolutionTransformation", "weights_not_quantized", "why")]}
    reason = rows(report(after, decisions=decisions))["conv"].reason
    assert (reason.code, reason.transformation) == ("weights_not_quantized", "ConvolutionTransformation")


def test_disabled_transformation():
    config = config_from_dict({"transformations": {"disable": ["ConvolutionTransformation"]}})
    r = rows(report(untouched(), config))["conv"]
    assert r.status == ORIGINAL and r.reason.code == "transformation_disabled"


def test_quantized_op_without_transformation_is_not_supported():
    before = original()
    before.find("softmax").set_input(0, before.find("fq").outputs[0])  # the FakeQuantize feeds Softmax
    rep = build_report("m.xml", before, untouched(), PipelineResult(), config_from_dict({}))
    r = rows(rep)["softmax"]
    assert (r.status, r.reason.code) == (ORIGINAL, "op_not_supported")


def test_fq_left_in_float_means_no_dequantization_upstream():
    config = config_from_dict({})
    r = rows(report(untouched(), config))["conv"]
    assert r.reason.code == "no_dequantization_upstream"
    assert "'fq'" in r.reason.detail


@pytest.mark.parametrize(("after", "config", "code"), [
    (lambda: declined(fq_type="i8"),
     {"restrictions": {"precisions": [{"op": "Convolution", "ports": {0: ["u8"]}}]}}, "precision_restriction"),
    (lambda: declined(scale=np.full((1, 3, 1, 1), 0.01, np.float32)),
     {"restrictions": {"per_tensor": [{"op": "Convolution", "ports": [0]}]}}, "per_tensor_restriction"),
    (lambda: declined(zero_point=3.0), {"asymmetric_quantization": False}, "asymmetric_not_allowed"),
    (lambda: declined(weights_zero_point=1.0), {"asymmetric_weights": False}, "asymmetric_not_allowed"),
    (lambda: declined(weights_zero_point=1.0), {}, "transformation_declined"),
    (lambda: declined(), {}, "transformation_declined"),
])
def test_reason_inferred_from_dequantization_and_config(after, config, code):
    r = rows(report(after(), config_from_dict(config)))["conv"]
    assert (r.status, r.reason.code) == (ORIGINAL, code)


def test_missing_layer_is_removed_with_a_reason():
    after = lowered()
    after.rename(after.find("fq"), "gone")
    after.rename(after.find("conv"), "conv_elsewhere")  # nothing left to find it by
    r = rows(report(after))["fq"]
    assert r.status == REMOVED and r.reason.code == "removed" and r.transformed_name is None


def test_layer_under_a_new_name_above_its_consumer_is_renamed():
    after = lowered()
    after.rename(after.find("fq"), "FakeQuantize_123")
    r = rows(report(after))["fq"]
    assert (r.status, r.transformed_name) == (LOW, "FakeQuantize_123")
    assert "fq (renamed -> FakeQuantize_123)" in render(report(after), "markdown")


def test_replacement_with_collision_name_is_matched():
    after = lowered()
    after.rename(after.find("fq"), "fq_1")
    r = rows(report(after))["fq"]
    assert (r.status, r.transformed_name) == (LOW, "fq_1")


def test_summary_counts():
    s = report(untouched()).summary
    assert s.by_status == {LOW: 0, ORIGINAL: 2, NOT_QUANTIZED: 1, REMOVED: 0}
    assert (s.weightable, s.weightable_low_precision, s.low_precision_share) == (1, 0, 0.0)
    assert (s.fake_quantize_before, s.fake_quantize_left) == (1, 1)
    assert s.isa.startswith("none")  # a config without an ISA: no CPU kernel rules, and never the host's ISA


def test_type_relaxed_subtract_counts_as_a_dequantization():
    # LPT's Subtract may take the u8 tensor directly (no Convert) and give f32.
    after = declined()
    sub_input = after.find("dq/convert").inputs[0].source
    multiply = after.find("dq/mul")
    zp = after.add_constant(np.uint8(3)).outputs[0]
    relaxed = after.add_node("Subtract", [sub_input, zp], outputs=[("f32", sub_input.shape)], name="relaxed")
    multiply.set_input(0, relaxed.outputs[0])
    r = rows(report(after, config_from_dict({"asymmetric_quantization": False})))["conv"]
    assert r.reason.code == "asymmetric_not_allowed"
