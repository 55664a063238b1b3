"""Machine-readable output is one document: CSV that a CSV reader takes whole, JSON that
json.loads takes, markdown without plain text after it, JUnit XML; `--layer` and `--runtime`
inside it; transform's JSON says which layers it lists."""
from __future__ import annotations

import csv
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import load_module
from lpt_cli.cli.main import main
from lpt_cli.reports.compare import RUNTIME_CSV_COLUMNS
from lpt_cli.reports.render import CSV_COLUMNS

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
RESNET = MODELS / "resnet.xml"
_SCHEMAS = load_module(Path(__file__).parents[1] / "reports" / "schema_check.py", "schema_check")
check_document, load_schema = _SCHEMAS.check_document, _SCHEMAS.load_schema


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "80"})


def _csv(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert len({len(row) for row in rows}) == 1, {len(row) for row in rows}  # one table, nothing after it
    return rows


@pytest.mark.slow
def test_runtime_is_inside_the_one_document_of_every_format(tiny_models, tmp_path):
    model = tiny_models.conv(tmp_path)
    rows = _csv(run("report", model, "--runtime", "CPU", "--format", "csv").stdout)
    assert tuple(rows[0]) == CSV_COLUMNS + RUNTIME_CSV_COLUMNS
    conv = dict(zip(rows[0], next(row for row in rows if row[0] == "conv")))
    assert conv["runtime_lpt"].endswith("_I8)") and conv["disagrees"] == "no"
    doc = json.loads(run("report", model, "--runtime", "CPU", "--format", "json").stdout)
    check_document(doc, load_schema("report.schema.json"))
    assert doc["runtime"]["int8_kernels"]["transformed"] == {"Convolution": 1}
    markdown = run("report", model, "--runtime", "CPU", "--format", "markdown").stdout
    assert markdown.startswith("# LPT report:") and "## Static prediction vs runtime precision on CPU" in markdown
    assert markdown.count("```") == 4 and markdown.rstrip().endswith("```")  # the counters, fenced, last
    assert "\nlayerName" in markdown and "\nperformance counters" not in markdown
    layer = run("report", model, "--runtime", "CPU", "--layer", "conv")  # that layer's part only
    counters = [line.split()[0] for line in layer.stdout.splitlines() if " EXECUTED " in line or " NOT_RUN " in line]
    assert counters and set(counters) == {"conv"}
    doc = json.loads(run("report", model, "--runtime", "CPU", "--layer", "conv", "--format", "json").stdout)
    assert [row["name"] for row in doc["runtime"]["layers"]] == ["conv"]


def test_layer_honours_the_format():
    doc = json.loads(run("report", RESNET, "--layer", "conv_32", "--format", "json").stdout)
    assert doc["layer"]["name"] == "conv_32" and doc["layer"]["status"] == "low-precision"
    assert doc["before"]["inputs"][0]["chain"][0]["name"] == "relu_30/fq_output_0"
    assert doc["after"]["inputs"][0]["chain"][0]["precision"] == "u8"
    after = [step["name"] for step in doc["after"]["consumers"][0]["chain"]]
    assert "relu_35/fq_output_0" in after and "relu_35" not in after  # the plugin fuses a Relu into its FakeQuantize
    rows = _csv(run("report", RESNET, "--layer", "conv_32", "--format", "csv").stdout)
    assert tuple(rows[0]) == CSV_COLUMNS and [row[0] for row in rows[1:]] == ["conv_32"]
    markdown = run("report", RESNET, "--layer", "conv_32", "--format", "markdown").stdout
    assert markdown.startswith("# LPT report: ") and "| conv_32 | Convolution |" in markdown
    assert "## After LPT" in markdown and markdown.count("```") == 4


def test_summary_only_is_the_summary_as_csv(tmp_path):
    rows = _csv(run("report", RESNET, "--summary-only", "--format", "csv").stdout)
    assert rows[0][:2] == ["model", "layers"] and [row[0] for row in rows[1:]] == [str(RESNET), "total (1 model)"]
    full = json.loads(run("report", RESNET, "--format", "json").stdout)["summary"]
    assert rows[1][1] == str(full["layers"]) and rows[1][6] == f"{full['low_precision_share']:.2f}"
    doc = json.loads(run("report", RESNET, "--summary-only", "--format", "json").stdout)
    check_document(doc, load_schema("many.schema.json"))
    refused = run("report", RESNET, "--summary-only", "--layer", "conv_32")
    assert refused.exit_code == 2 and "--layer is for one model's full report, not --summary-only" in refused.stderr


def test_junit_has_a_test_case_per_model_and_a_failure_under_fail_under(tmp_path):
    for name in ("resnet", "resnet_fp32"):
        for suffix in (".xml", ".bin"):
            shutil.copy(MODELS / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    result = run("report", tmp_path, "--format", "junit", "--fail-under", "90")
    assert result.exit_code == 3
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"resnet.xml", "resnet_fp32.xml"}
    failure = cases["resnet_fp32.xml"].find("failure")
    assert failure is not None and "is below --fail-under 90%" in failure.get("message")
    assert cases["resnet.xml"].find("failure") is None
    assert "weightable layers in low precision: 10/10" in cases["resnet.xml"].find("system-out").text
    one = ET.fromstring(run("report", RESNET, "--format", "junit").stdout)  # one model: one case
    assert [case.get("file") for case in one.iter("testcase")] == [str(RESNET)]


def test_transform_json_says_which_layers_it_lists(tmp_path):
    result = run("transform", RESNET, "--format", "json", "-o", tmp_path / "o.xml")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    check_document(doc, load_schema("transform.schema.json"))
    assert len(doc["layers"]) == 43 and doc["layers_in"] == 148
    assert len(doc["layers"]) + sum(doc["layers_not_listed"].values()) == doc["layers_in"]
    assert doc["layers_not_listed"]["parameter"] == 1 and doc["layers_not_listed"]["weights_and_constant_subgraphs"]


def test_transform_quiet_and_json_are_one_or_the_other(tmp_path):
    result = run("transform", RESNET, "--format", "json", "-q", "-o", tmp_path / "o.xml")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == "lpt: error: --quiet prints nothing, --format json prints the summary: give one of them\n"
    assert not (tmp_path / "o.xml").exists()
