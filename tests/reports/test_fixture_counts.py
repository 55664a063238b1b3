"""On every checked-in fixture, the report counts the weightable layers the CPU plugin runs in INT8.

Regression for issue 5: Convolutions behind LPT's activation zero-point Subtract were
reported as original precision although the plugin runs them u8.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lpt_cli.isa import CAP_VARIABLES, isa_levels, read_cpuinfo
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.model import ORIGINAL
from lpt_cli.reports.topology import WEIGHTABLE

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "fixtures" / "models"
FIXTURES = ("resnet", "mobilenet", "transformer", "detection", "decoder")


@pytest.mark.parametrize("name", FIXTURES)
def test_no_quantized_weightable_layer_is_left_in_float(name):
    rows = analyze(MODELS / f"{name}.xml", load_config("cpu")).report.layers
    assert [r.name for r in rows if r.type in WEIGHTABLE and r.status == ORIGINAL] == []


def test_mobilenet_is_entirely_low_precision():
    summary = analyze(MODELS / "mobilenet.xml", load_config("cpu")).report.summary
    assert (summary.weightable_low_precision, summary.weightable) == (17, 17)
    assert summary.low_precision_share == 100.0


def _runtime_report(model: Path, cap: str | None) -> dict:
    """`lpt report --config cpu --runtime CPU --format json` in a child process whose plugin (and
    `cpu` resolution) runs under ONEDNN_MAX_CPU_ISA=`cap` (None: this CPU as it is)."""
    env = {k: v for k, v in os.environ.items() if k not in CAP_VARIABLES}
    if cap:
        env[CAP_VARIABLES[0]] = cap
    done = subprocess.run([sys.executable, "-m", "lpt_cli", "report", str(model), "--config", "cpu", "--format", "json",
                           "--runtime", "CPU"], capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("profile, cap", isa_levels(read_cpuinfo()), ids=lambda v: v or "native")
@pytest.mark.parametrize("name", FIXTURES)
def test_static_weightable_count_equals_the_cpu_plugin(name, profile, cap):
    """On each ISA level this CPU can run the plugin at (lpt_cli/isa.py, isa_levels)."""
    doc = _runtime_report(MODELS / f"{name}.xml", cap)
    assert doc["summary"]["profile"].startswith(f"cpu (resolved to {profile}: ")
    ran_low = [layer["name"] for layer in doc["runtime"]["layers"]
               if layer["type"] in WEIGHTABLE and (layer["transformed"] or {}).get("low_precision")]
    assert doc["summary"]["weightable_low_precision"] == len(ran_low)
    assert not set(doc["runtime"]["disagreements"]) & set(ran_low)
