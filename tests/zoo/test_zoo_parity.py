"""Real exports against the CPU plugin: the checks of benchmarks/zoo_parity.py, one test each.

The zoo (fixtures/zoo.py) is built on demand into LPT_ZOO_DIR (default fixtures/cache/zoo) and
needs the `zoo` extra; without it these tests are skipped. Checks that fail today are listed in
known_failing.txt (strict xfails): a fixed check fails the run until the list is regenerated
with `python tests/zoo/update_known_failing.py`.
"""
from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lpt_cli.lpt.engine.config import cpu_variant, read_cpuinfo

ROOT = Path(__file__).resolve().parents[2]
KNOWN_FAILING = Path(__file__).with_name("known_failing.txt")
_NEEDS = ("torch", "torchvision", "timm", "transformers", "onnx", "onnxruntime", "nncf")


def _parity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("zoo_parity", ROOT / "benchmarks" / "zoo_parity.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def known_failing(variant: str) -> tuple[dict[str, str], bool]:
    """`model::check` -> reason for this CPU variant, and whether the variant was ever recorded."""
    found, recorded = {}, False
    for line in KNOWN_FAILING.read_text().splitlines():
        if line.startswith("# recorded:"):
            recorded |= line.split()[-1] == variant
            continue
        entry, _, reason = line.partition("#")
        fields = entry.split()
        if len(fields) == 2 and fields[0] == variant:
            found[fields[1]] = reason.strip()
    return found, recorded


def _missing_extra() -> str | None:
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    return f"the zoo extra is not installed ({', '.join(missing)}): pip install -e '.[dev,zoo]'" if missing else None


parity = _parity() if _missing_extra() is None else None
MODELS = [entry.name for entry in parity.zoo.ZOO] if parity else []
CHECKS = list(parity.CHECKS) if parity else []
VARIANT = cpu_variant(read_cpuinfo())[0]
KNOWN, RECORDED = known_failing(VARIANT)


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


def _params() -> list[Any]:
    params = []
    for model in MODELS:
        for check in CHECKS:
            key = f"{model}::{check}"
            if not RECORDED:
                marks = [pytest.mark.xfail(strict=False, reason=f"zoo parity never recorded on {VARIANT}: "
                                                              "run tests/zoo/update_known_failing.py")]
            else:
                marks = [pytest.mark.xfail(strict=True, reason=KNOWN[key])] if key in KNOWN else []
            params.append(pytest.param(model, check, id=key, marks=marks))
    return params


@pytest.mark.slow
@pytest.mark.zoo
@pytest.mark.skipif(parity is None, reason=_missing_extra() or "")
@pytest.mark.parametrize("model, check", _params())
def test_parity(rows: dict[str, Any], model: str, check: str) -> None:
    row = _row(rows, model)
    assert row.results[check], row.details.get(check, "")


def test_known_failing_list_names_real_checks() -> None:
    """Every entry of known_failing.txt is a zoo model and a check that exist."""
    if parity is None:
        pytest.skip(_missing_extra() or "")
    for variant in ("cpu-vnni", "cpu-amx"):
        for key in known_failing(variant)[0]:
            model, _, check = key.partition("::")
            assert model in MODELS and check in CHECKS, key
