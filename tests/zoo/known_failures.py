"""The known-failure lists of the parity tests against the CPU plugin, per CPU profile.

A list (known_failing.txt for the zoo, settings_known_failing.txt for the settings sample) has a
line `PROFILE model::check  # reason` for each check that fails today on that CPU profile (the
plugin's kernels depend on the ISA, lpt_cli/isa.py) and `# recorded: PROFILE` for each profile
measured, on a CPU of that profile or one capped to it with ONEDNN_MAX_CPU_ISA. A listed check is
a strict xfail, so a fix forces the list to be regenerated (update_known_failing.py); every other
check of every profile, recorded or not, must pass.
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


def entries(path: Path) -> list[tuple[str, str, str]]:
    """(profile, `model::check`, reason) for every line of the list."""
    found = []
    for line in path.read_text().splitlines() if path.exists() else []:
        entry, _, reason = line.partition("#")
        fields = entry.split()
        if len(fields) == 2:
            found.append((fields[0], fields[1], reason.strip()))
    return found


def known_failing(path: Path, profile: str) -> dict[str, str]:
    """`model::check` -> reason, for the checks known to fail on CPU profile `profile`."""
    return {key: reason for listed, key, reason in entries(path) if listed == profile}


def params(path: Path, levels: Iterable[tuple[str, str | None]], names: Iterable[str],
           checks: Iterable[str]) -> list[Any]:
    """One pytest param (cap, name, check) per ISA level, model and check; a strict xfail where
    `path` lists the check for the level's profile."""
    result = []
    names, checks = list(names), list(checks)
    for profile, cap in levels:
        known = known_failing(path, profile)
        for name in names:
            for check in checks:
                key = f"{name}::{check}"
                marks = [pytest.mark.xfail(strict=True, reason=known[key])] if key in known else []
                result.append(pytest.param(cap, name, check, id=f"{profile}:{key}", marks=marks))
    return result


def write(path: Path, header: str, profile: str, rows: Iterable[Any], checks: Iterable[str]) -> int:
    """Rewrites `path` with the failed checks of `rows` for `profile`, keeping other profiles' lines;
    returns how many it lists for `profile`."""
    kept = []  # what other CPU profiles recorded
    for line in path.read_text().splitlines() if path.exists() else []:
        fields = line.split()
        recorded_elsewhere = line.startswith("# recorded:") and fields[-1] != profile
        entry_elsewhere = len(fields) >= 2 and "::" in fields[1] and fields[0] != profile
        if recorded_elsewhere or entry_elsewhere:
            kept.append(line)
    checks = list(checks)
    lines = [f"{profile} {row.model}::{check}  # {row.details.get(check, '').replace(chr(10), ' ')[:150] or 'failed'}"
             for row in rows for check in checks if not row.results.get(check)]
    recorded = sorted({*(line for line in kept if line.startswith("# recorded:")), f"# recorded: {profile}"})
    listed = sorted(line for line in kept if not line.startswith("#")) + lines
    path.write_text(header + "".join(f"{line}\n" for line in [*recorded, *listed]))
    return len(lines)
