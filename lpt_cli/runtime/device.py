"""Which devices OpenVINO sees here, and what the CPU offers for INT8 (VNNI, AMX).

A device that is not there must fail as one readable line, not as OpenVINO's multi-line
"cannot load libOpenCL" trace, so every command checks the device before compiling.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import openvino as ov

from ..errors import LptError

VIRTUAL_DEVICES = ("AUTO", "MULTI", "HETERO", "BATCH")
# /proc/cpuinfo flag -> the name people use for the feature, in display order.
_ISA_FLAGS = (("avx2", "AVX2"), ("avx512f", "AVX512"), ("avx_vnni", "AVX-VNNI"), ("avx512_vnni", "AVX512-VNNI"),
              ("avx512_bf16", "AVX512-BF16"), ("amx_int8", "AMX-INT8"), ("amx_bf16", "AMX-BF16"),
              ("avx2_vnni_2", "AVX2-VNNI-2"))


@dataclass(frozen=True)
class DeviceInfo:
    device: str
    full_name: str
    capabilities: tuple[str, ...]
    isa: tuple[str, ...]  # host CPU features relevant to INT8/BF16

    @property
    def int8_isa(self) -> str:
        """A one-word summary: AMX, VNNI or neither (what decides INT8 speed on CPU)."""
        if any(f.startswith("AMX") for f in self.isa):
            return "AMX"
        if any("VNNI" in f for f in self.isa):
            return "VNNI"
        return "no VNNI/AMX"


@lru_cache(maxsize=1)
def core() -> ov.Core:
    return ov.Core()


def require_device(device: str) -> None:
    """Raises LptError unless OpenVINO can run on `device` here."""
    base = device.split(":", 1)[0].split(".", 1)[0].upper()
    if base in VIRTUAL_DEVICES:
        return
    available = core().available_devices
    if not any(d.split(".", 1)[0] == base for d in available):
        raise LptError(f"device {device} is not available on this machine "
                       f"(OpenVINO sees: {', '.join(available) or 'none'})")


def device_info(device: str) -> DeviceInfo:
    require_device(device)
    target = "CPU" if device.upper() in VIRTUAL_DEVICES else device
    full_name = str(_property(target, "FULL_DEVICE_NAME") or target)
    listed = _property(target, "OPTIMIZATION_CAPABILITIES")
    capabilities = tuple(str(c) for c in listed) if isinstance(listed, (list, tuple)) else ()
    return DeviceInfo(device, full_name, capabilities, cpu_isa())


def _property(device: str, name: str) -> object:
    try:
        return core().get_property(device, name)
    except RuntimeError:
        return None


def cpu_isa(cpuinfo: str | None = None) -> tuple[str, ...]:
    """The INT8/BF16-relevant instruction sets of this CPU, from /proc/cpuinfo flags."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            flags.update(value.split())
    return tuple(name for flag, name in _ISA_FLAGS if flag in flags)
