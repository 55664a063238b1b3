"""`lpt report`: formats, --fail-under exit codes, --layer, --runtime CPU against the plugin."""
from __future__ import annotations

import subprocess
import sys
import json

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import LptGroup
from lpt_cli.cli.report_cmd import report


def run(*args: str):
    group = LptGroup("lpt")
    group.add_command(report)
    return CliRunner().invoke(group, ["report", *map(str, args)])


@pytest.fixture(scope="module")
def models(tmp_path_factory, tiny_models):
    folder = tmp_path_factory.mktemp("report")
    nothing = folder / "nothing.yaml"  # a config that runs no transformation: nothing goes INT8
    nothing.write_text("transformations:\n  only: []\n")
    return {"conv": tiny_models.conv(folder), "nothing": nothing}


def test_json_report_has_a_reason_for_every_layer_left_in_float(models):
    result = run(models["conv"], "--format", "json", "--config", models["nothing"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    by_name = {layer["name"]: layer for layer in doc["layers"]}
    assert set(by_name) == {"fq_in", "conv", "relu", "softmax"}
    assert by_name["conv"]["status"] == "original-precision"
    assert by_name["conv"]["reason"]["code"] == "transformation_disabled"
    assert by_name["softmax"]["status"] == "not-quantized"
    assert doc["summary"]["low_precision_share"] == 0.0


@pytest.mark.parametrize(("threshold", "code"), [("0", 0), ("1", 3)])
def test_fail_under(models, threshold, code):
    result = run(models["conv"], "--config", models["nothing"], "--format", "csv", "--fail-under", threshold)
    assert result.exit_code == code
    if code:
        assert "below --fail-under 1%" in result.stderr


def test_fail_under_passes_on_the_default_pipeline(models):
    result = run(models["conv"], "--format", "json", "--fail-under", "100")
    share = json.loads(result.stdout)["summary"]["low_precision_share"]
    assert result.exit_code == (0 if share >= 100 else 3)


def test_layer_shows_the_chain_before_and_after(models):
    result = run(models["conv"], "--config", models["nothing"], "--layer", "conv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("conv (Convolution): original-precision")
    assert lines.index("before LPT:") < lines.index("after LPT:")
    assert any("FakeQuantize 'fq_in'" in line and line.strip().startswith("in 0:") for line in lines)


def test_unknown_layer_is_one_line_exit_2(models):
    result = run(models["conv"], "--layer", "convv")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "did you mean: conv" in result.stderr


def test_runtime_comparison_lists_disagreements(models):
    # lpt runs nothing, so it predicts f32; OpenVINO's own LPT still runs the conv in INT8.
    result = run(models["conv"], "--config", models["nothing"], "--runtime", "CPU")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "layerName" in out and "realTime (ms)" in out and "cpuTime (ms)" in out
    disagreements = out[out.index("disagreements:"):].splitlines()
    assert not disagreements[0].startswith("disagreements: 0")
    assert any(line.strip().startswith("conv (Convolution): predicted original-precision") for line in disagreements)


def test_runtime_on_a_missing_device(models):
    result = run(models["conv"], "--runtime", "NPU4000")
    assert result.exit_code == 2
    assert "device NPU4000 is not available" in result.stderr


def test_help_documents_exit_codes():
    text = " ".join(run("--help").stdout.split())
    assert "Exit codes:" in text and "3 the low-precision share" in text


def test_commands_load_without_openvino():
    # `lpt --help` must stay fast: openvino (about a second) loads only when a command runs a model.
    code = ("import sys, lpt_cli.cli.report_cmd, lpt_cli.cli.verify_cmd, lpt_cli.cli.benchmark_cmd; "
            "sys.exit('openvino' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_json_with_runtime_has_a_runtime_section(models):
    result = run(models["conv"], "--config", models["nothing"], "--runtime", "CPU", "--format", "json")
    assert result.exit_code == 0, result.output
    runtime = json.loads(result.stdout)["runtime"]  # stdout stays one JSON document
    assert runtime["device"] == "CPU" and "conv" in runtime["disagreements"]
    conv = next(layer for layer in runtime["layers"] if layer["name"] == "conv")
    assert conv["original"]["low_precision"] and not conv["original"]["fused"]


def _dynamic_conv(folder):
    """x [?,3,?,?] -> FakeQuantize -> Convolution(8 filters 3x3, pad 1) with quantized weights."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(ov.PartialShape([-1, 3, -1, -1]), np.float32, name="x")
    act = ops.fake_quantize(x, 0.0, 2.55, 0.0, 2.55, 256)
    w = ops.fake_quantize(ops.constant(np.random.default_rng(0).uniform(-1, 1, (8, 3, 3, 3)).astype(np.float32)),
                          -1.0, 1.0, -1.0, 1.0, 255)
    conv = ops.convolution(act, w, [1, 1], [1, 1], [1, 1], [1, 1])
    path = folder / "dyn_conv.xml"
    ov.save_model(ov.Model([conv], [x], "dyn_conv"), path)
    return path


def test_shape_gives_macs_of_a_full_inference(tmp_path):
    model = _dynamic_conv(tmp_path)
    per_position = run(model, "--format", "json")
    assert per_position.exit_code == 0, per_position.output
    summary = json.loads(per_position.stdout)["summary"]
    assert summary["macs_per_position"] is True and summary["macs_total"] == 8 * 3 * 3 * 3
    full = run(model, "--format", "json", "--shape", "x=1,3,16,16")
    summary = json.loads(full.stdout)["summary"]
    assert summary["macs_per_position"] is False and summary["macs_total"] == 16 * 16 * 8 * 3 * 3 * 3
    text = " ".join(run(model).stdout.split())  # the summary line, unwrapped
    assert "MACs are per output position (give --shape x=1,3,224,224 for a full inference)" in text
    bad = run(model, "--shape", "x=1,3,2")
    assert bad.exit_code == 2 and bad.stderr.startswith("lpt: error: --shape: the model cannot take these shapes")


@pytest.mark.parametrize("config, isa", [("cpu-amx", "avx512_core_amx"), ("cpu-vnni", "avx512_core_vnni"),
                                         ("gpu", "none (not a CPU plugin profile: no kernel rules)")])
def test_the_isa_line_is_the_profiles_not_the_hosts(models, config, isa):
    result = run(str(models["conv"]), "--config", config)
    assert result.exit_code == 0, result.output
    assert f"ISA: {isa}\n" in result.output
    doc = json.loads(run(str(models["conv"]), "--config", config, "--format", "json").output)
    assert doc["summary"]["isa"] == isa
