"""Device checks and ISA detection."""
from __future__ import annotations

import pytest

from lpt_cli.errors import LptError
from lpt_cli.runtime.device import core, cpu_isa, device_info, require_device

CPUINFO = "processor : 0\nflags : fpu sse avx2 avx512f avx512_vnni amx_tile amx_int8\n"


def test_isa_from_cpuinfo_flags():
    assert cpu_isa(CPUINFO) == ("AVX2", "AVX512", "AVX512-VNNI", "AMX-INT8")
    assert cpu_isa("flags : sse avx2\n") == ("AVX2",)


def test_cpu_info():
    info = device_info("CPU")
    assert "FP32" in info.capabilities and info.full_name
    assert info.int8_isa in ("AMX", "VNNI", "no VNNI/AMX")


def test_missing_device_is_one_line_lpt_error():
    if any(d.startswith("GPU") for d in core().available_devices):
        pytest.skip("this machine has a GPU")
    with pytest.raises(LptError) as err:
        require_device("GPU")
    assert "\n" not in str(err.value) and "GPU is not available" in str(err.value)


def test_virtual_devices_pass():
    require_device("AUTO")
