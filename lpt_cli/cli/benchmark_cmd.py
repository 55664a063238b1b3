"""`lpt benchmark`: how much faster the LPT-transformed model runs than the original."""
from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..runtime import PRECISION_HINTS

if TYPE_CHECKING:
    from openvino import CompiledModel
    from rich.progress import Progress, TaskID

    from ..runtime.bench import BenchResult

ORIGINAL, TRANSFORMED, FP32 = "original (FakeQuantize)", "lpt-transformed", "fp32 reference"
EPILOG = """\b
Exit codes:
  0  measured
  2  bad input: unreadable model or config, device not available here, a model does not compile
"""


@click.command("benchmark", epilog=EPILOG)
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--config", "config_spec", default="cpu", show_default=True,
              help="Built-in profile (default, cpu, cpu-vnni, cpu-amx, gpu) or a YAML config file.")
@click.option("-d", "--device", default="CPU", show_default=True, help="CPU, GPU or AUTO.")
@click.option("--fp32", "fp32_model", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The FP32 model MODEL was quantized from, measured as the reference.")
@click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=5.0, show_default=True,
              help="Seconds of inference per model.")
@click.option("--precision-hint", type=click.Choice(PRECISION_HINTS), default="f32", show_default=True,
              help="INFERENCE_PRECISION_HINT (float layers); f32 keeps results comparable across CPUs.")
def benchmark(model: Path, config_spec: str, device: str, fp32_model: Path | None, seconds: float,
              precision_hint: str) -> None:
    """Throughput and latency of MODEL (FakeQuantize), its LPT-transformed version and an FP32 reference.

    One synchronous request per model, one model after the other; a progress bar goes to stderr.
    """
    from ..lpt.config import load_config  # imported here: `lpt --help` loads no command's stack
    from ..reports.analyze import analyze, write_runtime_model
    from ..runtime.compile import compile_model
    from ..runtime.device import require_device

    require_device(device)
    analysis = analyze(model, load_config(config_spec))
    with tempfile.TemporaryDirectory(prefix="lpt-benchmark-") as tmp:
        paths = {ORIGINAL: model, TRANSFORMED: write_runtime_model(analysis, tmp, model)}
        if fp32_model is not None:
            paths[FP32] = fp32_model
        compiled = {label: compile_model(path, device, precision_hint=precision_hint)
                    for label, path in paths.items()}
    results = _measure(compiled, seconds)
    click.echo(_table(results, _facts(compiled)), nl=False)
    click.echo(_device_lines(device, precision_hint))


def _measure(compiled: dict[str, CompiledModel], seconds: float) -> dict[str, BenchResult]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from ..runtime.bench import benchmark as run_loop
    from ..runtime.inputs import random_inputs

    inputs = random_inputs(compiled[ORIGINAL], 0)
    results = {}
    with Progress(TextColumn("{task.description:<24}"), BarColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        for label, cm in compiled.items():
            task = progress.add_task(label, total=1.0)
            results[label] = run_loop(cm, inputs, seconds, _ticker(progress, task))
    return results


def _ticker(progress: Progress, task: TaskID) -> Callable[[float], None]:
    return lambda done: progress.update(task, completed=done)


def _facts(compiled: dict[str, CompiledModel]) -> dict[str, tuple[str, str]]:
    """(inference precision, number of INT8 kernels) per model."""
    from ..runtime.compile import inference_precision
    from ..runtime.layers import int8_kernels

    return {label: (inference_precision(cm), str(int8_kernels(cm))) for label, cm in compiled.items()}


def _device_lines(device: str, precision_hint: str) -> str:
    from ..runtime.device import device_info

    info = device_info(device)
    return (f"device: {device} ({info.full_name}); capabilities: {', '.join(info.capabilities) or '-'}\n"
            f"ISA: {', '.join(info.isa) or '-'} (INT8 acceleration: {info.int8_isa}); "
            f"INFERENCE_PRECISION_HINT: {precision_hint}")


def _table(results: dict[str, BenchResult], facts: dict[str, tuple[str, str]]) -> str:
    from rich.console import Console
    from rich.table import Table

    base, fp32 = results[ORIGINAL], results.get(FP32)
    table = Table(title="benchmark")
    for column in ("model", "inference precision", "INT8 kernels", "throughput (FPS)", "median (ms)",
                   "p90 (ms)", "iterations", "vs original", *(("vs fp32",) if fp32 else ())):
        table.add_column(column, justify="left" if column == "model" else "right", no_wrap=True)
    for label, r in results.items():
        row = [label, *facts[label], f"{r.throughput:.1f}", f"{r.median_ms:.3f}", f"{r.p90_ms:.3f}",
               str(r.iterations), f"{r.throughput / base.throughput:.2f}x"]
        if fp32 is not None:
            row.append(f"{r.throughput / fp32.throughput:.2f}x")
        table.add_row(*row)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(table)
    return console.file.getvalue()
