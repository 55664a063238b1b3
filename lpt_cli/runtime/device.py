"""Which devices OpenVINO sees here, and what the CPU offers for INT8 (the ISAs of lpt_cli/isa.py).

A device that is not there must fail as one readable line, not as OpenVINO's multi-line
"cannot load libOpenCL" trace, so every command checks the device before compiling.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import openvino as ov

from ..errors import LptError
from ..isa import SHOWN, read_cpuinfo, resolve_cpu

VIRTUAL_DEVICES = ("AUTO", "MULTI", "HETERO", "BATCH")


@dataclass(frozen=True)
class DeviceInfo:
    device: str
    full_name: str
    capabilities: tuple[str, ...]
    isa: tuple[str, ...]  # the oneDNN ISAs the CPU plugin may use here that its rules tell apart, best first
    cpu_profile: str  # what `--config cpu` resolves to here (lpt_cli/isa.py)


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
    resolution = resolve_cpu(read_cpuinfo())
    return DeviceInfo(device, full_name, capabilities, cpu_isa(resolution.usable), resolution.profile.name)


def _property(device: str, name: str) -> object:
    try:
        return core().get_property(device, name)
    except RuntimeError:
        return None


def cpu_isa(usable: frozenset[str]) -> tuple[str, ...]:
    """The ISAs of `usable` the plugin's rules tell apart (lpt_cli/isa.py), best first."""
    return tuple(isa for isa in SHOWN if isa in usable)
