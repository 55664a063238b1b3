"""`lpt benchmark`: how much faster the LPT-transformed model runs than the original."""
from __future__ import annotations

import io
import tempfile
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..lpt.config import load_config
from ..reports.analyze import analyze, write_runtime_model
from ..runtime import bench
from ..runtime.compile import PRECISION_HINTS, compile_model, inference_precision
from ..runtime.device import device_info, require_device
from ..runtime.inputs import random_inputs

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
    """Throughput and latency of MODEL (FakeQuantize), its LPT-transformed version and an FP32 reference."""
    require_device(device)
    analysis = analyze(model, load_config(config_spec))
    with tempfile.TemporaryDirectory(prefix="lpt-benchmark-") as tmp:
        models = {"original (FakeQuantize)": model, "lpt-transformed": write_runtime_model(analysis, tmp, model)}
        if fp32_model is not None:
            models["fp32 reference"] = fp32_model
        compiled = {label: compile_model(path, device, precision_hint=precision_hint)
                    for label, path in models.items()}
    inputs = random_inputs(compiled["original (FakeQuantize)"], 0)
    results: dict[str, bench.BenchResult] = {}
    with Progress(TextColumn("{task.description:<24}"), BarColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        for label, cm in compiled.items():
            task = progress.add_task(label, total=1.0)
            tick = lambda done, t=task: progress.update(t, completed=done)  # noqa: E731
            results[label] = bench.benchmark(cm, inputs, seconds, tick)
    info = device_info(device)
    used = inference_precision(compiled["lpt-transformed"])
    click.echo(_table(results), nl=False)
    click.echo(f"device: {device} ({info.full_name}); capabilities: {', '.join(info.capabilities) or '-'}")
    click.echo(f"ISA: {', '.join(info.isa) or '-'} (INT8 acceleration: {info.int8_isa}); "
               f"inference precision: {used} (hint {precision_hint})")


def _table(results: dict[str, bench.BenchResult]) -> str:
    base = results["original (FakeQuantize)"]
    fp32 = results.get("fp32 reference")
    table = Table(title="benchmark")
    for column in ("model", "throughput (FPS)", "median (ms)", "p90 (ms)", "iterations", "vs original"):
        table.add_column(column, justify="left" if column == "model" else "right")
    if fp32 is not None:
        table.add_column("vs fp32", justify="right")
    for label, r in results.items():
        row = [label, f"{r.throughput:.1f}", f"{r.median_ms:.3f}", f"{r.p90_ms:.3f}", str(r.iterations),
               f"{r.throughput / base.throughput:.2f}x"]
        if fp32 is not None:
            row.append(f"{r.throughput / fp32.throughput:.2f}x")
        table.add_row(*row)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(table)
    return console.file.getvalue()
