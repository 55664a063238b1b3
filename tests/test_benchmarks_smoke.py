"""The benchmark scripts still run, as subprocesses: bench_transform's and bench_scaling's
quick scaling sections, bench_pipeline, bench_process and bench_io --split on a small IR. All are marked
slow: each builds models of thousands of nodes or compiles with OpenVINO, and none checks lpt's behaviour.

No timing is asserted (the figures depend on machine load); only that each exits 0 and
prints its tables and verdicts.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_transform.py"
pytestmark = pytest.mark.slow


def test_bench_transform_quick_scaling_runs() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--quick", "--only", "scaling"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "bench_transform: quick run" in out
    assert "== scaling: pipeline alone on 1x / 4x / 16x residual blocks ==" in out
    assert "load average" in out
    assert "blocks  nodes" in out and "cpu/node" in out
    assert "growth exponent" in out
    assert "== transform" not in out and "== runtime" not in out  # --only honoured


def test_bench_scaling_quick_deep_runs() -> None:
    script = BENCH.with_name("bench_scaling.py")
    done = subprocess.run([sys.executable, str(script), "--quick", "--shape", "deep", "--repeat", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "== deep: pipeline CPU time per node ==" in done.stdout and "== wide" not in done.stdout
    assert done.stdout.count(" us/node") == 1 and "growth exponent" in done.stdout


def test_bench_process_runs_on_a_given_ir(tmp_path: Path) -> None:
    script = BENCH.with_name("bench_process.py")
    model = BENCH.parents[1] / "fixtures" / "models" / "resnet.xml"
    done = subprocess.run([sys.executable, str(script), str(model), "--repeat", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "lpt transform --help" in out and "PYTHONDONTWRITEBYTECODE=1" in out
    assert "resnet.xml" in out and "compile process CPU" in out and "copy of the .bin" in out
    assert "== memory" not in out  # only with --big


def test_bench_pipeline_runs_on_a_given_ir() -> None:
    script = BENCH.with_name("bench_pipeline.py")
    model = BENCH.parents[1] / "fixtures" / "models" / "resnet.xml"
    done = subprocess.run([sys.executable, str(script), str(model), "--repeat", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("resnet.xml")]
    assert len(rows) == 1 and rows[0][1] == "this" and len(rows[0]) == 5  # process, first, warm


def test_bench_io_split_runs_on_a_given_ir() -> None:
    script = BENCH.with_name("bench_io.py")
    model = BENCH.parents[1] / "fixtures" / "models" / "resnet.xml"
    done = subprocess.run([sys.executable, str(script), "--split", str(model), "--repeat", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("resnet.xml")]
    assert len(rows) == 1 and all(part in rows[0] for part in ("read_ir", "legalize", "write_ir", "copy of the .bin"))


def test_bench_llm_builds_an_llm_shaped_model_that_lpt_transforms_exactly(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        import bench_llm
    finally:
        sys.path.remove(str(BENCH.parent))
    from lpt_cli.api import transform_file

    xml = bench_llm.build(tmp_path / "llm.xml", 2, symmetric=False, hidden=32, ffn=64)
    done = transform_file(xml, tmp_path / "out.xml", "cpu", check=True)  # CheckFailed if the output differs
    assert done.result.applied["MatMulTransformation"] == 14  # q, k, v, o, gate, up, down per block
    bench_llm.measure(xml, symmetric=False, repeat=1)
    out = capsys.readouterr().out
    assert "cp of the .bin" in out and "lpt transform --config cpu --dialect runtime -q" in out and "peak RSS" in out
