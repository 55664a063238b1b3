"""Differential testing over NNCF settings: the fixed sample of fixtures/settings.py against the CPU
plugin, the checks of benchmarks/zoo_parity.py, one test each.

The variants are built on demand into LPT_SETTINGS_DIR (default fixtures/cache/settings) and need
the `zoo` extra; without it the parity tests are skipped. Checks that fail today are listed in
settings_known_failing.txt (strict xfails): a fixed check fails the run until the list is
regenerated with `python tests/zoo/update_known_failing.py --settings`. More variants on demand:
`python benchmarks/settings_sweep.py --seed S --count N --reduce`.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from known_failures import entries, load_benchmark, missing_extra, params

from lpt_cli.isa import CPU_PROFILE, isa_levels, read_cpuinfo

KNOWN_FAILING = Path(__file__).with_name("settings_known_failing.txt")

sweep = load_benchmark("settings_sweep")  # needs openvino only; building and checking need the zoo extra
settings, CHECKS = sweep.settings, list(sweep.zoo_parity.CHECKS)
SAMPLE = {variant.name: variant for variant in settings.FIXED_SAMPLE}
LEVELS = isa_levels(read_cpuinfo())  # the ISA matrix, as for the zoo (test_zoo_parity.py)


@pytest.fixture(scope="session")
def sample_rows() -> dict[tuple[str | None, str], Any]:
    """Rows computed on first use, one per ISA level and variant (building it if needed)."""
    return {}


def _row(rows: dict[tuple[str | None, str], Any], cap: str | None, name: str) -> Any:
    if (cap, name) not in rows:
        rows[(cap, name)] = sweep.run([SAMPLE[name]], settings.DEFAULT_DIR, cap)[0]
    return rows[(cap, name)]


@pytest.mark.slow
@pytest.mark.zoo
@pytest.mark.skipif(missing_extra() is not None, reason=missing_extra() or "")
@pytest.mark.parametrize("cap, variant, check", params(KNOWN_FAILING, LEVELS, SAMPLE, CHECKS))
def test_sample(sample_rows: dict[tuple[str | None, str], Any], cap: str | None, variant: str, check: str) -> None:
    row = _row(sample_rows, cap, variant)
    assert row.results[check], row.details.get(check, "")


def test_fixed_sample_covers_every_setting() -> None:
    """Each architecture, both presets, TRANSFORMER with SmoothQuant on and off and without, every
    ignored scope, subset size, bias correction and layout, and the issue's three models."""
    sample = list(SAMPLE.values())
    assert {v.arch for v in sample} == set(settings.ARCHS)
    assert {"perf", "mixed"} <= {v.preset for v in sample}
    assert {v.smooth_quant for v in sample if v.transformer} == set(settings.SMOOTH_QUANT)
    assert any(not v.transformer for v in sample)
    assert {v.ignored for v in sample} == set(settings.IGNORED)
    assert {v.subset for v in sample} == set(settings.SUBSETS)
    assert {v.fast_bias_correction for v in sample} == {True, False}
    assert {v.layout for v in sample} == set(settings.LAYOUTS)
    assert set(settings.ISSUE_VARIANTS) <= set(sample)


def test_sample_is_reproducible_and_named_by_its_settings() -> None:
    drawn = settings.sample(7, 20)
    assert drawn == settings.sample(7, 20) and drawn != settings.sample(8, 20)
    assert len({v.name for v in drawn}) == 20
    for variant in drawn:
        assert settings.Variant.parse(variant.name) == variant
        assert variant.transformer or variant.smooth_quant == 0  # NNCF runs SmoothQuant only with TRANSFORMER


@pytest.mark.parametrize("name", ["resnet18-mixed-tr0-s10-sq1-fbc1-ign0-f32", "resnet18-mixed-tr0-s7-sq0-fbc1-ign0-f32",
                                  "resnet18-mixed-tr2-s10-sq0-fbc1-ign0-f32", "vgg-def-tr0-s10-sq0-fbc1-ign0-f32",
                                  "resnet18-def-tr0-s10-sq0-fbc1-ign0"])
def test_a_name_outside_the_settings_space_is_refused(name: str) -> None:
    with pytest.raises(ValueError):
        settings.Variant.parse(name)


def test_known_failing_list_names_sample_checks() -> None:
    """Every entry of settings_known_failing.txt is a CPU profile, a variant of the fixed sample and a
    check, and says why."""
    for profile, key, reason in entries(KNOWN_FAILING):
        name, _, check = key.partition("::")
        assert profile in CPU_PROFILE and name in SAMPLE and check in CHECKS and reason, key


def test_sweep_lists_the_drawn_variants_without_building() -> None:
    script = Path(sweep.__file__)
    listed = subprocess.run([sys.executable, str(script), "--seed", "7", "--count", "3", "--list"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [v.name for v in settings.sample(7, 3)]
    refused = subprocess.run([sys.executable, str(script), "--only", "resnet18", "--list"],
                             capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 2 and "ARCH-PRESET-trT" in refused.stderr
