"""`lpt benchmark`: how much faster the LPT-transformed model runs than the original."""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import LptError
from ..runtime import BENCH_APIS, PRECISION_HINTS, SLICE_SECONDS
from .paths import check_model

if TYPE_CHECKING:
    from openvino import CompiledModel

    from ..runtime.bench import BenchResult, Measured

ORIGINAL, TRANSFORMED, FP32 = "original (FakeQuantize)", "lpt-transformed", "fp32 reference"
EPILOG = """\b
Modes (as benchmark_app):
  --api sync   one request at a time; latency is each call's wall time (default)
  --api async  --nireq requests in flight (default: the device's optimal number)
  --hint       PERFORMANCE_HINT: latency (default with sync) or throughput (with async)
The models are measured round robin in short slices until each had --time seconds, after a
warm-up, so load from other processes hits all of them alike. Ctrl-C prints what was measured.

\b
Exit codes:
  0    measured
  2    bad input: unreadable model or config, --fp32 not the float model of MODEL,
       device not available here, a model does not compile
  130  interrupted (Ctrl-C); the rows measured so far are printed
"""
# Two-line headers of the turned table (one column per model), for 80-column terminals.
_SHORT = {ORIGINAL: "original\n(FakeQuantize)", TRANSFORMED: "lpt-\ntransformed", FP32: "fp32\nreference"}


@click.command("benchmark", epilog=EPILOG,
               short_help="Throughput and latency of MODEL, its LPT-transformed version and an FP32 reference.")
@click.argument("model", type=click.Path(path_type=Path))
@click.option("--config", "config_spec", default="cpu", show_default=True,
              help="Built-in profile (default, cpu, a cpu-* profile, gpu, gpu-xmx: `lpt config list`) or a YAML config file.")
@click.option("-d", "--device", default="CPU", show_default=True, help="CPU, GPU or AUTO.")
@click.option("--fp32", "fp32_model", type=click.Path(path_type=Path),
              help="The FP32 model MODEL was quantized from, measured as the reference.")
@click.option("-t", "--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=5.0, show_default=True,
              help="Seconds of inference per model.")
@click.option("--api", type=click.Choice(BENCH_APIS), default="sync", show_default=True,
              help="sync: one request at a time; async: --nireq requests in flight.")
@click.option("--nireq", type=click.IntRange(min=1), default=None,
              help="Requests in flight with --api async (default: the device's optimal number).")
@click.option("--hint", type=click.Choice(("latency", "throughput")), default=None,
              help="PERFORMANCE_HINT (default: latency with sync, throughput with async).")
@click.option("--precision-hint", type=click.Choice(PRECISION_HINTS), default="f32", show_default=True,
              help="INFERENCE_PRECISION_HINT (float layers); f32 keeps results comparable across CPUs.")
def benchmark(model: Path, config_spec: str, device: str, fp32_model: Path | None, seconds: float, api: str,
              nireq: int | None, hint: str | None, precision_hint: str) -> None:
    """Throughput and latency of MODEL (FakeQuantize), its LPT-transformed version and an FP32 reference.

    The spread is shown (min, median with its 95% confidence interval, p90): medians whose
    intervals overlap are not a measured difference. A progress bar goes to stderr.
    """
    import tempfile

    from ..lpt.engine.config import load_config  # imported here: `lpt --help` loads no command's stack
    from ..reports.analyze import analyze, write_runtime_model
    from ..runtime.compile import compile_model
    from ..runtime.device import require_device
    from ..text import terminal_width
    from ..runtime.interface import require_same_interface

    if nireq is not None and api == "sync":
        raise LptError("--nireq: needs --api async (sync runs one request at a time)")
    hint = hint or ("latency" if api == "sync" else "throughput")
    check_model(model)
    if fp32_model is not None:
        check_model(fp32_model)
    require_device(device)
    if fp32_model is not None:
        require_same_interface(model, fp32_model)
    try:
        analysis = analyze(model, load_config(config_spec))
        with tempfile.TemporaryDirectory(prefix="lpt-benchmark-") as tmp:
            paths = {ORIGINAL: model, TRANSFORMED: write_runtime_model(analysis, tmp, model)}
            if fp32_model is not None:
                paths[FP32] = fp32_model
            compiled = {label: compile_model(path, device, precision_hint=precision_hint, performance_hint=hint)
                        for label, path in paths.items()}
        measured = _measure(compiled, seconds, api, nireq or 0)
    except KeyboardInterrupt:
        click.echo("lpt: interrupted before anything was measured", err=True)
        click.get_current_context().exit(130)
    if measured.results:
        click.echo(_table(measured.results, _facts(compiled), terminal_width()), nl=False)
        requests = ", ".join(sorted({str(r.requests) for r in measured.results.values()}))
        click.echo(f"mode: {api}, {requests} request(s) in flight, PERFORMANCE_HINT {hint}, {seconds:g} s per model, "
                   f"round robin in {SLICE_SECONDS:g} s slices after a warm-up")
        click.echo(_device_lines(device, precision_hint))
    if measured.interrupted:
        done = ", ".join(f"{label} {r.seconds:.1f} s" for label, r in measured.results.items()) or "nothing"
        click.echo(f"lpt: interrupted: measured {done} of {seconds:g} s each", err=True)
        click.get_current_context().exit(130)


def _measure(compiled: dict[str, CompiledModel], seconds: float, api: str, nireq: int) -> Measured:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from ..runtime.bench import measure
    from ..runtime.inputs import random_inputs

    inputs = random_inputs(compiled[ORIGINAL], 0)
    with Progress(TextColumn("measuring, round robin"), BarColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("measure", total=1.0)
        return measure(compiled, inputs, seconds, api=api, nireq=nireq,
                       tick=lambda done: progress.update(task, completed=done))


def _facts(compiled: dict[str, CompiledModel]) -> dict[str, tuple[str, str]]:
    """(inference precision, number of INT8 kernels) per model."""
    from ..runtime.compile import inference_precision
    from ..runtime.layers import int8_kernels

    return {label: (inference_precision(cm), str(int8_kernels(cm))) for label, cm in compiled.items()}


def _device_lines(device: str, precision_hint: str) -> str:
    from ..runtime.device import device_info

    info = device_info(device)
    return (f"device: {device} ({info.full_name}); capabilities: {', '.join(info.capabilities) or '-'}\n"
            f"ISA: {', '.join(info.isa) or '-'} (--config cpu: {info.cpu_profile}); "
            f"INFERENCE_PRECISION_HINT: {precision_hint}")


def _table(results: dict[str, BenchResult], facts: dict[str, tuple[str, str]], width: int) -> str:
    """One row per model when `width` allows, else one column per model (fits 80 columns)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    base, fp32 = results.get(ORIGINAL), results.get(FP32)
    columns = ["inference precision", "INT8 kernels", "throughput (FPS)", "min (ms)", "median (ms)",
               "95% CI (ms)", "p90 (ms)", "iterations"]
    if base is not None:
        columns.append("vs original")
    if fp32 is not None:
        columns.append("vs fp32")
    cells: dict[str, list[str]] = {}
    for label, r in results.items():
        low, high = r.median_ci_ms
        row = [*facts[label], f"{r.throughput:.1f}", f"{r.min_ms:.3f}", f"{r.median_ms:.3f}",
               f"{low:.3f}-{high:.3f}", f"{r.p90_ms:.3f}", str(r.iterations)]
        if base is not None:
            row.append(f"{r.throughput / base.throughput:.2f}x")
        if fp32 is not None:
            row.append(f"{r.throughput / fp32.throughput:.2f}x")
        cells[label] = row
    wide = max(map(len, cells)) + sum(max(len(c), *(len(row[i]) for row in cells.values()))
                                      for i, c in enumerate(columns)) + 3 * (len(columns) + 1) + 1
    if wide <= width:
        table = Table(title="benchmark")
        table.add_column("model", no_wrap=True)
        for column in columns:
            table.add_column(column, justify="right", no_wrap=True)
        for label, row in cells.items():
            table.add_row(label, *row)
    else:
        table = Table(title="benchmark", box=box.SIMPLE_HEAD)
        table.add_column("", no_wrap=True)
        for label in cells:
            table.add_column(_SHORT[label], justify="right", no_wrap=True)
        for i, column in enumerate(columns):
            table.add_row(column, *(row[i] for row in cells.values()))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None)
    console.print(table)
    return buffer.getvalue()
