"""Static prediction beside runtime precision: name matching and what counts as a disagreement."""
from __future__ import annotations

from graphs import lowered, original
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.compare import Observed, compare, comparison_dict, format_comparison
from schema_check import SCHEMA, check

I8 = Observed("u8 (jit_avx2_I8)", True, "conv", True, "Convolution")
F32 = Observed("f32 (jit_avx2_f32)", False, "softmax", True, "Softmax")


def _rows(after, transformed):
    rep = build_report("m.xml", original(), after, PipelineResult(), config_from_dict({}))
    return {c.name: c for c in compare(rep, after, transformed, {})}


def test_agreement_and_fused_layers_are_not_disagreements():
    rows = _rows(lowered(), {"conv": I8, "softmax": F32, "fq": Observed("x", True, "conv", False)})
    assert not any(c.disagrees for c in rows.values())
    assert "disagreements: 0" in format_comparison(list(rows.values()))


def test_layer_predicted_float_that_ran_int8_disagrees():
    after = original()  # lpt did nothing, the plugin still ran the conv in INT8
    rows = _rows(after, {"conv": I8})
    assert rows["conv"].disagrees
    assert "  conv (Convolution): predicted original-precision, ran u8 (jit_avx2_I8)" in format_comparison(
        list(rows.values()))


def test_renamed_weightable_found_through_the_op_fused_after_it():
    renamed = Observed("u8 (jit_avx2_I8)", True, "Multiply_77", False, "Convolution")
    rows = _rows(lowered(), {"softmax": renamed})  # the runtime conv absorbed the softmax, lost its name
    assert rows["conv"].transformed.runtime_op == "Multiply_77" and rows["conv"].transformed.own
    not_weightable = Observed("f32", False, "Multiply_77", False, "Eltwise")
    assert _rows(lowered(), {"softmax": not_weightable})["conv"].transformed is None


def test_json_section_matches_schema():
    rows = list(_rows(original(), {"conv": I8}).values())
    doc = comparison_dict(rows, "CPU")
    check(doc, SCHEMA["properties"]["runtime"], SCHEMA["$defs"])
    assert doc["disagreements"] == ["conv"]
