"""`lpt diff --format json` and the several-models `lpt report --format json` against their schemas."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from schema_check import check_document, load_schema

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def _json(*args: object) -> dict:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.stdout)


def test_diff_json_matches_its_schema():
    schema = load_schema("diff.schema.json")
    for doc in (_json("diff", MODELS / "detection.xml", "--config", "cpu", "--config", "default", "--format", "json"),
                _json("diff", MODELS / "detection.xml", MODELS / "detection_fp32.xml", "--format", "json")):
        check_document(doc, schema)
        assert {e["change"] for e in doc["layers"]} >= {"lost"}


def test_several_models_json_matches_its_schema():
    doc = _json("report", MODELS / "resnet.xml", MODELS / "resnet_fp32.xml", "--format", "json", "--fail-under", "50")
    check_document(doc, load_schema("many.schema.json"))
    assert [m["passed"] for m in doc["models"]] == [True, False]


def test_the_schemas_reject_a_wrong_document():
    doc = _json("diff", MODELS / "detection.xml", "--config", "cpu", "--config", "default", "--format", "json")
    doc["layers"][0]["change"] = "worse"
    with pytest.raises(AssertionError):
        check_document(doc, load_schema("diff.schema.json"))
    doc = _json("report", MODELS / "resnet.xml", MODELS / "mobilenet.xml", "--format", "json")
    del doc["models"][0]["summary"]["low_precision_share"]
    with pytest.raises(AssertionError):
        check_document(doc, load_schema("many.schema.json"))


@pytest.mark.slow
def test_transform_check_json_matches_its_schema_passed_or_not(tmp_path, break_pipeline):
    schema = load_schema("transform.schema.json")
    args = ["transform", str(MODELS / "resnet.xml"), "--check", "--format", "json", "-o", str(tmp_path / "o.xml")]
    passed = CliRunner().invoke(main, args)
    assert passed.exit_code == 0, passed.output
    check_document(json.loads(passed.stdout), schema)
    break_pipeline("constant")
    failed = CliRunner().invoke(main, args)
    assert failed.exit_code == 4, failed.output
    doc = json.loads(failed.stdout)
    check_document(doc, schema)
    assert doc["check"]["passed"] is False and not (tmp_path / "o.xml").exists()
