"""`lpt transform`: read an IR, run LPT over it, write the result.

The output is written atomically (temp files renamed into place), and a run that fails or is
interrupted removes what it wrote (the outputs of the models before, trace files, folders it
created), so it leaves nothing behind; the input model can never be overwritten. Several
models (or a folder's) are transformed into one output folder, all or nothing. `--trace DIR`
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
from ..outputs import Written, all_or_nothing, create_folder, prepare_output
from .options import config_option, debug_option
from .paths import check_model
from .report_many import model_paths

if TYPE_CHECKING:
    from collections import Counter

    from ..api import ByteProgress, Transformed
    from ..ir.graph import Graph
    from ..lpt.engine.config import Config
    from ..lpt.engine.pipeline import StepHook
    from ..runtime.check import CheckResult

_EPILOG = """\b
Examples:
  lpt transform model.xml                 # cpu profile -> ./model_lpt.xml
  lpt transform model.xml --config cpu -o out/model_int8.xml
  lpt transform model.xml --config my_restrictions.yaml --dialect lowp
  lpt transform exports/ -o deploy/       # every exports/*.xml -> deploy/
  lpt transform model.xml --trace trace/  # + the graph after each step, in
                                          #   01_common_optimizations.xml,
                                          #   02_pre_lpt.xml, ...
  lpt transform model.xml --check -o out.xml
                                          # + run both on this CPU; exit 4
                                          #   if an output differs
  lpt transform bert.xml --check --shape input_ids=1,128 \\
      --shape attention_mask=1,128

\b
Dialects:
  runtime  stock OpenVINO loads it; the CPU plugin runs LPT's layers in INT8
           (low-precision inputs are written as Convert -> Multiply
           dequantizations)
  lowp     LPT's graph verbatim: U8/I8 ports on type-relaxed ops, exactly as
           OpenVINO serializes them (for inspection and comparison; stock
           OpenVINO cannot load e.g. a Convolution with U8/I8 inputs)

\b
Trace (--trace DIR):
  DIR/NN_<step>.xml/.bin after each step that ran: common_optimizations (the
  plugin's, with a plugin profile such as the default cpu), prerequisites,
  markup, main, cleanup, fold_fake_quantize, constant_folding. Always the
  lowp dialect; the markup attributes are rt_info of layers and ports
  (LowPrecision::Precisions, ...; shown by Netron). DIR is created if needed;
  existing files are overwritten.

\b
Check (--check):
  compiles the original and the output on this machine's CPU plugin, each in
  a child process (INFERENCE_PRECISION_HINT f32; a crash is reported, not
  fatal), runs both on the same seeded random inputs (--seed) and compares
  every output: max|output - original| <= 1e-5 * max|original| (absolute for
  an all-zero output). Dynamic dimensions take --shape, else batch 1, 224x224
  images and 128-long sequences (the summary says so); integer inputs get
  small non-negative values, masks ones then zeros. Runtime dialect only
  (stock OpenVINO cannot load lowp). Add it in CI: a transformed model that
  computes something else never reaches the next step.

\b
Several models:
  MODEL.xml... or a FOLDER (its *.xml, in name order) are all checked, then
  transformed one by one; -o is then a folder (created if needed) and each
  output keeps its model's file name; without -o each is ./<stem>_lpt.xml.
  All or nothing: when one model fails, the outputs written before it are
  removed. --trace and --format json take one model.

\b
Exit codes:
  0    written (with --check: every output matches the original)
  1    internal error (a bug in lpt); with --check also: the plugin runs the
       original but not lpt's output (the output is removed)
  2    bad input or usage: unreadable model or config, output path; with
       --check: a bad --shape, or the plugin does not run the original
  4    --check: an output differs from the original by more than 1e-5 of
       its max; the output is removed, one line names the output and its
       error
  130  interrupted (Ctrl-C)
A run that fails or is interrupted leaves nothing behind: no output, no trace
file, no folder it created.
"""


@click.command(epilog=_EPILOG,
               short_help="Apply OpenVINO's Low Precision Transformations to quantized IR models.")
@click.argument("models", nargs=-1, required=True, metavar="MODEL.xml... | FOLDER", type=click.Path(path_type=Path))
@config_option()
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Output IR .xml (the .bin goes beside it), or a folder to write into (several models: "
                   "always a folder). Default: ./<model stem>_lpt.xml")
@click.option("--dialect", type=click.Choice(DIALECTS), default="runtime", show_default=True,
              help="How low-precision ops are written (see below).")
@click.option("--trace", "trace_dir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Also write the IR after each pipeline step into DIR (see below).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True,
              help="json: a machine-readable summary on stdout instead of the text on stderr (per layer of the "
                   "original that computes on activations, as in `lpt report`: precisions before and after, "
                   "the passes that rewrote it, its new name). Not with --quiet.")
@click.option("--check", is_flag=True,
              help="Then run the original and the output on this machine's CPU plugin on the same random inputs; "
                   "an output off by more than 1e-5 of its max removes the output (exit 4; see below).")
@click.option("--shape", "shape_specs", multiple=True, metavar="NAME=D,D,...",
              help="With --check: the shape of an input with dynamic dimensions, as benchmark_app -shape "
                   "(repeatable; a bare 1,3,224,224 for a one-input model).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="With --check: the seed of the random inputs (default 0).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (not with --format json).")
@debug_option
def transform(models: tuple[Path, ...], config_spec: str, output: Path | None, dialect: str, trace_dir: Path | None,
              fmt: str, check: bool, shape_specs: tuple[str, ...], seed: int | None, quiet: bool) -> None:
    """Apply OpenVINO's Low Precision Transformations to the quantized IR MODEL.xml (or several)."""
    from ..api import resolve_config, transform_file  # the LPT stack loads only when a command needs it

    started = time.perf_counter()
    _check_usage(check, dialect, shape_specs, seed, fmt, quiet)
    shapes = None
    if shape_specs:
        from ..runtime.inputs import parse_shapes

        shapes = parse_shapes(shape_specs)
    config = resolve_config(config_spec)  # a bad config or path fails before a large model is read
    if check and config.inference_precision.name != "f32":
        raise LptError(f"--check compares on this CPU in f32; --config {config_spec} converts the model to "
                       f"{config.inference_precision.name} before LPT, as its plugin does: drop --check and compare "
                       "on the device with `lpt verify -d GPU`")
    paths = [check_model(path) for path in model_paths(models).paths]
    several = len(paths) > 1 or models[0].is_dir()
    if several and (trace_dir is not None or fmt == "json"):
        raise LptError(f"{'--trace' if trace_dir is not None else '--format json'} takes one model "
                       f"({len(paths)} given)")
    targets = _targets(paths, output, several)
    protect = [p for path in paths for p in (path, path.with_suffix(".bin"))]
    done: list[tuple[Transformed, float]] = []  # each model's run and its seconds
    with all_or_nothing() as written, _status(quiet) as (show, moved):
        for target in targets:  # every output checked, its folder made, before any model is read
            written.folders += prepare_output(target, protect)
        traced: list[Path] = []
        on_step = _tracer(trace_dir, protect, written, traced) if trace_dir is not None else None
        for path, target in zip(paths, targets):
            begun = time.perf_counter()
            progress = _prefixed(show, f"{path.name}: ") if several else show
            try:
                result = transform_file(path, target, config, dialect, check=check, shape=shapes, seed=seed or 0,
                                        progress=progress, on_bytes=moved, on_step=on_step,
                                        keep_original=fmt == "json",  # the per-layer summary compares
                                        freeze_collector=not several)  # this process ends with the command
            except CheckFailed as failed:
                if fmt == "json":  # the verdict, for a CI job to read; the error line follows on stderr
                    _print_json(path, dialect, config, failed.transformed, time.perf_counter() - started)
                raise
            written.add_ir(target)
            done.append((result, time.perf_counter() - (begun if several else started)))
    if fmt == "json":
        _print_json(paths[0], dialect, config, done[0][0], time.perf_counter() - started)
    elif not quiet:
        for path, (result, seconds) in zip(paths, done):
            _summary(path, result.output, dialect, config.name, result.types_in, result.graph, result.layers_written,
                     result.result.applied, seconds, result.result.not_quantized, result.check)
        if trace_dir is not None:
            _trace_summary(trace_dir, traced)


def _prefixed(show: Callable[[str], None], prefix: str) -> Callable[[str], None]:
    """`show` with each step named after its model."""
    return lambda step: show(prefix + step)


def _targets(paths: list[Path], output: Path | None, several: bool) -> list[Path]:
    """Where each model is written: -o as a file for one model, else a folder keeping the names."""
    if output is None:
        targets = [Path.cwd() / f"{path.stem}_lpt.xml" for path in paths]
    elif not several and not output.is_dir():
        return [output]
    elif output.exists() and not output.is_dir():
        raise LptError(f"-o {output}: is a file; several models are written into a folder")
    elif output.suffix.lower() == ".xml" and not output.exists():
        raise LptError(f"-o {output}: several models are written into a folder, not one .xml file")
    else:
        targets = [output / path.name for path in paths]
    seen: dict[Path, Path] = {}
    for path, target in zip(paths, targets):
        if target in seen:
            raise LptError(f"{seen[target]} and {path} would both be written to {target}")
        seen[target] = path
    return targets


def _check_usage(check: bool, dialect: str, shape_specs: tuple[str, ...], seed: int | None, fmt: str,
                 quiet: bool) -> None:
    """Options that make no sense together fail before anything is read or created."""
    if quiet and fmt == "json":
        raise LptError("--quiet prints nothing, --format json prints the summary: give one of them")
    if not check and (shape_specs or seed is not None):
        raise LptError(f"{'--shape' if shape_specs else '--seed'} sets the inputs of --check: add --check")
    if check and dialect != "runtime":
        raise LptError(f"--check runs the output on the CPU plugin, which cannot load the {dialect} dialect: "
                       "drop --dialect (the runtime dialect is the same LPT result) or --check")


def _print_json(model: Path, dialect: str, config: Config, done: Transformed, seconds: float) -> None:
    import json

    from ..reports.changes import transform_summary
    from ..reports.classify import build_report

    assert done.original is not None  # keep_original=True in JSON mode
    report = build_report(str(model), done.original, done.graph, done.result, config)
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


def _tracer(folder: Path, protect: list[Path], written: Written, traced: list[Path]) -> StepHook:
    """A pipeline callback writing the graph as DIR/NN_<step>.xml, LPT's markup as rt_info; the
    folder is made first (an existing one is reused), and what it writes belongs to the run."""
    from ..ir.writer import write_ir
    from ..reports.rt_info import markup_rt_info

    if folder.exists() and not folder.is_dir():
        raise LptError(f"--trace {folder}: is a file, not a folder")
    written.folders += create_folder(folder, "the --trace folder")

    def write(step: str, graph: Graph) -> None:
        path = folder / f"{len(traced) + 1:02d}_{step}.xml"
        write_ir(graph, path, dialect="lowp", protect=protect, rt_info=markup_rt_info)
        written.add_ir(path)
        traced.append(path)

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
    same_name = model.name == output.name  # `in resnet.xml, in resnet.xml` would not say which is which
    layers = (f"{sum(before.values())} in {model if same_name else model.name}, "
              f"{written} in {output if same_name else output.name}")
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
