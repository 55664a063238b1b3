"""The Python API: what `lpt transform` and `lpt report` do, callable from a notebook or a script.

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

from .errors import CheckFailed, LptError
from .ir import DIALECTS, Graph
from .ir.reader import read_ir
from .ir.writer import write_ir
from .lpt.engine.config import Config, load_config
from .lpt.engine.pipeline import PipelineResult, run_pipeline

if TYPE_CHECKING:  # the report modules load in the functions that use them: `lpt transform` skips them
    import openvino

    from .lpt.engine.pipeline import Progress, StepHook
    from .reports.analyze import Analysis
    from .reports.diff import Diff
    from .reports.model import Report
    from .runtime.check import CheckInputs, CheckResult

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
    error); when the plugin does not run the original, an LptError."""
    import gc

    from . import __version__
    from .ir.legalize import copy_graph
    from .ir.provenance import require_not_transformed, stamp

    output = Path(output)
    if output.suffix.lower() != ".xml":
        raise LptError(f"{output}: the output must be an .xml path (the .bin is written beside it)")
    if dialect not in DIALECTS:
        raise LptError(f"dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    if check and dialect != "runtime":
        raise LptError(f"check=True runs the output on the CPU plugin, which cannot load the {dialect} dialect: "
                       "check the runtime dialect (the same LPT result)")
    resolved = resolve_config(config)  # a bad config fails before a large model is read
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
        written = write_ir(graph, output, dialect=dialect, protect=[xml, xml.with_suffix(".bin")], on_bytes=on_bytes)
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
