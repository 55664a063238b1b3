"""benchmarks/bench_transform.py still runs: its quick scaling section, as a subprocess.

No timing is asserted (the figures depend on machine load); only that it exits 0 and
prints its table and verdict.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_transform.py"


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
