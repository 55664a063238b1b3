"""`lpt benchmark`: how much faster the LPT-transformed model runs than the original."""
from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..runtime import BENCH_APIS, FP32, ORIGINAL, PRECISION_HINTS, SLICE_SECONDS, TRANSFORMED
from .options import config_option, debug_option
from .paths import check_model

if TYPE_CHECKING:
    from ..runtime.bench import BenchResult
EPILOG = """\b
Examples:
  lpt benchmark model.xml                   # original and transformed, 5 s
  lpt benchmark model.xml --fp32 model_fp32.xml -t 10
  lpt benchmark model.xml --api async --hint throughput

\b
Modes (as benchmark_app):
  --api sync   one request at a time; latency is each call's wall time
               (default)
  --api async  --nireq requests in flight (default: the device's optimal
               number)
  --hint       PERFORMANCE_HINT: latency (default with sync) or throughput
               (with async)
The models are measured round robin in short slices until each had --time
seconds, after a warm-up, so load from other processes hits all of them
alike. Ctrl-C prints what was measured.

\b
Exit codes:
  0    measured
  1    internal error (a bug in lpt)
  2    bad input: unreadable model or config, --fp32 not the float model of
       MODEL, device not available here, a model does not compile
  130  interrupted (Ctrl-C); the rows measured so far are printed
"""
# Two-line headers of the turned table (one column per model), for 80-column terminals.
_SHORT = {ORIGINAL: "original\n(FakeQuantize)", TRANSFORMED: "lpt-\ntransformed", FP32: "fp32\nreference"}


@click.command("benchmark", epilog=EPILOG,
               short_help="Throughput and latency of MODEL, its LPT-transformed version and an FP32 reference.")
@click.argument("model", type=click.Path(path_type=Path))
@config_option()
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
@debug_option
def benchmark(model: Path, config_spec: str, device: str, fp32_model: Path | None, seconds: float, api: str,
              nireq: int | None, hint: str | None, precision_hint: str) -> None:
    """Throughput and latency of MODEL (FakeQuantize), its LPT-transformed version and an FP32 reference.

    The spread is shown (min, median with its 95% confidence interval, p90): medians whose
    intervals overlap are not a measured difference. A progress bar goes to stderr.
    """
    from ..api import benchmark as run_benchmark  # imported here: `lpt --help` loads no command's stack
    from ..text import terminal_width

    check_model(model)
    if fp32_model is not None:
        check_model(fp32_model)
    try:
        with _progress_bar() as tick:
            done = run_benchmark(model, config_spec, fp32=fp32_model, device=device, seconds=seconds, api=api,
                                 nireq=nireq, hint=hint, precision_hint=precision_hint, tick=tick)
    except KeyboardInterrupt:
        click.echo("lpt: interrupted before anything was measured", err=True)
        click.get_current_context().exit(130)
    results = {label: timed.stats for label, timed in done.models.items()}
    if results:
        facts = {label: (timed.inference_precision, str(timed.int8_kernels)) for label, timed in done.models.items()}
        click.echo(_table(results, facts, terminal_width()), nl=False)
        requests = ", ".join(sorted({str(r.requests) for r in results.values()}))
        click.echo(f"mode: {api}, {requests} request(s) in flight, PERFORMANCE_HINT {done.hint}, {seconds:g} s per "
                   f"model, round robin in {SLICE_SECONDS:g} s slices after a warm-up")
        click.echo(_device_lines(device, precision_hint))
    if done.interrupted:
        measured = ", ".join(f"{label} {r.seconds:.1f} s" for label, r in results.items()) or "nothing"
        click.echo(f"lpt: interrupted: measured {measured} of {seconds:g} s each", err=True)
        click.get_current_context().exit(130)


@contextmanager
def _progress_bar() -> Iterator[Callable[[float], None]]:
    """`tick(fraction)` for the measurement; a progress bar on stderr from the first tick (the
    compiles before it are not measuring)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("measuring, round robin"), BarColumn(), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task("measure", total=1.0)

    def tick(fraction: float) -> None:
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=fraction)

    try:
        yield tick
    finally:
        if bar.live.is_started:
            bar.stop()


def _device_lines(device: str, precision_hint: str) -> str:
    from ..runtime.device import device_info

    info = device_info(device)
    return (f"device: {device} ({info.full_name}); capabilities: {', '.join(info.capabilities) or '-'}\n"
            f"ISA: {', '.join(info.isa) or '-'} (--config cpu: {info.cpu_profile}); "
            f"INFERENCE_PRECISION_HINT: {precision_hint}")


_NO_DIFFERENCE = "no measured difference"


def _versus(result: BenchResult, reference: BenchResult) -> str:
    """How many times faster than `reference`, from the medians, or that the medians' 95%
    intervals overlap."""
    from ..runtime.bench import speedup

    times = speedup(result, reference)
    return _NO_DIFFERENCE if times is None else f"{times:.2f}x"


def _table(results: dict[str, BenchResult], facts: dict[str, tuple[str, str]], width: int) -> str:
    """One row per model when `width` allows, else one column per model (fits 80 columns).
    "vs original" and "vs fp32" compare the median latencies."""
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
        row += [_versus(r, reference) for reference in (base, fp32) if reference is not None]
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
        for i, column in enumerate(columns):  # a narrow column says "no measured difference" in two lines
            table.add_row(column, *(row[i].replace(_NO_DIFFERENCE, "no measured\ndifference")
                                    for row in cells.values()))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None)
    console.print(table)
    return buffer.getvalue()
