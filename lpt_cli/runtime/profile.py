"""One profiled run: compile with PERF_COUNT, infer once, collect counters and op precisions."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .compile import compile_model
from .inputs import random_inputs
from .layers import PerfRow, RuntimeLayer, by_original_name, is_int8_kernel, perf_counters, runtime_layers


@dataclass(frozen=True)
class Profile:
    perf: list[PerfRow]  # benchmark_app -pc's rows
    layers: dict[str, tuple[RuntimeLayer, bool]]  # IR layer name -> (runtime op, is its own layer)
    kernels: dict[str, int]  # INT8 kernels by what they compute (layerType), whatever their names


def profile_model(xml_path: str | Path, device: str, *, seed: int = 0) -> Profile:
    compiled = compile_model(xml_path, device, perf_count=True)
    request = compiled.create_infer_request()
    request.infer(random_inputs(compiled, seed))
    ops = runtime_layers(compiled)
    kernels = Counter(op.layer_type for op in ops if is_int8_kernel(op))
    return Profile(perf_counters(request), by_original_name(ops), dict(sorted(kernels.items())))
