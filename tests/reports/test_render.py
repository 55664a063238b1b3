"""The four output formats, and the JSON against report.schema.json."""
from __future__ import annotations

import csv
import io
import json
from importlib import resources

from graphs import declined, original
from lpt_cli.lpt.config import config_from_dict
from lpt_cli.lpt.pipeline import PipelineResult
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.render import CSV_COLUMNS, render

SCHEMA = json.loads(resources.files("lpt_cli.reports").joinpath("report.schema.json").read_text())


def _report():
    return build_report("m.xml", original(), declined(), PipelineResult(), config_from_dict({}), "isa")


def _check(value, schema, defs):
    """Enough of JSON Schema for this file: $ref, const, enum, type, required, properties, items, oneOf."""
    if "$ref" in schema:
        return _check(value, defs[schema["$ref"].split("/")[-1]], defs)
    if "oneOf" in schema:
        matches = 0
        for option in schema["oneOf"]:
            try:
                _check(value, option, defs)
                matches += 1
            except AssertionError:
                pass
        assert matches == 1, (value, schema)
        return None
    assert "const" not in schema or value == schema["const"]
    assert "enum" not in schema or value in schema["enum"], value
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    pytypes = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float),
               "null": type(None), "boolean": bool}
    assert not kinds or any(isinstance(value, pytypes[k]) for k in kinds), (value, kinds)
    if isinstance(value, dict):
        assert set(schema.get("required", ())) <= set(value), schema.get("required")
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            assert set(value) <= set(props), set(value) - set(props)
        for key, item in value.items():
            sub = props.get(key) or (schema.get("additionalProperties") if isinstance(
                schema.get("additionalProperties"), dict) else None)
            if sub:
                _check(item, sub, defs)
    if isinstance(value, list) and "items" in schema:
        for item in value:
            _check(item, schema["items"], defs)
    return None


def test_json_matches_schema():
    doc = json.loads(render(_report(), "json"))
    _check(doc, SCHEMA, SCHEMA["$defs"])
    conv = next(layer for layer in doc["layers"] if layer["name"] == "conv")
    assert conv["status"] == "original-precision" and conv["reason"]["code"]


def test_schema_check_rejects_a_wrong_status():
    doc = json.loads(render(_report(), "json"))
    doc["layers"][0]["status"] = "int8"
    try:
        _check(doc, SCHEMA, SCHEMA["$defs"])
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
