"""Timed inference of several compiled models, interleaved so that noise hits all alike.

The modes are benchmark_app's: `sync` runs one request at a time (latency = wall time of
each call), `async` keeps `nireq` requests in flight through an AsyncInferQueue (latency
as OpenVINO measures each request). Models are measured round robin in short slices
until each has had its time: on a shared machine, a burst of load then slows every model
a little instead of one model a lot. Each model is warmed up first (not measured).

Besides throughput, the spread: min, median, p90 and a 95% confidence interval of the
median (distribution-free, from order statistics), so two medians whose intervals
overlap are not read as a speedup.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import openvino as ov

from . import BENCH_APIS, SLICE_SECONDS

WARMUP = 2  # inferences per request before measuring (the first one allocates and tunes)


@dataclass(frozen=True)
class BenchResult:
    iterations: int
    seconds: float  # time this model was measured
    throughput: float  # inferences per second
    min_ms: float
    median_ms: float
    p90_ms: float
    median_ci_ms: tuple[float, float]  # 95% confidence interval of the median
    requests: int = 1  # infer requests in flight


def summarize(latencies_ms: list[float], seconds: float, requests: int = 1) -> BenchResult:
    """The statistics of one model's latencies measured over `seconds`."""
    ms = np.sort(np.asarray(latencies_ms, dtype=np.float64))
    return BenchResult(len(ms), seconds, len(ms) / seconds if seconds > 0 else 0.0, float(ms[0]),
                       float(np.median(ms)), float(np.percentile(ms, 90)), median_interval(ms), requests)


def median_interval(sorted_ms: np.ndarray) -> tuple[float, float]:
    """95% interval of the median: the order statistics n/2 -+ 1.96 sqrt(n)/2 (binomial
    approximation; the whole range below 6 samples, where no narrower interval holds 95%)."""
    n = len(sorted_ms)
    half = 1.96 * math.sqrt(n) / 2
    low, high = max(math.floor(n / 2 - half), 0), min(math.ceil(n / 2 + half), n - 1)
    if n < 6:
        low, high = 0, n - 1
    return float(sorted_ms[low]), float(sorted_ms[high])


def speedup(result: BenchResult, base: BenchResult) -> float | None:
    """How many times faster `result` runs than `base`, from the median latencies (throughput
    also counts the loop's own time, which weighs on a 0.2 ms model); None when the medians'
    95% intervals overlap: no measured difference."""
    if result is base:
        return 1.0
    (low, high), (base_low, base_high) = result.median_ci_ms, base.median_ci_ms
    if low <= base_high and base_low <= high:
        return None
    return base.median_ms / result.median_ms


class _Runner:
    """One model's requests and what they measured so far."""

    def __init__(self, compiled: ov.CompiledModel, inputs: list[np.ndarray], api: str, nireq: int) -> None:
        self.inputs = inputs
        self.latencies: list[float] = []
        self.seconds = 0.0
        self.request = compiled.create_infer_request() if api == "sync" else None
        self.queue = None
        if api == "async":
            self.queue = ov.AsyncInferQueue(compiled, nireq)
            self.queue.set_callback(self._done)
        self._measuring = False

    @property
    def requests(self) -> int:
        return 1 if self.queue is None else len(self.queue)

    def _done(self, request: ov.InferRequest, _userdata: object) -> None:
        if self._measuring:
            self.latencies.append(request.latency)

    def warm_up(self) -> None:
        if self.request is not None:
            for _ in range(WARMUP):
                self.request.infer(self.inputs)
            return
        if self.queue is not None:
            for _ in range(WARMUP * len(self.queue)):
                self.queue.start_async(self.inputs)
            self.queue.wait_all()

    def run_for(self, seconds: float) -> None:
        """Infers for about `seconds` (at least once) and adds it to the measured time."""
        self._measuring = True
        start = time.perf_counter()
        try:
            if self.request is not None:
                while True:
                    t0 = time.perf_counter()
                    self.request.infer(self.inputs)
                    now = time.perf_counter()
                    self.latencies.append((now - t0) * 1e3)
                    if now - start >= seconds:
                        break
            elif self.queue is not None:
                while time.perf_counter() - start < seconds:
                    self.queue.start_async(self.inputs)  # waits while every request is busy
                self.queue.wait_all()
        finally:
            self.seconds += time.perf_counter() - start
            self._measuring = False


@dataclass(frozen=True)
class Measured:
    results: dict[str, BenchResult]  # label -> statistics (models measured at least once)
    interrupted: bool  # Ctrl-C stopped the run: results are what was measured until then


def measure(compiled: Mapping[str, ov.CompiledModel], inputs: list[np.ndarray], seconds: float, *,
            api: str = "sync", nireq: int = 1, tick: Callable[[float], None] | None = None,
            slice_seconds: float = SLICE_SECONDS) -> Measured:
    """Each model measured for about `seconds`, round robin in slices; `tick(fraction_done)`
    after each round; `nireq` 0 with async: the device's optimal number of requests.
    Ctrl-C ends the run early with what was measured (`interrupted`)."""
    if api not in BENCH_APIS:
        raise ValueError(f"api must be one of {BENCH_APIS}")
    runners = {label: _Runner(cm, inputs, api, nireq) for label, cm in compiled.items()}
    interrupted = False
    try:
        for runner in runners.values():
            runner.warm_up()
        while any(r.seconds < seconds for r in runners.values()):
            for runner in runners.values():
                if runner.seconds < seconds:
                    runner.run_for(min(slice_seconds, seconds - runner.seconds))
            if tick:
                tick(min(1.0, min(r.seconds for r in runners.values()) / seconds))
    except KeyboardInterrupt:
        interrupted = True
    results = {label: summarize(r.latencies, r.seconds, r.requests) for label, r in runners.items() if r.latencies}
    return Measured(results, interrupted)

