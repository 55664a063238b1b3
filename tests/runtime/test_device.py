"""Device checks and ISA detection."""
from __future__ import annotations

import pytest

from lpt_cli.errors import LptError
from lpt_cli.runtime.device import core, cpu_isa, device_info, require_device

def test_isa_lists_the_usable_isas_the_rules_tell_apart_best_first():
    assert cpu_isa(frozenset({"sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni"})) == (
        "avx512_core_vnni", "avx2_vnni", "avx512_core", "avx2")
    assert cpu_isa(frozenset({"sse41", "avx", "avx2"})) == ("avx2",)


def test_cpu_info():
    info = device_info("CPU")
    assert "FP32" in info.capabilities and info.full_name
    assert info.cpu_profile.startswith("cpu-") and info.isa


def test_missing_device_is_one_line_lpt_error():
    if any(d.startswith("GPU") for d in core().available_devices):
        pytest.skip("this machine has a GPU")
    with pytest.raises(LptError) as err:
        require_device("GPU")
    assert "\n" not in str(err.value) and "GPU is not available" in str(err.value)


def test_virtual_devices_pass():
    require_device("AUTO")
