"""A bounded run of the mutation fuzzer (benchmarks/fuzz.py): no mutated input may end in a defect."""
from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz.py"


@pytest.mark.slow
def test_bounded_fuzz_run_has_no_defects(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("lpt_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules["lpt_fuzz"] = fuzz  # the worker processes unpickle its functions by module name
    spec.loader.exec_module(fuzz)
    records = fuzz.fuzz(runs=350, configs=100, seed=2026, jobs=2, defects=tmp_path / "defects")
    classes = Counter(r["cls"] for r in records)
    defects = [f"#{r['index']} {r['kind']}: {r['why']} -> {r['saved']}" for r in records if r["cls"] == "DEFECT"]
    assert defects == []
    assert len(records) == 450
    assert classes["ok"] > 50 and classes["clean error"] > 200  # the harness really runs and checks
