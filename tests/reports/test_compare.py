"""Static prediction beside runtime precision: name matching and what counts as a disagreement."""
from __future__ import annotations

from graphs import lowered, original
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.compare import (INTEGER_DATA, QUANTIZES, Counters, Observed, RuntimeView, compare,
                                     comparison_dict, format_comparison)
from schema_check import SCHEMA, check

I8 = Observed("u8 (jit_avx2_I8)", True, "conv", True, "Convolution")
F32 = Observed("f32 (jit_avx2_f32)", False, "softmax", True, "Softmax")


def _rows(after, transformed):
    rep = build_report("m.xml", original(), after, PipelineResult(), config_from_dict({}))
    return {c.name: c for c in compare(rep, after, transformed, {})}


def _view(rows, kernels=None) -> RuntimeView:
    return RuntimeView("CPU", tuple(rows.values()), {}, kernels or {})


def test_agreement_and_fused_layers_are_not_disagreements():
    rows = _rows(lowered(), {"conv": I8, "softmax": F32, "fq": Observed("x", True, "conv", False)})
    assert not any(c.disagrees for c in rows.values())
    assert "disagreements: 0 " in format_comparison(_view(rows))


def test_layer_predicted_float_that_ran_int8_disagrees():
    after = original()  # lpt did nothing, the plugin still ran the conv in INT8
    rows = _rows(after, {"conv": I8})
    assert rows["conv"].disagrees
    assert "  conv (Convolution): predicted original-precision, ran u8 (jit_avx2_I8)" in format_comparison(
        _view(rows))


def test_not_quantized_layers_on_u8_are_listed_apart_not_as_disagreements():
    """DistilBERT: NNCF's SmoothQuant Multiply runs f32 -> u8 with the FakeQuantize fused into it,
    and the mask's Convert (i32 -> u8) and Gather on u8 are integer data, not quantization; the
    report says nothing quantizes either, which is right."""
    smooth_quant = Observed("f32->u8 (jit_avx2_f32)", False, "softmax", True, "Eltwise", quantizes=True,
                            output_low=True)
    rows = _rows(lowered(), {"softmax": smooth_quant})
    assert rows["softmax"].static == "not-quantized" and not rows["softmax"].disagrees
    assert rows["softmax"].integer_unquantized == QUANTIZES
    convert = Observed("i32->u8 (ref_i32)", False, "softmax", True, "Convert", output_low=True)
    assert _rows(lowered(), {"softmax": convert})["softmax"].integer_unquantized == INTEGER_DATA
    mask = Observed("u8 (jit_avx2_I8)", True, "softmax", True, "Gather", output_low=True)
    rows = _rows(lowered(), {"softmax": mask})
    assert not rows["softmax"].disagrees and rows["softmax"].integer_unquantized == INTEGER_DATA
    text = format_comparison(_view(rows))
    assert "disagreements: 0 " in text
    assert "not-quantized layers that show u8/i8 at runtime (no disagreement):" in text
    assert "  1 move integer data as u8/i8 (masks, indices), no quantization:\n    softmax\n" in text


def test_a_layer_predicted_float_that_quantizes_its_output_agrees():
    """An op left in float whose output the plugin quantizes (a FakeQuantize fused in) computes in float."""
    after = original()
    rows = _rows(after, {"conv": Observed("f32->u8 (jit_avx2_f32)", False, "conv", True, "Convolution",
                                          quantizes=True, output_low=True)})
    assert rows["conv"].static == "original-precision" and not rows["conv"].disagrees


def test_renamed_weightable_found_through_the_op_fused_after_it():
    renamed = Observed("u8 (jit_avx2_I8)", True, "Multiply_77", False, "Convolution")
    rows = _rows(lowered(), {"softmax": renamed})  # the runtime conv absorbed the softmax, lost its name
    assert rows["conv"].transformed.runtime_op == "Multiply_77" and rows["conv"].transformed.own
    not_weightable = Observed("f32", False, "Multiply_77", False, "Eltwise")
    assert _rows(lowered(), {"softmax": not_weightable})["conv"].transformed is None


def test_a_kernel_named_after_an_internal_node_counts_as_the_layer_it_computes():
    """On AMX the plugin names a conv's INT8 kernel `Multiply_5472` (an internal node): it is the
    conv's own op, compared as such, not "fused into" something unmatched."""
    internal = Observed("u8 (brgconv_avx512_amx_I8)", True, "Multiply_5472", False, "Convolution")
    rows = _rows(original(), {"conv": internal})
    assert rows["conv"].transformed.own and rows["conv"].disagrees  # predicted float, ran INT8
    eltwise = Observed("f32 (jit_avx2_f32)", False, "Multiply_5472", False, "Eltwise")
    assert not _rows(original(), {"conv": eltwise})["conv"].transformed.own  # another kind: fused into it
    text = format_comparison(_view(rows, {"transformed": {"Convolution": 1}, "original": {"Convolution": 1}}))
    assert "  lpt-transformed model: 1 (Convolution 1)" in text


def test_json_section_matches_schema():
    rows = _rows(original(), {"conv": I8})
    doc = comparison_dict(_view(rows, {"transformed": {"Convolution": 1}, "original": {}}))
    check(doc, SCHEMA["properties"]["runtime"], SCHEMA["$defs"])
    assert doc["disagreements"] == ["conv"] and doc["integer_unquantized"] == []


def test_the_view_of_one_layer_has_its_row_and_its_ops_counters():
    rows = _rows(lowered(), {"conv": I8, "softmax": F32})
    header = ("layerName", "execStatus", "layerType", "execType", "realTime (ms)", "cpuTime (ms)")
    counters = Counters((header, ("conv", "EXECUTED", "Convolution", "jit_avx2_I8", "0.500", "0.400"),
                         ("softmax", "EXECUTED", "Softmax", "jit_avx2_f32", "0.250", "0.250")))
    view = RuntimeView("CPU", tuple(rows.values()), {"transformed": counters}, {}).only("conv")
    assert [c.name for c in view.rows] == ["conv"]
    assert [r[0] for r in view.counters["transformed"].rows] == ["layerName", "conv"]
    assert view.counters["transformed"].total == "Total time: 0.500 ms (real), 0.400 ms (cpu)"
