"""One profiled run: compile with PERF_COUNT, infer once, collect counters and op precisions."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .compile import compile_model
from .inputs import random_inputs
from .layers import RuntimeLayer, by_original_name, format_perf, perf_counters, runtime_layers


@dataclass(frozen=True)
class Profile:
    perf_text: str  # benchmark_app -pc style table
    layers: dict[str, tuple[RuntimeLayer, bool]]  # IR layer name -> (runtime op, is its own layer)


def profile_model(xml_path: str | Path, device: str, *, seed: int = 0) -> Profile:
    compiled = compile_model(xml_path, device, perf_count=True)
    request = compiled.create_infer_request()
    request.infer(random_inputs(compiled, seed))
    return Profile(format_perf(perf_counters(request)), by_original_name(runtime_layers(compiled)))
