"""The Python API: what the `lpt` commands do, callable from a notebook or a script.

A model is an IR path or an in-memory `openvino.Model` (what `nncf.quantize` returns). lpt's
pipeline works on its own graph read from IR files, so an in-memory model goes through a
temporary IR written by openvino (lpt_cli.runtime.convert, the only openvino user), and a
transformed model comes back the same way. The CLI commands call these functions, so both
give the same results.

This module imports the LPT stack (numpy, no openvino) when first used: `import lpt_cli`
stays cheap and reaches it lazily.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Union

from .errors import CheckFailed, CompileRefused, LptError, OutputRefused
from .ir import DIALECTS, Graph
from .ir.reader import read_ir
from .ir.writer import write_ir
from .lpt.engine.config import Config, load_config
from .lpt.engine.pipeline import PipelineResult, run_pipeline
from .outputs import all_or_nothing, prepare_output

if TYPE_CHECKING:  # the report modules load in the functions that use them: `lpt transform` skips them
    import openvino

    from .lpt.engine.pipeline import Progress, StepHook
    from .reports.analyze import Analysis
    from .reports.diff import Diff
    from .reports.model import Report
    from .runtime.bench import BenchResult
    from .runtime.check import CheckInputs, CheckResult
    from .runtime.compare_outputs import OutputVerdict

ModelLike = Union[str, "os.PathLike[str]", "openvino.Model"]
ConfigLike = Union[str, "os.PathLike[str]", Config]
ShapeLike = Mapping[str, Sequence[int]]  # input name ("" for a one-input model) -> static shape
ByteProgress = Callable[[int, "int | None"], None]  # (bytes done, total or None if not known)


@dataclass(frozen=True)
class Transformed:
    """One `transform_file` run: the transformed graph as written, and what the pipeline did."""

    output: Path
    config: str  # the config's name (a resolved `cpu` says which variant)
    types_in: Counter[str]  # op type -> nodes of the model read
    graph: Graph  # the transformed graph (LPT's lowp form, whatever dialect was written)
    result: PipelineResult
    layers_written: int  # layers of the written file (the runtime dialect adds Converts)
    original: Graph | None = None  # the graph as read, when `keep_original` asked for it
    check: CheckResult | None = None  # the check's verdict, when `check=True` asked for it (it passed)


def resolve_config(config: ConfigLike) -> Config:
    """A Config object as is; a built-in profile name or a YAML path loaded."""
    return config if isinstance(config, Config) else load_config(os.fspath(config))


def transform(model: ModelLike, config: ConfigLike = "cpu", dialect: str = "runtime", *, check: bool = False,
              shape: ShapeLike | None = None, seed: int = 0) -> openvino.Model:
    """LPT applied to `model` under `config`, as an `openvino.Model` (compile it, or save it with
    `openvino.save_model(m, path, compress_to_fp16=False)` to keep the f32 dequantization scales).

    `dialect="lowp"` (LPT's graph verbatim) is only loadable by openvino when no layer takes
    u8/i8 inputs: otherwise this raises LptError; write it with `transform_file` instead.
    `check`, `shape` and `seed`: as for `transform_file`.
    """
    import tempfile

    from .runtime.convert import read_model

    with tempfile.TemporaryDirectory(prefix="lpt-api-", ignore_cleanup_errors=True) as tmp:
        done = transform_file(model, Path(tmp) / "model_lpt.xml", config, dialect, check=check, shape=shape, seed=seed)
        # openvino memory-maps the .bin; the mapping outlives the folder's removal.
        return read_model(done.output, hint="write it with lpt_cli.transform_file" if dialect == "lowp" else "")


def transform_file(model: ModelLike, output: str | os.PathLike[str], config: ConfigLike = "cpu",
                   dialect: str = "runtime", *, check: bool = False, shape: ShapeLike | None = None, seed: int = 0,
                   progress: Progress | None = None, on_bytes: ByteProgress | None = None,
                   on_step: StepHook | None = None, keep_original: bool = False,
                   freeze_collector: bool = False) -> Transformed:
    """LPT applied to `model`, written as the IR `output` (.xml, the .bin beside it) atomically;
    the input is never overwritten. `progress(step)` and `on_step(step, graph)` follow the run,
    `on_bytes(done, total)` the bytes of .bin moved in the current step: the weights read by the
    pipeline (total None) and the constants written (`lpt transform`'s progress bar);
    `keep_original` keeps a copy of the graph as read (for a per-layer before/after summary).
    `freeze_collector` (for a process that ends with the call, like `lpt transform`) moves what
    was read out of the garbage collector's reach: it lives to the end, and the collections
    while legalizing and writing then skip it (about 7 % of BERT-base's process; the
    collector is paused while reading and transforming anyway). A model lpt already transformed is refused (LptError).

    `check` then compiles the original and the output on this machine's CPU plugin (in child
    processes, so a crash is an answer) and runs both on the same random inputs (`seed`; `shape`
    sizes dynamic dimensions, as for `report`, else batch 1, 224x224 images, 128-long sequences):
    when an output differs by more than 1e-5 of its max, or the plugin runs the original but not
    the output, the output is removed and CheckFailed raised (its `check` has every output's
    error); when the plugin does not run the original, an LptError.

    The output path is checked and its folder created before the model is read (an LptError
    when it cannot be written); a run that fails or is interrupted removes the folders it made."""
    import gc

    from . import __version__
    from .ir.legalize import copy_graph
    from .ir.provenance import require_not_transformed, stamp

    output = Path(output)
    if dialect not in DIALECTS:
        raise LptError(f"dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    if check and dialect != "runtime":
        raise LptError(f"check=True runs the output on the CPU plugin, which cannot load the {dialect} dialect: "
                       "check the runtime dialect (the same LPT result)")
    resolved = resolve_config(config)  # a bad config fails before a large model is read
    if check and resolved.inference_precision.name != "f32":
        raise LptError(f"check=True compares on this machine's CPU in f32; config {resolved.name} converts the model "
                       f"to {resolved.inference_precision.name} before LPT, as its plugin does: compare on that device "
                       "with `lpt verify -d GPU` instead")
    protect = [Path(model), Path(model).with_suffix(".bin")] if _is_path(model) else []
    with all_or_nothing() as run:  # a failed or interrupted run takes away the folder it made
        run.folders += prepare_output(output, protect)  # before a large model is read
        show = progress or (lambda _step: None)
        with model_file(model) as xml:
            label = model_name(model)
            show("reading")
            graph = read_ir(xml)
            if freeze_collector:
                gc.freeze()
            require_not_transformed(graph, xml)
            inputs = None
            if check:  # a bad shape fails before the work
                show("check: making inputs")
                inputs = _check_inputs(xml, label, shape, seed)
            types_in = Counter(node.type for node in graph)
            original = copy_graph(graph) if keep_original else None
            with _weights_read(graph, on_bytes):
                result = run_pipeline(graph, resolved, progress=progress, on_step=on_step)
            show("writing")
            stamp(graph, version=__version__, dialect=dialect, config=resolved.name)
            written = write_ir(graph, output, dialect=dialect, protect=[xml, xml.with_suffix(".bin")],
                               on_bytes=on_bytes)
            done = Transformed(output, resolved.name, types_in, graph, result, written, original)
            if inputs is not None:
                done = replace(done, check=_checked(done, inputs, xml, label, show))
        return done


@contextmanager
def _weights_read(graph: Graph, on_bytes: ByteProgress | None) -> Iterator[None]:
    """`on_bytes(read so far, None)` as the pipeline reads the weights from the .bin."""
    blob = graph.xml_blob
    if on_bytes is None or blob is None:
        yield
        return
    read = 0

    def seen(count: int) -> None:
        nonlocal read
        read += count
        on_bytes(read, None)

    blob.on_read = seen
    try:
        yield
    finally:
        blob.on_read = None


def _check_inputs(xml: Path, label: str, shape: ShapeLike | None, seed: int) -> CheckInputs:
    from .runtime.check import check_inputs  # openvino loads only for a check

    return check_inputs(xml, label, {name: tuple(dims) for name, dims in (shape or {}).items()}, seed)


def _checked(done: Transformed, inputs: CheckInputs, original: Path, label: str, show: Progress) -> CheckResult:
    """The check of `done.output` against `original`; one that fails removes the output and raises."""
    from .runtime.check import failure, run_check

    try:
        verdict = run_check(inputs, original, done.output, label, show)
    except BaseException:  # the original does not run, or Ctrl-C: no output is left behind
        _remove_ir(done.output)
        raise
    if not verdict.passed:
        _remove_ir(done.output)
        raise CheckFailed(failure(verdict, done.output), verdict, replace(done, check=verdict))
    return verdict


def _remove_ir(xml: Path) -> None:
    for path in (xml, xml.with_suffix(".bin")):
        path.unlink(missing_ok=True)


def report(model: ModelLike, config: ConfigLike = "cpu", shape: ShapeLike | None = None) -> Report:
    """The per-layer precision report of `model` after LPT (the data of `lpt report --format
    json`: `report.to_dict()` is that document). `shape` gives models with dynamic dimensions
    the MACs of a full inference, e.g. `{"input": (1, 3, 224, 224)}`."""
    return analysis(model, config, shape).report


def diff(a: ModelLike, b: ModelLike | None = None, config: ConfigLike = "cpu",
         config_b: ConfigLike | None = None) -> Diff:
    """Per-layer precision differences between model `a` under `config` and model `b` (default:
    `a` again) under `config_b` (default: `config`): which layers lost or gained low precision."""
    from .reports.diff import diff_reports

    if b is None and config_b is None:
        raise LptError("nothing to compare: give a second model or a second config")
    two_models, two_configs = b is not None, config_b is not None
    b_model = a if b is None else b
    b_config = config if config_b is None else config_b

    def label(model: ModelLike, spec: ConfigLike) -> str:
        named = spec.name if isinstance(spec, Config) else os.fspath(spec)
        if two_models and two_configs:
            return f"{model_name(model)} ({named})"
        return model_name(model) if two_models else named

    return diff_reports(report(a, config), report(b_model, b_config), label(a, config), label(b_model, b_config))


@dataclass(frozen=True)
class Verified:
    """One `verify` run: every output of lpt's model against the original's and both against the
    exact FakeQuantize math, on the same inputs."""

    device: str
    precision_hint: str  # INFERENCE_PRECISION_HINT of both compiles
    inputs: str  # where the inputs came from: "random inputs, seed 0" or "inputs from FILE"
    notes: tuple[str, ...]  # dynamic dimensions sized by default (`lpt verify` says them on stderr)
    atol: float
    rtol: float
    outputs: tuple[OutputVerdict, ...]

    @property
    def passed(self) -> bool:
        """No output changed beyond the plugin's own rounding (`lpt verify` exits 3 otherwise)."""
        from .runtime.compare_outputs import CHANGED

        return all(v.verdict != CHANGED for v in self.outputs)


def verify(model: ModelLike, config: ConfigLike = "cpu", *, inputs: str | os.PathLike[str] | None = None,
           shape: ShapeLike | None = None, atol: float = 1e-2, rtol: float = 1e-2, seed: int = 0,
           device: str = "CPU", precision_hint: str = "f32") -> Verified:
    """`model` and its LPT-transformed version (runtime dialect) compiled on `device` and run on
    the same inputs: an .npz file `inputs` (an array per input name), else seeded random
    tensors (`shape` sizes dynamic dimensions, else batch 1, 224x224 images, 128-long
    sequences; a mask input gets ones then zeros). Both are also measured against the exact
    FakeQuantize math (every FakeQuantize as float ops, run without LPT), which tells rounding
    of the plugin's own size from a changed model. What `lpt verify` prints."""
    from .reports.analyze import analyze
    from .runtime.compare_outputs import output_verdicts
    from .runtime.compile import compile_model
    from .runtime.inputs import infer, load_inputs, random_inputs

    import tempfile

    resolved = resolve_config(config)
    with model_file(model) as xml, tempfile.TemporaryDirectory(prefix="lpt-verify-") as tmp:
        found = analyze(xml, resolved)
        original = compile_model(xml, device, precision_hint=precision_hint)
        notes: list[str] = []
        shapes = {name: tuple(dims) for name, dims in (shape or {}).items()}
        arrays = (load_inputs(Path(inputs), original) if inputs is not None
                  else random_inputs(original, seed, shapes, notes))
        transformed = _compile_output(found, tmp, xml, device, precision_hint)
        if len(transformed.outputs) != len(original.outputs):
            raise OutputRefused(f"{model_name(model)}: lpt's output has {len(transformed.outputs)} outputs, "
                                f"the original {len(original.outputs)}: a bug in lpt, please report it")
        names = [o.get_any_name() if o.get_names() else f"output{i}" for i, o in enumerate(original.outputs)]
        reference = infer(original, arrays)
        exact = reference  # without a FakeQuantize the plugin runs no LPT: the original is exact
        if any(node.type == "FakeQuantize" for node in found.before):
            exact = infer(compile_model(_exact_model(xml, Path(tmp)), device, precision_hint=precision_hint), arrays)
        verdicts = output_verdicts(names, reference, infer(transformed, arrays), exact, atol, rtol)
    source = f"inputs from {os.fspath(inputs)}" if inputs is not None else f"random inputs, seed {seed}"
    return Verified(device, precision_hint, source, tuple(notes), atol, rtol, tuple(verdicts))


def _compile_output(found: Analysis, folder: str, xml: Path, device: str, precision_hint: str) -> openvino.CompiledModel:
    """lpt's runtime output of `found`, compiled on `device` (after the original compiled: a
    refusal here is lpt's fault, OutputRefused, exit 1)."""
    from .reports.analyze import write_runtime_model
    from .runtime.compile import compile_model

    try:
        return compile_model(write_runtime_model(found, folder, xml), device, precision_hint=precision_hint)
    except CompileRefused as err:
        raise OutputRefused(f"{xml}: OpenVINO compiles this model but not lpt's output of it ({err.reason}): "
                            "a bug in lpt, please report it") from None


def _exact_model(model: Path, folder: Path) -> Path:
    """The exact FakeQuantize reference of `model`, written into `folder`/exact."""
    from .runtime.convert import read_model, serialize
    from .runtime.reference import exact_fake_quantize

    (folder / "exact").mkdir()
    return serialize(exact_fake_quantize(read_model(model)), folder / "exact")


@dataclass(frozen=True)
class Timed:
    """One model's timing in `benchmark`, and how the device ran it."""

    stats: BenchResult  # throughput, min, median with its 95% interval, p90, iterations
    inference_precision: str  # what the device computes float layers in
    int8_kernels: int  # layers the device ran with INT8 kernels


@dataclass(frozen=True)
class Benchmarked:
    """One `benchmark` run: the models measured round robin on `device`, by row label
    (lpt_cli.runtime.ORIGINAL, TRANSFORMED, FP32); Ctrl-C ends it early (`interrupted`)
    with the models measured so far."""

    device: str
    api: str  # sync or async
    hint: str  # PERFORMANCE_HINT
    seconds: float  # asked for, per model
    models: dict[str, Timed]
    interrupted: bool


def benchmark(model: ModelLike, config: ConfigLike = "cpu", *, fp32: ModelLike | None = None, device: str = "CPU",
              seconds: float = 5.0, api: str = "sync", nireq: int | None = None, hint: str | None = None,
              precision_hint: str = "f32", tick: Callable[[float], None] | None = None) -> Benchmarked:
    """Throughput and latency of `model`, its LPT-transformed version and `fp32` (the float model
    it was quantized from, checked to have its inputs, outputs and weightable layers), in
    benchmark_app's modes (`api` sync or async with `nireq` requests, default the device's
    optimum; `hint` PERFORMANCE_HINT, default latency with sync, throughput with async).
    `tick(fraction)` follows the measurement. What `lpt benchmark` prints."""
    from .reports.analyze import analyze, write_runtime_model
    from .runtime import BENCH_APIS, FP32, ORIGINAL, TRANSFORMED
    from .runtime.bench import measure
    from .runtime.compile import compile_model, inference_precision
    from .runtime.device import require_device
    from .runtime.inputs import random_inputs
    from .runtime.interface import require_same_interface
    from .runtime.layers import int8_kernels

    if api not in BENCH_APIS:
        raise LptError(f"api {api!r}: expected one of {', '.join(BENCH_APIS)}")
    if nireq is not None and api == "sync":
        raise LptError("--nireq: needs --api async (sync runs one request at a time)")
    hint = hint or ("latency" if api == "sync" else "throughput")
    resolved = resolve_config(config)
    import tempfile

    require_device(device)
    with model_file(model) as xml, _optional_file(fp32) as fp32_xml, \
            tempfile.TemporaryDirectory(prefix="lpt-benchmark-") as tmp:
        if fp32_xml is not None:
            require_same_interface(xml, fp32_xml)
        paths = {ORIGINAL: xml, TRANSFORMED: write_runtime_model(analyze(xml, resolved), tmp, xml)}
        if fp32_xml is not None:
            paths[FP32] = fp32_xml
        compiled = {label: compile_model(path, device, precision_hint=precision_hint, performance_hint=hint)
                    for label, path in paths.items()}
    measured = measure(compiled, random_inputs(compiled[ORIGINAL], 0), seconds, api=api, nireq=nireq or 0, tick=tick)
    models = {label: Timed(stats, inference_precision(compiled[label]), int8_kernels(compiled[label]))
              for label, stats in measured.results.items()}
    return Benchmarked(device, api, hint, seconds, models, measured.interrupted)


@contextmanager
def _optional_file(model: ModelLike | None) -> Iterator[Path | None]:
    """model_file(model), or None for no model."""
    if model is None:
        yield None
        return
    with model_file(model) as xml:
        yield xml


def analysis(model: ModelLike, config: ConfigLike = "cpu", shape: ShapeLike | None = None) -> Analysis:
    """The report with the graphs before and after LPT (for `--layer` views and runtime checks)."""
    from .reports.analyze import analyze

    resolved = resolve_config(config)
    with model_file(model) as xml:
        shapes = None
        if shape:
            from .runtime.shapes import weightable_shapes

            shapes = weightable_shapes(xml, {name: tuple(dims) for name, dims in shape.items()})
        found = analyze(xml, resolved, shapes)
    if not _is_path(model):
        found.report = replace(found.report, model=model_name(model))
    return found


def model_name(model: ModelLike) -> str:
    """How reports name `model`: its path, or an in-memory model's friendly name."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    return f"<openvino.Model {model.get_friendly_name()}>"


@contextmanager
def model_file(model: ModelLike) -> Iterator[Path]:
    """An IR .xml for `model`: the path itself, or the in-memory model serialized to a
    temporary folder removed on exit (lpt's graph memory-maps the .bin, which outlives it)."""
    if _is_path(model):
        path = Path(model)
        if path.suffix.lower() != ".xml":
            raise LptError(f"{path}: expected an IR .xml file (its .bin must be beside it)")
        yield path
        return
    import tempfile

    from .runtime.convert import serialize

    with tempfile.TemporaryDirectory(prefix="lpt-api-", ignore_cleanup_errors=True) as tmp:
        yield serialize(model, Path(tmp))


def _is_path(model: ModelLike) -> bool:
    return isinstance(model, (str, os.PathLike))
