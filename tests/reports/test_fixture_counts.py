"""On every checked-in fixture, the report counts the weightable layers the CPU plugin runs in INT8.

Regression for issue 5: Convolutions behind LPT's activation zero-point Subtract were
reported as original precision although the plugin runs them u8.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import LptGroup
from lpt_cli.cli.report_cmd import report
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.model import ORIGINAL
from lpt_cli.reports.topology import WEIGHTABLE

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
FIXTURES = ("resnet", "mobilenet", "transformer", "detection", "decoder")


@pytest.mark.parametrize("name", FIXTURES)
def test_no_quantized_weightable_layer_is_left_in_float(name):
    rows = analyze(MODELS / f"{name}.xml", load_config("cpu")).report.layers
    assert [r.name for r in rows if r.type in WEIGHTABLE and r.status == ORIGINAL] == []


def test_mobilenet_is_entirely_low_precision():
    summary = analyze(MODELS / "mobilenet.xml", load_config("cpu")).report.summary
    assert (summary.weightable_low_precision, summary.weightable) == (17, 17)
    assert summary.low_precision_share == 100.0


def _runtime_report(model: Path) -> dict:
    group = LptGroup("lpt")
    group.add_command(report)
    result = CliRunner().invoke(group, ["report", str(model), "--format", "json", "--runtime", "CPU"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("name", FIXTURES)
def test_static_weightable_count_equals_the_cpu_plugin(name):
    doc = _runtime_report(MODELS / f"{name}.xml")
    ran_low = [layer["name"] for layer in doc["runtime"]["layers"]
               if layer["type"] in WEIGHTABLE and (layer["transformed"] or {}).get("low_precision")]
    assert doc["summary"]["weightable_low_precision"] == len(ran_low)
    assert not set(doc["runtime"]["disagreements"]) & set(ran_low)
