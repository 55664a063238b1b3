"""Compiling a model with the inference precision pinned.

On BF16/AMX machines the CPU plugin silently runs f32 layers in bf16, which would change
accuracy numbers and make "did it run in INT8" comparisons machine-dependent; so lpt
pins INFERENCE_PRECISION_HINT=f32 unless the user asks for another.
"""
from __future__ import annotations

from pathlib import Path

import openvino as ov

from ..errors import CompileRefused, LptError
from . import PRECISION_HINTS
from .device import core, require_device


def compile_model(xml_path: str | Path, device: str = "CPU", *, precision_hint: str = "f32",
                  perf_count: bool = False, performance_hint: str | None = None) -> ov.CompiledModel:
    """`xml_path` compiled for `device` (`performance_hint`: latency or throughput, the
    PERFORMANCE_HINT benchmark_app -hint sets); OpenVINO failures become one-line LptErrors."""
    if precision_hint not in PRECISION_HINTS:
        raise LptError(f"--precision-hint {precision_hint}: expected one of {', '.join(PRECISION_HINTS)}")
    require_device(device)
    config = {"INFERENCE_PRECISION_HINT": precision_hint}
    if perf_count:
        config["PERF_COUNT"] = "YES"
    if performance_hint is not None:
        config["PERFORMANCE_HINT"] = performance_hint.upper()
    try:
        model = core().read_model(str(xml_path))
        return core().compile_model(model, device, config)
    except RuntimeError as err:
        reason = f"OpenVINO cannot compile it for {device}: {openvino_message(err)}"
        raise CompileRefused(f"{xml_path}: {reason}", reason) from None


def inference_precision(compiled: ov.CompiledModel) -> str:
    """The precision the device actually computes float layers in."""
    try:
        return str(compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name())
    except (RuntimeError, AttributeError):
        return "unknown"


def openvino_message(err: Exception) -> str:
    """The line of an OpenVINO exception that says what is wrong (not where in its sources)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    meaningful = [line for line in lines if not line.startswith(("Exception from", "Check '"))]
    return (meaningful or lines or [type(err).__name__])[0]
