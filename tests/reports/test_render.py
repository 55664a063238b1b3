"""The four output formats, and the JSON against report.schema.json."""
from __future__ import annotations

import csv
import io
import json

from graphs import declined, original
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import PipelineResult
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.render import CSV_COLUMNS, render
from schema_check import SCHEMA, check

def _report():
    return build_report("m.xml", original(), declined(), PipelineResult(), config_from_dict({}))


def test_json_matches_schema():
    doc = json.loads(render(_report(), "json"))
    check(doc, SCHEMA, SCHEMA["$defs"])
    conv = next(layer for layer in doc["layers"] if layer["name"] == "conv")
    assert conv["status"] == "original-precision" and conv["reason"]["code"]


def test_schema_check_rejects_a_wrong_status():
    doc = json.loads(render(_report(), "json"))
    doc["layers"][0]["status"] = "int8"
    try:
        check(doc, SCHEMA, SCHEMA["$defs"])
    except AssertionError:
        return
    raise AssertionError("an unknown status passed the schema")


def test_csv_has_one_row_per_layer():
    table = list(csv.DictReader(io.StringIO(render(_report(), "csv"))))
    assert tuple(table[0]) == CSV_COLUMNS
    assert [r["name"] for r in table] == ["fq", "conv", "softmax"]
    assert table[1]["macs"] == str(4 * 64 * 27) and table[1]["reason_code"]


def test_markdown_table_and_summary():
    text = render(_report(), "markdown")
    assert "| conv | Convolution | f32 f32 | f32 | original-precision |" in text
    assert "- weightable layers in low precision: 0/1, 0.00%" in text


def test_table_lists_layers_and_summary():
    text = render(_report(), "table")
    assert "conv" in text and "original-precision" in text
    assert "FakeQuantize: 1 in the model" in text


def test_every_format_has_the_json_layer_fields():
    report = _report()
    doc = json.loads(render(report, "json"))
    flat = []
    for key, value in doc["layers"][1].items():
        if key == "reason":
            flat += ["reason_code", "reason_detail", "transformation"]
        else:
            flat.append(key)
    assert sorted(flat) == sorted(CSV_COLUMNS)
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    for layer, row in zip(doc["layers"], rows):
        assert row["transformed_name"] == (layer["transformed_name"] or "")
        assert row["macs"] == ("" if layer["macs"] is None else str(layer["macs"]))
    markdown = render(report, "markdown")
    assert "| layer | type | inputs | output | status | reason | transformation | MACs |" in markdown
    conv = doc["layers"][1]
    assert f"| {conv['reason']['transformation'] or ''} | {conv['macs']} |" in markdown


def test_transform_summary_matches_its_schema():
    from importlib import resources

    from lpt_cli.reports.changes import transform_summary

    schema = json.loads(resources.files("lpt_cli.reports").joinpath("transform.schema.json").read_text())
    before = original()
    conv = next(node for node in before if node.name == "conv")
    result = PipelineResult(matched={conv.id: ["ConvolutionTransformation"]})
    report = build_report("m.xml", before, declined(), result, config_from_dict({}))
    doc = transform_summary(report, before, result, output="o.xml", dialect="runtime", layers_in=9,
                            layers_written=11, seconds=0.5)
    check(doc, schema, schema["$defs"])
    rows = {row["name"]: row for row in doc["layers"]}
    assert rows["conv"]["transformations"] == ["ConvolutionTransformation"] and rows["fq"]["transformations"] == []
    assert rows["conv"]["before"]["input_precisions"] == ["f32", "f32"]


def test_the_shape_hint_names_the_models_own_inputs_at_plausible_sizes():
    """BERT was told `--shape NAME=1,3,224,224`; its inputs are two [?,?] sequences."""
    from dataclasses import replace

    from lpt_cli.reports.render import summary_lines

    summary = replace(_report().summary, macs_per_position=True,
                      dynamic_inputs={"input_ids": [-1, -1], "attention_mask": [-1, -1], "pixels": [-1, 3, -1, -1]})
    line = next(line for line in summary_lines(summary) if line.startswith("MACs:"))
    assert line.endswith("(give --shape input_ids=1,128 --shape attention_mask=1,128 --shape pixels=1,3,224,224 "
                         "for a full inference)")
