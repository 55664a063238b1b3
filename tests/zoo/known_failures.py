"""The known-failure lists of the parity tests against the CPU plugin, per CPU variant.

A list (known_failing.txt for the zoo, settings_known_failing.txt for the settings sample) has a
line `VARIANT model::check  # detail` for each check that fails today on that variant (the
plugin's kernels depend on AMX/VNNI) and `# recorded: VARIANT` for each variant measured. A
listed check is a strict xfail, so a fix forces the list to be regenerated (update_known_failing.py);
on a variant never recorded, the checks are non-strict xfails.
"""
from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
_NEEDS = ("torch", "torchvision", "timm", "transformers", "onnx", "onnxruntime", "nncf")


def load_benchmark(name: str) -> ModuleType:
    """benchmarks/NAME.py as the module NAME (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def missing_extra() -> str | None:
    """Why the real-export tests cannot run here (the zoo extra is missing), or None."""
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    return f"the zoo extra is not installed ({', '.join(missing)}): pip install -e '.[dev,zoo]'" if missing else None


def known_failing(path: Path, variant: str) -> tuple[dict[str, str], bool]:
    """`model::check` -> reason for this CPU variant, and whether the variant was ever recorded."""
    found, recorded = {}, False
    for line in path.read_text().splitlines():
        if line.startswith("# recorded:"):
            recorded |= line.split()[-1] == variant
            continue
        entry, _, reason = line.partition("#")
        fields = entry.split()
        if len(fields) == 2 and fields[0] == variant:
            found[fields[1]] = reason.strip()
    return found, recorded


def params(path: Path, variant: str, models: Iterable[str], checks: Iterable[str]) -> list[Any]:
    """One pytest param per model and check, a strict xfail when `path` lists it for `variant`."""
    known, recorded = known_failing(path, variant)
    result = []
    for model in models:
        for check in checks:
            key = f"{model}::{check}"
            if not recorded:
                marks = [pytest.mark.xfail(strict=False, reason=f"{path.name} never recorded on {variant}: "
                                                              "run tests/zoo/update_known_failing.py")]
            else:
                marks = [pytest.mark.xfail(strict=True, reason=known[key])] if key in known else []
            result.append(pytest.param(model, check, id=key, marks=marks))
    return result


def write(path: Path, header: str, variant: str, rows: Iterable[Any], checks: Iterable[str]) -> int:
    """Rewrites `path` with the failed checks of `rows` for `variant`, keeping other variants' lines;
    returns how many it lists for `variant`."""
    kept = []  # what other CPU variants recorded
    for line in path.read_text().splitlines() if path.exists() else []:
        fields = line.split()
        recorded_elsewhere = line.startswith("# recorded:") and fields[-1] != variant
        entry_elsewhere = len(fields) >= 2 and "::" in fields[1] and fields[0] != variant
        if recorded_elsewhere or entry_elsewhere:
            kept.append(line)
    checks = list(checks)
    lines = [f"{variant} {row.model}::{check}  # {row.details.get(check, '').replace(chr(10), ' ')[:150]}"
             for row in rows for check in checks if not row.results.get(check)]
    recorded = sorted({*(line for line in kept if line.startswith("# recorded:")), f"# recorded: {variant}"})
    entries = sorted(line for line in kept if not line.startswith("#")) + lines
    path.write_text(header + "".join(f"{line}\n" for line in [*recorded, *entries]))
    return len(lines)
