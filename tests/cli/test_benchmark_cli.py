"""`lpt benchmark`: original vs lpt vs fp32 on CPU; a device that is not here is exit 2."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from lpt_cli.cli.benchmark_cmd import benchmark
from lpt_cli.cli.main import LptGroup
from lpt_cli.runtime.device import core


def run(*args: str):
    group = LptGroup("lpt")
    group.add_command(benchmark)
    return CliRunner().invoke(group, ["benchmark", *map(str, args)])


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tiny_models):
    folder = tmp_path_factory.mktemp("bench")
    tiny_models.conv(folder)
    tiny_models.conv(folder, fp32=True, name="conv_fp32")
    return folder


def test_three_models_measured(folder):
    result = run(folder / "conv.xml", "--fp32", folder / "conv_fp32.xml", "--time", "0.2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for label in ("original (FakeQuantize)", "lpt-transformed", "fp32 reference", "vs fp32", "p90 (ms)"):
        assert label in out
    assert "INFERENCE_PRECISION_HINT: f32" in out
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:4]]
            for line in out.splitlines() if line.startswith("│")}
    assert rows["original (FakeQuantize)"] == ["f32", "1"]  # the conv runs an INT8 kernel
    assert rows["fp32 reference"] == ["f32", "0"]
    assert "ISA: " in out and "INT8 acceleration:" in out
    original_row = next(line for line in out.splitlines() if "original (FakeQuantize)" in line)
    assert "1.00x" in original_row


def test_missing_gpu_is_one_line_exit_2(folder):
    if any(d.startswith("GPU") for d in core().available_devices):
        pytest.skip("this machine has a GPU")
    result = run(folder / "conv.xml", "-d", "GPU", "--time", "0.1")
    assert result.exit_code == 2
    assert result.stderr.startswith("lpt: error: device GPU is not available") and result.stderr.count("\n") == 1


def test_help_documents_exit_codes():
    text = run("--help").stdout
    assert "Exit codes:" in text and "2  bad input" in text
