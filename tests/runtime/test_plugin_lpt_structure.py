"""lpt's LPT result against the CPU plugin's own, op by op: the plugin's model right after its
`low_precision::LowPrecision` pass (OpenVINO's serialize tracing, lpt_cli/runtime/plugin_trace.py)
and lpt's lowp output must have the same ops, and the ops named in both the same output types.

Outputs and kernels agreeing says nothing about ops that only move values (an upsampling, a
Clamp, a FakeQuantize a Concat takes over): this does. The plugin runs capped to AVX2 and lpt
under `cpu-avx2`, which every machine this runs on can do (the plugin honours the cap downward).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.runtime.plugin_trace import differences, plugin_lpt_snapshots

pytestmark = pytest.mark.slow
MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


@pytest.mark.parametrize("name", ["resnet", "mobilenet", "transformer", "detection", "decoder"])
def test_lpt_makes_the_plugin_s_graph(tmp_path: Path, name: str) -> None:
    _, plugin = plugin_lpt_snapshots(MODELS / f"{name}.xml", tmp_path, isa_cap="AVX2")
    graph = read_ir(MODELS / f"{name}.xml")
    run_pipeline(graph, load_config("cpu-avx2"))
    write_ir(graph, tmp_path / "lpt.xml", dialect="lowp")
    assert differences(read_ir(plugin), read_ir(tmp_path / "lpt.xml")) == []
