"""Real exports against the CPU plugin: the checks of benchmarks/zoo_parity.py, one test each,
for each ISA this machine can run the plugin at.

The zoo (fixtures/zoo.py) is built on demand into LPT_ZOO_DIR (default fixtures/cache/zoo) and
needs the `zoo` extra; without it these tests are skipped. The ISA matrix: on a CPU with more
than AVX2, the plugin also runs capped at each lower ISA lpt tells apart (ONEDNN_MAX_CPU_ISA=AVX2,
AVX2_VNNI, AVX512_CORE_VNNI: it honours the cap only downward), each time in child processes with
the cap set and `cpu` resolved under it (lpt_cli/isa.py); an AVX2-only machine has one level. A
level runs strict: the checks known to fail on its profile are listed in known_failing.txt with
their reason (strict xfails, so a fixed check fails the run until the list is regenerated with
`python tests/zoo/update_known_failing.py [--isa-cap ISA]`); a profile never recorded has none.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from known_failures import entries, load_benchmark, missing_extra, params

from lpt_cli.isa import CPU_PROFILE, isa_levels, read_cpuinfo

KNOWN_FAILING = Path(__file__).with_name("known_failing.txt")

parity = load_benchmark("zoo_parity") if missing_extra() is None else None
MODELS = [entry.name for entry in parity.zoo.ZOO] if parity else []
CHECKS = list(parity.CHECKS) if parity else []
LEVELS = isa_levels(read_cpuinfo())


@pytest.fixture(scope="session")
def rows() -> dict[tuple[str | None, str], Any]:
    """Rows computed on first use, one per ISA level and model (building the model if needed)."""
    return {}


def _row(rows: dict[tuple[str | None, str], Any], cap: str | None, model: str) -> Any:
    if (cap, model) not in rows:
        assert parity is not None
        folder = parity.zoo.DEFAULT_DIR
        entry = next(e for e in parity.zoo.ZOO if e.name == model)
        parity.zoo.build(entry, folder)
        with tempfile.TemporaryDirectory(prefix="lpt-zoo-") as work:
            rows[(cap, model)] = parity.check_model(model, folder, Path(work), cap)
    return rows[(cap, model)]


@pytest.mark.slow
@pytest.mark.zoo
@pytest.mark.skipif(parity is None, reason=missing_extra() or "")
@pytest.mark.parametrize("cap, model, check", params(KNOWN_FAILING, LEVELS, MODELS, CHECKS))
def test_parity(rows: dict[tuple[str | None, str], Any], cap: str | None, model: str, check: str) -> None:
    row = _row(rows, cap, model)
    assert row.results[check], row.details.get(check, "")


def test_known_failing_list_names_real_checks_with_reasons() -> None:
    """Every entry of known_failing.txt is a CPU profile, a zoo model and a check that exist, and says why."""
    if parity is None:
        pytest.skip(missing_extra() or "")
    for profile, key, reason in entries(KNOWN_FAILING):
        model, _, check = key.partition("::")
        assert profile in CPU_PROFILE and model in MODELS and check in CHECKS and reason, key


SPR = ("flags : sse4_1 avx avx2 avx_vnni avx512f avx512bw avx512vl avx512dq avx512_vnni avx512_bf16 avx512_fp16 "
       "amx_tile amx_int8 amx_bf16\n")


def test_an_amx_machine_checks_four_isa_levels_and_an_avx2_machine_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("lpt_cli.isa.amx_tile_permitted", lambda: True)
    assert isa_levels(SPR) == [("cpu-avx2", "AVX2"), ("cpu-avx2-vnni", "AVX2_VNNI"), ("cpu-vnni", "AVX512_CORE_VNNI"),
                               ("cpu-amx", None)]
    assert isa_levels("flags : sse4_1 avx avx2 avx512f avx512bw avx512vl avx512dq avx512_vnni\n") == [
        ("cpu-avx2", "AVX2"), ("cpu-vnni", None)]  # no avx_vnni: the AVX2_VNNI cap gives AVX2
    assert isa_levels("flags : sse4_1 avx avx2\n") == [("cpu-avx2", None)]
