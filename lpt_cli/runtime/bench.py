"""A timed inference loop: throughput and latency percentiles for one compiled model.

Synchronous requests measure latency honestly on a single stream; throughput is
completed inferences over wall time of the same loop (latency-oriented, like
benchmark_app -hint latency).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import openvino as ov

WARMUP = 2


@dataclass(frozen=True)
class BenchResult:
    iterations: int
    seconds: float
    throughput: float  # inferences per second
    median_ms: float
    p90_ms: float


def benchmark(compiled: ov.CompiledModel, inputs: list[np.ndarray], seconds: float,
              tick: Callable[[float], None] | None = None) -> BenchResult:
    """Runs inferences for about `seconds` (at least one); `tick(fraction_done)` after each."""
    request = compiled.create_infer_request()
    for _ in range(WARMUP):
        request.infer(inputs)
    latencies: list[float] = []
    start = time.perf_counter()
    elapsed = 0.0
    while not latencies or elapsed < seconds:
        t0 = time.perf_counter()
        request.infer(inputs)
        now = time.perf_counter()
        latencies.append((now - t0) * 1e3)
        elapsed = now - start
        if tick:
            tick(min(elapsed / seconds, 1.0) if seconds > 0 else 1.0)
    ms = np.asarray(latencies)
    return BenchResult(len(latencies), elapsed, len(latencies) / elapsed, float(np.median(ms)),
                       float(np.percentile(ms, 90)))
