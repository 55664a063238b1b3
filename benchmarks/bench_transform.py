"""LPT transform speed, its scaling with model size, and the runtime of what it writes.

Usage: python benchmarks/bench_transform.py [--quick] [--only transform|scaling|runtime] [--profile]

Three sections, each printing its figures under a `== ... ==` heading:
  transform  `lpt transform --config cpu` (read + pipeline + write, runtime dialect) on the
             full ResNet-50-sized and transformer fixtures, against OpenVINO's
             `core.compile_model(xml, "CPU")` of the same original IR (which runs OpenVINO's
             own LPT inside). Target: ours <= 1x compile time. Also time per pipeline step.
  scaling    the pipeline alone on stacks of 1x / 4x / 16x (and 64x / 256x unless --quick)
             identical quantized residual blocks (FakeQuantize + i8 weights, built
             directly): CPU time per node must stay flat. --profile names the culprits.
  runtime    median latency of the transformed ResNet vs the original FakeQuantize model
             (target within 5%) and vs the FP32 model, INFERENCE_PRECISION_HINT=f32 pinned;
             plus a load-independent check that both compile to the same runtime graph.
--quick uses the small checked-in fixtures and fewer repeats (a smoke run, < 1 minute).
Timings are wall clock and depend on machine load; the load average is printed with them.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "fixtures" / "generate.py"
SECTIONS = ("transform", "scaling", "runtime")
BLOCK_CHANNELS, BLOCK_SPATIAL = 16, 8  # tiny tensors: the pipeline's cost, not numpy's


@dataclass(frozen=True)
class Settings:
    """What a run measures: fixture size, repeats, scaling factors, inference iterations."""

    size: str
    repeat: int
    factors: tuple[int, ...]
    iterations: int
    rounds: int


QUICK = Settings(size="small", repeat=2, factors=(1, 4, 16), iterations=20, rounds=2)
FULL = Settings(size="full", repeat=3, factors=(1, 4, 16, 64, 256), iterations=60, rounds=10)


# ---------------------------------------------------------------------------- helpers

def load_generator() -> ModuleType:
    """fixtures/generate.py as a module (fixtures/ is not a package)."""
    spec = importlib.util.spec_from_file_location("lpt_fixture_generator", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture(name: str, size: str, *, fp32: bool = False) -> Path:
    """The fixture's .xml, built first (minutes for full sizes) when it is not cached."""
    started = time.perf_counter()
    xml = load_generator().ensure_model(name, size, fp32=fp32)
    if time.perf_counter() - started > 1:
        print(f"  (built {xml.name} in {time.perf_counter() - started:.0f} s)")
    return Path(xml)


def load_line() -> str:
    """The 1/5/15-minute load average against the core count, for judging the figures."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def heading(title: str) -> None:
    print(f"\n== {title} ==  ({load_line()})", flush=True)


def best_of(repeat: int, run: Callable[[], float]) -> float:
    """The fastest of `repeat` runs (the least disturbed by other load)."""
    return min(run() for _ in range(repeat))


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


# ---------------------------------------------------------------------------- transform

@dataclass
class TransformTiming:
    """One in-process `lpt transform`: read, pipeline steps (in order), write, seconds."""

    read: float
    steps: list[tuple[str, float]]
    write: float

    @property
    def pipeline(self) -> float:
        return sum(seconds for _, seconds in self.steps)

    @property
    def total(self) -> float:
        return self.read + self.pipeline + self.write


def timed_pipeline(graph: Any, config: Any) -> list[tuple[str, float]]:
    """Runs the pipeline; seconds per step, cut at each `progress` call (the last step
    also holds graph.remove_dead; 'setup' is the topological check before the first step)."""
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    marks: list[tuple[str, float]] = [("setup", time.perf_counter())]
    run_pipeline(graph, config, progress=lambda step: marks.append((step, time.perf_counter())))
    end = time.perf_counter()
    ends = [t for _, t in marks[1:]] + [end]
    return [(step, stop - start) for (step, start), stop in zip(marks, ends)]


def transform_once(xml: Path, out: Path) -> TransformTiming:
    """read_ir + run_pipeline(cpu) + write_ir(runtime), as `lpt transform` does."""
    from lpt_cli.ir.reader import read_ir
    from lpt_cli.ir.writer import write_ir
    from lpt_cli.lpt.engine.config import load_config

    t0 = time.perf_counter()
    graph = read_ir(xml)
    read = time.perf_counter() - t0
    steps = timed_pipeline(graph, load_config("cpu"))
    t1 = time.perf_counter()
    write_ir(graph, out, dialect="runtime")
    return TransformTiming(read, steps, time.perf_counter() - t1)


def best_transform(xml: Path, out: Path, repeat: int) -> TransformTiming:
    runs = [transform_once(xml, out) for _ in range(repeat)]
    return min(runs, key=lambda run: run.total)


def cli_seconds(xml: Path, out: Path) -> float:
    """Wall time of the real command in a fresh interpreter (imports and startup included)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(xml), "--config", "cpu",
                    "-o", str(out), "--quiet"], check=True)
    return time.perf_counter() - started


def compile_seconds(xml: Path) -> float:
    """read + compile by OpenVINO's CPU plugin, straight from the path (default config)."""
    import openvino as ov

    core = ov.Core()
    started = time.perf_counter()
    core.compile_model(str(xml), "CPU")
    return time.perf_counter() - started


def warm_up(tmp: Path) -> None:
    """One untimed run of both sides on a small model: imports and plugin loading are paid."""
    small = fixture("resnet", "small")
    transform_once(small, tmp / "warm.xml")
    compile_seconds(small)


def report_transform(name: str, xml: Path, ours: TransformTiming, cli: float, theirs: float) -> None:
    ratio = ours.total / theirs
    print(f"{name}: {xml.relative_to(ROOT)} ({xml.stat().st_size / 1e6:.1f} MB xml, "
          f"{xml.with_suffix('.bin').stat().st_size / 1e6:.1f} MB bin)")
    print(f"  lpt transform (in-process)  : {ours.total:.3f} s  "
          f"[read {ours.read:.3f} + pipeline {ours.pipeline:.3f} + write {ours.write:.3f}]")
    print(f"  lpt transform (CLI, fresh)  : {cli:.3f} s  (interpreter start + imports included)")
    print(f"  openvino compile_model(CPU) : {theirs:.3f} s")
    print(f"  ratio ours/compile {ratio:.2f}x (target <= 1x): {verdict(ratio <= 1)}; "
          f"CLI/compile {cli / theirs:.2f}x")
    steps = ", ".join(f"{step} {seconds * 1e3:.0f} ms" for step, seconds in ours.steps)
    print(f"  pipeline steps: {steps}")


def section_transform(settings: Settings) -> None:
    heading(f"transform: lpt transform --config cpu vs openvino compile_model ({settings.size} fixtures)")
    with tempfile.TemporaryDirectory(prefix="bench_transform_") as tmp_name:
        tmp = Path(tmp_name)
        warm_up(tmp)
        for name in ("resnet", "transformer"):
            xml = fixture(name, settings.size)
            ours = best_transform(xml, tmp / f"{name}_lpt.xml", settings.repeat)
            cli = best_of(settings.repeat, lambda: cli_seconds(xml, tmp / f"{name}_cli.xml"))
            theirs = best_of(settings.repeat, lambda: compile_seconds(xml))
            report_transform(name, xml, ours, cli, theirs)
    print(f"(best of {settings.repeat} runs each; {load_line()})")


# ---------------------------------------------------------------------------- scaling

def build_stack(blocks: int, path: Path) -> Path:
    """`blocks` identical residual blocks, quantized as NNCF does: a FakeQuantize on each
    conv input and on both Add inputs, i8 weights as Constant -> Convert -> Multiply."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(0)
    c = BLOCK_CHANNELS

    def fq(x: Any) -> Any:
        return ops.fake_quantize(x, -4.0, 4.0, -4.0, 4.0, 256)

    def conv(x: Any) -> Any:
        w = ops.constant(rng.integers(-127, 128, (c, c, 3, 3), dtype=np.int8))
        scale = ops.constant(rng.uniform(1e-3, 1e-2, (c, 1, 1, 1)).astype(np.float32))
        y = ops.convolution(fq(x), ops.multiply(ops.convert(w, np.float32), scale),
                            [1, 1], [1, 1], [1, 1], [1, 1])
        return ops.add(y, ops.constant(rng.uniform(-0.1, 0.1, (1, c, 1, 1)).astype(np.float32)))

    x = ops.parameter([1, c, BLOCK_SPATIAL, BLOCK_SPATIAL], np.float32, name="input")
    y = x.output(0)
    for _ in range(blocks):
        branch = conv(ops.relu(conv(y)))
        pooled = ops.max_pool(fq(branch), [1, 1], [1, 1], [1, 1], [1, 1], [3, 3], "floor",
                              "explicit").output(0)
        y = ops.relu(ops.add(pooled, fq(y)))
    ov.save_model(ov.Model([y], [x], f"stack{blocks}"), str(path), compress_to_fp16=False)
    return path


def pipeline_seconds(xml: Path, repeat: int) -> tuple[int, float, float]:
    """(nodes in the IR, wall s, CPU s) of the pipeline alone, the run with the least CPU
    time of `repeat` (each on a fresh read). CPU time is what the verdict uses: other
    processes on the machine inflate wall time, not this process's CPU time."""
    from lpt_cli.ir.reader import read_ir
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    config = load_config("cpu")
    nodes, best = 0, (math.inf, math.inf)
    for _ in range(repeat):
        graph = read_ir(xml)
        nodes = len(graph)
        wall, cpu = time.perf_counter(), time.process_time()
        run_pipeline(graph, config)
        run = (time.process_time() - cpu, time.perf_counter() - wall)
        best = min(best, run)
    return nodes, best[1], best[0]


def section_scaling(settings: Settings, profile: bool = False) -> None:
    heading(f"scaling: pipeline alone on {' / '.join(f'{f}x' for f in settings.factors)} residual blocks")
    rows: list[tuple[int, int, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as tmp:
        stacks = {f: build_stack(f, Path(tmp) / f"stack{f}.xml") for f in settings.factors}
        pipeline_seconds(stacks[settings.factors[0]], 1)  # imports, caches
        for factor, xml in stacks.items():
            rows.append((factor, *pipeline_seconds(xml, settings.repeat)))
        print_scaling(rows)
        if profile:
            print_profile(stacks[settings.factors[-2]], stacks[settings.factors[-1]])


def print_scaling(rows: list[tuple[int, int, float, float]]) -> None:
    base_nodes, base_cpu = rows[0][1], rows[0][3]
    print(f"{'blocks':>6} {'nodes':>6} {'wall':>9} {'cpu':>9} {'cpu/node':>9} {'x nodes':>8} {'x cpu':>7}")
    for factor, nodes, wall, cpu in rows:
        print(f"{factor:>6} {nodes:>6} {wall * 1e3:>7.0f}ms {cpu * 1e3:>7.0f}ms {cpu / nodes * 1e6:>7.0f}us "
              f"{nodes / base_nodes:>7.1f}x {cpu / base_cpu:>6.1f}x")
    print(scaling_verdict([(nodes, cpu) for _, nodes, _, cpu in rows]))


def scaling_verdict(points: list[tuple[int, float]]) -> str:
    """Fitted exponent of CPU time against nodes between the two largest stacks (1.0 = linear)."""
    (n1, t1), (n2, t2) = points[-2], points[-1]
    exponent = math.log(t2 / t1) / math.log(n2 / n1)
    per_node = (t2 / n2) / (t1 / n1)
    return (f"growth exponent {exponent:.2f} between the two largest (1.0 = linear); "
            f"cpu per node x{per_node:.2f}: {verdict(exponent <= 1.15)} (linear if <= 1.15)")


def profile_stats(xml: Path) -> tuple[int, dict[str, tuple[int, float]]]:
    """(nodes, {function: (calls, own seconds)}) of one profiled pipeline run."""
    import cProfile
    import pstats

    from lpt_cli.ir.reader import read_ir
    from lpt_cli.lpt.engine.config import load_config
    from lpt_cli.lpt.engine.pipeline import run_pipeline

    graph, config = read_ir(xml), load_config("cpu")
    nodes, profiler = len(graph), cProfile.Profile()
    profiler.runcall(run_pipeline, graph, config)
    raw = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    root = str(ROOT) + os.sep
    return nodes, {f"{file.replace(root, '')}:{line}({func})": (calls, own)
                   for (file, line, func), (_, calls, own, _, _) in raw.items()}


def print_profile(small: Path, large: Path, top: int = 8) -> None:
    """The functions with the most own time on the `large` stack, and how much faster than
    the node count their own time grew from the `small` one (1.0 = linear)."""
    n_small, before = profile_stats(small)
    n_large, after = profile_stats(large)
    growth = n_large / n_small
    print(f"profile (cProfile own time, {n_small} -> {n_large} nodes, x{growth:.0f}):")
    for name, (calls, own) in sorted(after.items(), key=lambda kv: -kv[1][1])[:top]:
        old_calls, old_own = before.get(name, (0, 0.0))
        excess = own / old_own / growth if old_own else math.inf
        print(f"  {own * 1e3:8.0f} ms {calls:>8} calls  x{excess:5.1f} vs linear  {name} "
              f"(was {old_own * 1e3:.1f} ms, {old_calls} calls)")


# ---------------------------------------------------------------------------- runtime

def compile_pinned(xml: Path) -> Any:
    """Compiled for CPU, f32 inference precision, one latency-oriented stream."""
    import openvino as ov

    config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    return ov.Core().compile_model(str(xml), "CPU", config)


def latencies_ms(compiled: Any, inputs: list[Any], warmup: int, iterations: int) -> list[float]:
    """`iterations` synchronous inferences after `warmup` untimed ones, milliseconds each."""
    request = compiled.create_infer_request()
    for _ in range(warmup):
        request.infer(inputs)
    times = []
    for _ in range(iterations):
        started = time.perf_counter()
        request.infer(inputs)
        times.append((time.perf_counter() - started) * 1e3)
    return times


def interleaved_medians(models: dict[str, Any], inputs: list[Any], settings: Settings) -> dict[str, float]:
    """Median latency per model; models take turns over several rounds so a burst of
    outside load hits all of them rather than one."""
    samples: dict[str, list[float]] = {label: [] for label in models}
    per_round = max(1, settings.iterations // settings.rounds)
    for _ in range(settings.rounds):
        for label, compiled in models.items():
            samples[label] += latencies_ms(compiled, inputs, warmup=3, iterations=per_round)
    return {label: statistics.median(values) for label, values in samples.items()}


def runtime_layers(compiled: Any) -> list[tuple[str, str, str, int]]:
    """(layer type, output precision, runtime precision, fused ops) per executed layer."""
    layers = []
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        fused = info["originalLayersNames"].astype(str).count(",") + 1
        layers.append((info["layerType"].astype(str), info["outputPrecisions"].astype(str),
                       info["runtimePrecision"].astype(str), fused))
    return layers


def section_runtime(settings: Settings) -> None:
    from lpt_cli.runtime.inputs import random_inputs

    heading(f"runtime: transformed vs FakeQuantize vs FP32 latency (resnet {settings.size}, CPU, f32 hint)")
    original = fixture("resnet", settings.size)
    fp32 = fixture("resnet", settings.size, fp32=True)
    with tempfile.TemporaryDirectory(prefix="bench_runtime_") as tmp:
        transformed = Path(tmp) / "resnet_lpt.xml"
        transform_once(original, transformed)
        models = {label: compile_pinned(xml) for label, xml in
                  (("transformed", transformed), ("fakequantize", original), ("fp32", fp32))}
    inputs = random_inputs(models["fakequantize"], seed=0)
    medians = interleaved_medians(models, inputs, settings)
    per_model = max(1, settings.iterations // settings.rounds) * settings.rounds
    print(f"median of {per_model} inferences per model ({settings.rounds} interleaved rounds, "
          f"3 warm-up each); threads: {models['fp32'].get_property('INFERENCE_NUM_THREADS')}")
    for label, ms in medians.items():
        print(f"  {label:<12} {ms:8.2f} ms")
    ours, theirs = runtime_layers(models["transformed"]), runtime_layers(models["fakequantize"])
    int8 = sum(1 for layer in ours 
               if layer[0].startswith(("Convolution", "FullyConnected")) and layer[2] in ("u8", "i8"))
    print(f"compiled runtime graphs: {len(ours)} vs {len(theirs)} layers, "
          f"{'identical' if ours == theirs else 'DIFFERENT'} types/precisions/fusions; "
          f"transformed runs {int8} conv/fc layers in int8")
    drift = medians["transformed"] / medians["fakequantize"] - 1
    print(f"transformed vs fakequantize: {drift * 100:+.1f}% (target within 5%): {verdict(abs(drift) <= 0.05)}")
    print(f"speedup over fp32: transformed {medians['fp32'] / medians['transformed']:.2f}x, "
          f"fakequantize {medians['fp32'] / medians['fakequantize']:.2f}x")


# ---------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small fixtures, fewer repeats (< 1 minute)")
    parser.add_argument("--only", choices=SECTIONS, help="run just this section")
    parser.add_argument("--profile", action="store_true", help="scaling: cProfile the two largest stacks")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    print(f"bench_transform: {'quick' if args.quick else 'full'} run, python {sys.version.split()[0]}, "
          f"{load_line()}", flush=True)
    runners: dict[str, Callable[[Settings], None]] = {
        "transform": section_transform, "runtime": section_runtime,
        "scaling": lambda s: section_scaling(s, profile=args.profile)}
    for name in [args.only] if args.only else SECTIONS:
        runners[name](settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
