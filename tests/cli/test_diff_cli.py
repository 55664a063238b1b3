"""`lpt diff`: two models or two configs, formats, and exit 3 when a layer lost low precision."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
DETECTION, DETECTION_FP32 = MODELS / "detection.xml", MODELS / "detection_fp32.xml"


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def report_rows(model: Path, config: str) -> dict[str, dict]:
    result = run("report", model, "--config", config, "--format", "json")
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)["layers"]}


def diff_json(*args: object) -> tuple[int, dict, str]:
    result = run("diff", *args, "--format", "json")
    return result.exit_code, json.loads(result.stdout), result.stderr


def test_one_model_under_two_configs_sides_are_the_reports():
    code, doc, _ = diff_json(DETECTION, "--config", "cpu", "--config", "gpu")
    assert code == 0 and doc["counts"]["lost"] == 0 and doc["layers"]
    assert (doc["a"]["label"], doc["b"]["label"]) == ("cpu", "gpu")
    cpu, gpu = report_rows(DETECTION, "cpu"), report_rows(DETECTION, "gpu")
    for entry in doc["layers"]:
        assert entry["a"] == cpu[entry["name"]] and entry["b"] == gpu[entry["name"]]
        assert entry["a"] != entry["b"]
    listed = {entry["name"] for entry in doc["layers"]}
    same = [name for name in cpu if name not in listed]
    assert same and all(cpu[n]["status"] == gpu[n]["status"] for n in same)


def test_a_config_that_loses_low_precision_exits_3_with_the_reasons():
    code, doc, stderr = diff_json(DETECTION, "--config", "cpu", "--config", "default")
    assert code == 3
    lost = [e for e in doc["layers"] if e["change"] == "lost"]
    assert lost and len(lost) == doc["counts"]["lost"]
    assert all(e["a"]["status"] == "low-precision" and e["b"]["status"] != "low-precision" and e["b"]["reason"]
               for e in lost)
    assert stderr.strip() == f"lpt: {len(lost)} layers lost low precision from A to B"
    back_code, back, _ = diff_json(DETECTION, "--config", "default", "--config", "cpu")
    assert back_code == 0 and back["counts"]["lost"] == 0
    assert {e["name"] for e in back["layers"] if e["change"] == "gained"} == {e["name"] for e in lost}
    # a FakeQuantize the cpu profile's Concat takes over is removed there: no precision to lose
    removed = [e for e in back["layers"] if "removed" in (e["a"]["status"], e["b"]["status"])]
    assert any(e["a"]["status"] == "low-precision" for e in removed)
    assert all(e["change"] == "changed" for e in removed)


def test_two_models():
    code, doc, _ = diff_json(DETECTION, DETECTION_FP32)
    assert code == 3
    assert doc["a"]["model"] == str(DETECTION) and doc["b"]["model"] == str(DETECTION_FP32)
    convs = [e for e in doc["layers"] if e["type"] == "Convolution"]
    assert convs and all(e["change"] == "lost" and e["b"]["status"] == "not-quantized" for e in convs)
    only_a = {e["name"] for e in doc["layers"] if e["change"] == "only-a"}
    rows = report_rows(DETECTION, "cpu")
    assert only_a and all(rows[n]["type"] == "FakeQuantize" for n in only_a)
    back_code, back, _ = diff_json(DETECTION_FP32, DETECTION)
    assert back_code == 0 and {e["name"] for e in back["layers"] if e["change"] == "only-b"} == only_a


def test_a_model_against_itself_differs_nowhere():
    result = run("diff", DETECTION, DETECTION)
    assert result.exit_code == 0, result.output
    assert "no layer differs" in result.stdout and "lost 0, gained 0, changed 0" in result.stdout


def test_markdown_has_one_row_per_differing_layer():
    _, doc, _ = diff_json(DETECTION, "--config", "cpu", "--config", "default")
    result = run("diff", DETECTION, "--config", "cpu", "--config", "default", "--format", "markdown")
    assert result.exit_code == 3
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and not line.startswith("| layer")]
    assert len(rows) == len(doc["layers"])
    assert all(line.count(" | ") == 4 for line in rows)
    assert sum("**lost**" in line for line in rows) == doc["counts"]["lost"]


@pytest.mark.parametrize(("args", "message"), [
    ((DETECTION,), "one model needs two configs"),
    ((DETECTION, "--config", "cpu"), "one model needs two configs"),
    ((DETECTION, DETECTION, DETECTION), "got 3 models"),
    ((DETECTION, "--config", "cpu", "--config", "gpu", "--config", "default"), "got 3 --config"),
    ((DETECTION, "--config", "cpu", "--config", "nope.yaml"), "nope.yaml: no such config file"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    result = run("diff", *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("lpt: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_help_documents_exit_codes():
    text = " ".join(run("diff", "--help").stdout.split())
    assert "Exit codes:" in text and "3 some layer lost low precision from A to B" in text
