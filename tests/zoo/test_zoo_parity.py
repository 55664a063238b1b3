"""Real exports against the CPU plugin: the checks of benchmarks/zoo_parity.py, one test each.

The zoo (fixtures/zoo.py) is built on demand into LPT_ZOO_DIR (default fixtures/cache/zoo) and
needs the `zoo` extra; without it these tests are skipped. Checks that fail today are listed in
known_failing.txt (strict xfails): a fixed check fails the run until the list is regenerated
with `python tests/zoo/update_known_failing.py`.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from known_failures import known_failing, load_benchmark, missing_extra, params

from lpt_cli.lpt.engine.config import cpu_variant, read_cpuinfo

KNOWN_FAILING = Path(__file__).with_name("known_failing.txt")

parity = load_benchmark("zoo_parity") if missing_extra() is None else None
MODELS = [entry.name for entry in parity.zoo.ZOO] if parity else []
CHECKS = list(parity.CHECKS) if parity else []
VARIANT = cpu_variant(read_cpuinfo())[0]


@pytest.fixture(scope="session")
def rows() -> dict[str, Any]:
    """Rows computed on first use, one per model (building the model if needed)."""
    return {}


def _row(rows: dict[str, Any], model: str) -> Any:
    if model not in rows:
        assert parity is not None
        folder = parity.zoo.DEFAULT_DIR
        entry = next(e for e in parity.zoo.ZOO if e.name == model)
        parity.zoo.build(entry, folder)
        with tempfile.TemporaryDirectory(prefix="lpt-zoo-") as work:
            rows[model] = parity.check_model(model, folder, Path(work))
    return rows[model]


@pytest.mark.slow
@pytest.mark.zoo
@pytest.mark.skipif(parity is None, reason=missing_extra() or "")
@pytest.mark.parametrize("model, check", params(KNOWN_FAILING, VARIANT, MODELS, CHECKS))
def test_parity(rows: dict[str, Any], model: str, check: str) -> None:
    row = _row(rows, model)
    assert row.results[check], row.details.get(check, "")


def test_known_failing_list_names_real_checks() -> None:
    """Every entry of known_failing.txt is a zoo model and a check that exist."""
    if parity is None:
        pytest.skip(missing_extra() or "")
    for variant in ("cpu-vnni", "cpu-amx"):
        for key in known_failing(KNOWN_FAILING, variant)[0]:
            model, _, check = key.partition("::")
            assert model in MODELS and check in CHECKS, key
