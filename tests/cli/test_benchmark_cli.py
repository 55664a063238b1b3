"""`lpt benchmark`: original vs lpt vs fp32 on CPU; a device that is not here is exit 2."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from lpt_cli.cli.benchmark_cmd import benchmark
from lpt_cli.cli.main import LptGroup
from lpt_cli.runtime.device import core


def run(*args: str, columns: int = 200):
    group = LptGroup("lpt")
    group.add_command(benchmark)
    return CliRunner().invoke(group, ["benchmark", *map(str, args)], env={"COLUMNS": str(columns)})


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
    assert "ISA: " in out and "(--config cpu: cpu-" in out
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
    assert "Exit codes:" in text and "2    bad input" in text and "130  interrupted" in text


def test_spread_and_mode_are_shown(folder):
    result = run(folder / "conv.xml", "--time", "0.2")
    assert result.exit_code == 0, result.output
    for label in ("min (ms)", "median (ms)", "95% CI (ms)", "p90 (ms)"):
        assert label in result.stdout
    assert "mode: sync, 1 request(s) in flight, PERFORMANCE_HINT latency, 0.2 s per model, round robin" in result.stdout


def test_async_mode_with_requests_in_flight(folder):
    result = run(folder / "conv.xml", "--api", "async", "--nireq", "3", "-t", "0.2")
    assert result.exit_code == 0, result.output
    assert "mode: async, 3 request(s) in flight, PERFORMANCE_HINT throughput" in result.stdout


def test_nireq_needs_async(folder):
    result = run(folder / "conv.xml", "--nireq", "2")
    assert result.exit_code == 2
    assert result.stderr == "lpt: error: --nireq: needs --api async (sync runs one request at a time)\n"


def test_table_fits_80_columns_turned(folder):
    result = run(folder / "conv.xml", "--fp32", folder / "conv_fp32.xml", "--time", "0.2", columns=80)
    assert result.exit_code == 0, result.output
    table = result.stdout.split("mode:")[0].splitlines()
    assert max(map(len, table)) <= 80
    assert "(FakeQuantize)" in result.stdout and "transformed" in result.stdout and "reference" in result.stdout
    assert any(line.split()[:2] == ["INT8", "kernels"] for line in table)


def test_ctrl_c_prints_what_was_measured_and_exits_130(folder, monkeypatch):
    from lpt_cli.runtime import bench

    original_run_for = bench._Runner.run_for
    calls = []

    def interrupted_on_second_turn(self, seconds):
        calls.append(self)
        if len(calls) == 2:
            raise KeyboardInterrupt
        original_run_for(self, seconds)

    monkeypatch.setattr(bench._Runner, "run_for", interrupted_on_second_turn)
    result = run(folder / "conv.xml", "--fp32", folder / "conv_fp32.xml", "--time", "5")
    assert result.exit_code == 130
    assert "original (FakeQuantize)" in result.stdout  # measured in the first turn
    assert "lpt-transformed" not in result.stdout and "fp32 reference" not in result.stdout
    assert result.stderr.strip().startswith("lpt: interrupted: measured original (FakeQuantize) 0.")
    assert "Aborted" not in result.output


def _result(median: float, interval: tuple[float, float], throughput: float):
    from lpt_cli.runtime.bench import BenchResult

    return BenchResult(1000, 1.0, throughput, 0.2, median, 0.3, interval)


@pytest.mark.parametrize("columns", [250, 80])
def test_vs_original_is_from_the_medians_and_overlap_is_no_measured_difference(columns):
    """Throughput said 0.32x where the medians were 0.224 (original) and 0.211 ms (lpt): the
    loop's own time weighs on a 0.2 ms model. The medians say 1.06x; an fp32 model whose
    median's interval overlaps the original's is no measured difference."""
    from lpt_cli.cli.benchmark_cmd import FP32, ORIGINAL, TRANSFORMED, _table

    results = {ORIGINAL: _result(0.224, (0.222, 0.226), 3000.0), TRANSFORMED: _result(0.211, (0.209, 0.213), 960.0),
               FP32: _result(0.225, (0.220, 0.230), 2900.0)}
    text = _table(results, {label: ("f32", "1") for label in results}, columns)
    assert "0.32x" not in text and "1.06x" in text
    assert max(map(len, text.splitlines())) <= columns
    if columns == 250:
        fp32_row = next(line for line in text.splitlines() if FP32 in line)
        assert "no measured difference" in fp32_row
    else:  # turned: one column per model, the words on two lines
        assert "no measured" in text and "difference" in text
