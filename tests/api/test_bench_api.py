"""benchmarks/bench_api.py runs (figures are printed, never asserted)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_api.py"


def test_bench_api_runs_and_import_stays_free_of_openvino() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--repeat", "1"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert "(openvino loaded: no)" in lines[1]
    assert [line.split()[0] for line in lines[3:]] == ["transform", "report"]
