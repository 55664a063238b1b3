"""`lpt transform`: read an IR, run LPT over it, write the result.

The output is written atomically (temp files renamed into place), so a failure at any
step leaves no partial file, and the input model can never be overwritten. `--trace DIR`
also writes the graph after each pipeline step, to see where LPT made (or skipped) a change.
`--check` then runs the original and the output on this machine's CPU plugin and removes an
output that computes something else (lpt_cli/runtime/check.py).
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import CheckFailed, LptError
from ..ir import DIALECTS
from .paths import check_model, check_output

if TYPE_CHECKING:
    from collections import Counter

    from ..api import ByteProgress, Transformed
    from ..ir.graph import Graph
    from ..lpt.engine.config import Config
    from ..lpt.engine.pipeline import StepHook
    from ..runtime.check import CheckResult

_EPILOG = """\b
Examples:
  lpt transform model.xml                      # cpu profile -> ./model_lpt.xml
  lpt transform model.xml --config cpu -o out/model_int8.xml
  lpt transform model.xml --config my_restrictions.yaml --dialect lowp
  lpt transform model.xml --trace trace/       # + trace/01_prerequisites.xml, 02_markup.xml, ...
  lpt transform model.xml --check -o out.xml   # + run both on this CPU; exit 4 if an output differs
  lpt transform bert.xml --check --shape input_ids=1,128 --shape attention_mask=1,128

\b
Dialects:
  runtime  stock OpenVINO loads it; the CPU plugin runs LPT's layers in INT8
           (low-precision inputs are written as Convert -> Multiply dequantizations)
  lowp     LPT's graph verbatim: U8/I8 ports on type-relaxed ops, exactly as
           OpenVINO serializes them (for inspection and comparison; stock
           OpenVINO cannot load e.g. a Convolution with U8/I8 inputs)

\b
Trace (--trace DIR):
  DIR/NN_<step>.xml/.bin after each step that ran: common_optimizations (the plugin's, with
  a plugin profile), prerequisites, markup, main,
  cleanup, fold_fake_quantize, constant_folding. Always the lowp dialect; the
  markup attributes are rt_info of layers and ports (LowPrecision::Precisions,
  ...; shown by Netron). DIR is created if needed; existing files are overwritten.

\b
Check (--check):
  compiles the original and the output on this machine's CPU plugin, each in a
  child process (INFERENCE_PRECISION_HINT f32; a crash is reported, not fatal),
  runs both on the same seeded random inputs (--seed) and compares every output:
  max|output - original| <= 1e-5 * max|original| (absolute for an all-zero
  output). Dynamic dimensions take --shape, else batch 1, 224x224 images and
  128-long sequences (the summary says so); integer inputs get small
  non-negative values, masks ones then zeros. Runtime dialect only (stock
  OpenVINO cannot load lowp). Add it in CI: a transformed model that computes
  something else never reaches the next step.

\b
Exit codes:
  0  written (with --check: every output matches the original)
  1  internal error (a bug in lpt); with --check also: the plugin runs the
     original but not lpt's output (the output is removed)
  2  bad input or usage: unreadable model or config, output path; with
     --check: a bad --shape, or the plugin does not run the original
  4  --check: an output differs from the original by more than 1e-5 of its
     max; the output is removed, one line names the output and its error
"""


@click.command(epilog=_EPILOG,
               short_help="Apply OpenVINO's Low Precision Transformations to the quantized IR MODEL.xml.")
@click.argument("model", type=click.Path(path_type=Path))
@click.option("--config", "config_spec", default="cpu", show_default=True, metavar="PATH|NAME",
              help="Restrictions file (YAML) or a built-in profile: default, cpu, cpu-vnni, cpu-amx, gpu "
                   "(see `lpt config list`).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Output IR .xml (the .bin goes beside it). Default: ./<model stem>_lpt.xml")
@click.option("--dialect", type=click.Choice(DIALECTS), default="runtime", show_default=True,
              help="How low-precision ops are written (see below).")
@click.option("--trace", "trace_dir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Also write the IR after each pipeline step into DIR (see below).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True,
              help="json: a machine-readable summary on stdout instead of the text on stderr (per layer: "
                   "precisions before and after, the passes that rewrote it, its new name).")
@click.option("--check", is_flag=True,
              help="Then run the original and the output on this machine's CPU plugin on the same random inputs; "
                   "an output off by more than 1e-5 of its max removes the output (exit 4; see below).")
@click.option("--shape", "shape_specs", multiple=True, metavar="NAME=D,D,...",
              help="With --check: the shape of an input with dynamic dimensions, as benchmark_app -shape "
                   "(repeatable; a bare 1,3,224,224 for a one-input model).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="With --check: the seed of the random inputs (default 0).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def transform(model: Path, config_spec: str, output: Path | None, dialect: str, trace_dir: Path | None,
              fmt: str, check: bool, shape_specs: tuple[str, ...], seed: int | None, quiet: bool) -> None:
    """Apply OpenVINO's Low Precision Transformations to the quantized IR MODEL.xml."""
    from ..api import resolve_config, transform_file  # the LPT stack loads only when a command needs it

    started = time.perf_counter()
    _check_usage(check, dialect, shape_specs, seed)
    shapes = None
    if shape_specs:
        from ..runtime.inputs import parse_shapes

        shapes = parse_shapes(shape_specs)
    config = resolve_config(config_spec)  # a bad config or path fails before a large model is read
    check_model(model)
    output = output if output is not None else Path.cwd() / f"{model.stem}_lpt.xml"
    protect = [model, model.with_suffix(".bin")]
    check_output(output, protect)
    traced: list[Path] = []
    if trace_dir is not None:
        _prepare_trace(trace_dir)
    with _status(quiet) as (show, moved):
        on_step = _tracer(trace_dir, protect, traced) if trace_dir is not None else None
        try:
            done = transform_file(model, output, config, dialect, check=check, shape=shapes, seed=seed or 0,
                                  progress=show, on_bytes=moved, on_step=on_step,
                                  keep_original=fmt == "json",  # the per-layer summary compares
                                  freeze_collector=True)  # this process ends with the command
        except CheckFailed as failed:
            if fmt == "json":  # the verdict, for a CI job to read; the error line follows on stderr
                _print_json(model, dialect, config, failed.transformed, time.perf_counter() - started)
            raise
    seconds = time.perf_counter() - started
    if fmt == "json":
        _print_json(model, dialect, config, done, seconds)
    elif not quiet:
        _summary(model, output, dialect, config.name, done.types_in, done.graph, done.layers_written,
                 done.result.applied, seconds, done.result.not_quantized, done.check)
        if trace_dir is not None:
            _trace_summary(trace_dir, traced)


def _check_usage(check: bool, dialect: str, shape_specs: tuple[str, ...], seed: int | None) -> None:
    """Options that make no sense together fail before anything is read or created."""
    if not check and (shape_specs or seed is not None):
        raise LptError(f"{'--shape' if shape_specs else '--seed'} sets the inputs of --check: add --check")
    if check and dialect != "runtime":
        raise LptError(f"--check runs the output on the CPU plugin, which cannot load the {dialect} dialect: "
                       "drop --dialect (the runtime dialect is the same LPT result) or --check")


def _print_json(model: Path, dialect: str, config: Config, done: Transformed, seconds: float) -> None:
    import json

    from ..reports.analyze import host_isa
    from ..reports.changes import transform_summary
    from ..reports.classify import build_report

    assert done.original is not None  # keep_original=True in JSON mode
    report = build_report(str(model), done.original, done.graph, done.result, config, host_isa())
    doc = transform_summary(report, done.original, done.result, output=str(done.output), dialect=dialect,
                            layers_in=sum(done.types_in.values()), layers_written=done.layers_written,
                            seconds=seconds)
    if done.check is not None:
        doc["check"] = done.check.to_dict()
    click.echo(json.dumps(doc, indent=2))


def _check_lines(check: CheckResult) -> list[str]:
    """The verdict of a passed check, and each dynamic dimension it sized by default."""
    from ..runtime.check import LIMIT

    worst = check.worst
    count = f"{len(check.outputs)} output{'s' if len(check.outputs) != 1 else ''}"
    detail = f"worst '{worst.name}' {worst.measure()}" if worst is not None else "no outputs"
    verdict = (f"  check: passed on this CPU, {count} within {LIMIT:g} of the original's max ({detail}; "
               f"random inputs, seed {check.seed})")
    return [verdict, *(f"  check inputs: {note}" for note in check.notes)]


def _prepare_trace(folder: Path) -> None:
    """Creates the trace folder before the model is read; an existing one is reused."""
    if folder.exists() and not folder.is_dir():
        raise LptError(f"--trace {folder}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LptError(f"--trace {folder}: cannot create the folder: {exc.strerror or exc}") from None


def _tracer(folder: Path, protect: list[Path], written: list[Path]) -> StepHook:
    """A pipeline callback writing the graph as DIR/NN_<step>.xml, LPT's markup as rt_info."""
    from ..ir.writer import write_ir
    from ..reports.rt_info import markup_rt_info

    def write(step: str, graph: Graph) -> None:
        path = folder / f"{len(written) + 1:02d}_{step}.xml"
        write_ir(graph, path, dialect="lowp", protect=protect, rt_info=markup_rt_info)
        written.append(path)

    return write


def _trace_summary(folder: Path, written: list[Path]) -> None:
    from rich.console import Console

    names = ", ".join(path.stem for path in written)
    Console(stderr=True, highlight=False).print(f"  trace: {folder}/ ({names})", markup=False)


def _stderr_is_rich() -> bool:
    """Whether rich may style stderr: a terminal, or an environment telling rich to treat it as
    one. Elsewhere rich would print the summary's plain lines, so they are printed without it
    (its import costs more CPU than reading a small model)."""
    return sys.stderr.isatty() or "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ


@contextmanager
def _status(quiet: bool) -> Iterator[tuple[Callable[[str], None], ByteProgress]]:
    """The API's (progress, on_bytes): a progress line on an interactive stderr once the run takes
    2 s (run_progress.py); silent otherwise."""
    if quiet or not _stderr_is_rich():  # rich is not even imported
        yield _silent_step, _silent_bytes
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield _silent_step, _silent_bytes
        return
    from .run_progress import progress_line

    with progress_line(console) as progress:
        yield progress.step, progress.moved


def _silent_step(_step: str) -> None:
    pass


def _silent_bytes(_done: int, _total: int | None) -> None:
    pass


def _summary(model: Path, output: Path, dialect: str, config_name: str, before: Counter[str],
             graph: Graph, written: int, applied: Counter[str], seconds: float, not_quantized: bool = False,
             check: CheckResult | None = None) -> None:
    """A few lines on stderr (stdout stays clean for scripts); on a terminal the paths are bold
    and the lines wrapped."""
    from ..reports.compression import weight_compressed_layers

    low = sum(1 for node in graph if node.type not in ("Constant", "Parameter", "Result", "Convert")
              and any(slot.source.element_type.name in ("u8", "i8") for slot in node.inputs))
    layers = f"{sum(before.values())} in {model.name}, {written} in {output.name}"
    lines = [f"  config: {config_name}", f"  layers: {layers}; {low} run on u8/i8 inputs after LPT"]
    if applied:
        lines.append(f"  applied: {', '.join(f'{name} x{count}' for name, count in applied.most_common(8))}")
    if not_quantized and weight_compressed_layers(graph, False):
        lines.append("  no FakeQuantize: LPT does not run on this model, as in the plugin (a weight-only "
                     "compressed model keeps its compressed weights)")
    elif not_quantized:
        lines.append("  no quantization: the model has no FakeQuantize and no compressed weights, so LPT "
                     "has nothing to do and the output is the plugin-optimized float model; quantize it "
                     "with NNCF first (nncf.quantize)")
    if check is not None:
        lines += _check_lines(check)
    tail = f" ({dialect} dialect, {seconds:.2f} s)"
    if not _stderr_is_rich():
        click.echo("\n".join([f"{model} -> {output}{tail}", *lines]), err=True)
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(stderr=True, highlight=False, emoji=False)  # `:name:` in a path stays as written
    console.soft_wrap = not console.is_terminal
    console.print(Text.assemble((str(model), "bold"), " -> ", (str(output), "bold"), tail))
    for line in lines:
        console.print(line, markup=False)
