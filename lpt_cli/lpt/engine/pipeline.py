"""Runs LPT's steps over a graph in OpenVINO's order, with GraphRewrite semantics.

Order: [the plugin's common optimizations,] [pre_lpt: the plugin's ConvertSubtractConstant,] prerequisites,
markup, main, cleanup, FoldFakeQuantize, constant folding. A plugin's callbacks (`callbacks`) are
asked before a pass transforms a node it matched, as LPT's matchers ask `transformation_callback`. Within a
step every node is visited in topological order and offered to the step's passes in
registration order; the first pass that returns True ends the visit. Nodes created by a pass
that OpenVINO lets register them (`revisits_created`) are visited next, before the rest of
the queue, as `register_new_node` does; other new nodes are not visited in that step.
An `on_step(name, graph)` callback sees the graph after each step that ran (`lpt transform --trace`).
"""
from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...errors import IRReadError, LptError, PassError, clip
from ...ir import Graph, Node
from ...ir.graph import collector_paused
from . import registry
from .ordering import ordered_ops
from .transformation import Context, Decision, Transformation

if TYPE_CHECKING:
    from .config import Config

Progress = Callable[[str], None]
StepHook = Callable[[str, Graph], None]


@dataclass
class PipelineResult:
    """What the run did: passes applied (with counts), passes skipped, and the decision log."""

    applied: Counter[str] = field(default_factory=Counter)
    decisions: dict[int, list[Decision]] = field(default_factory=dict)
    matched: dict[int, list[str]] = field(default_factory=dict)  # node id -> the passes that rewrote it
    not_quantized: bool = False  # no FakeQuantize: the plugin skips LPT, so did this run


def run_pipeline(graph: Graph, config: Config, *, progress: Progress | None = None,
                 on_step: StepHook | None = None) -> PipelineResult:
    """Transforms `graph` in place under `config`; `on_step` may inspect (not change) the graph."""
    _check_fake_quantize_intervals(graph)
    # Float math overflows to inf silently, as in OpenVINO's C++: no RuntimeWarning on stderr.
    with np.errstate(all="ignore"), collector_paused():
        return _run_pipeline(graph, config, progress, on_step)


# A FakeQuantize bound beyond this is no real activation range, and the products of scales the
# plugin fuses from it overflow float32 (the CPU plugin then refuses the model).
MAX_INTERVAL = 2.0**64


def _check_fake_quantize_intervals(graph: Graph) -> None:
    """A NaN, infinite, absurdly large or denormal-wide FakeQuantize interval has no usable
    quantization: refuse it."""
    for node in graph:
        if node.type != "FakeQuantize":
            continue
        # One-value bounds (the common case) are checked as Python floats: numpy's per-call
        # overhead on 1-element arrays was most of this check's time.
        bounds: dict[int, np.ndarray | float] = {}
        for index, role in enumerate(("input_low", "input_high", "output_low", "output_high"), start=1):
            source = node.input_node(index)
            data = source.data
            if not (source.is_constant and data is not None and data.element_type.is_real
                    and data.element_type.dtype is not None):
                continue
            if data.count == 1:
                value = bounds[index] = float(source.value.flat[0])
                if not math.isfinite(value):
                    problem = "holds NaN or infinity"
                elif abs(value) > MAX_INTERVAL:
                    problem = "holds a value beyond +-2^64"
                else:
                    continue
            else:
                values = bounds[index] = source.value.astype(np.float64)
                if not np.isfinite(values).all():
                    problem = "holds NaN or infinity"
                elif (np.abs(values) > MAX_INTERVAL).any():
                    problem = "holds a value beyond +-2^64"
                else:
                    continue
            raise IRReadError(f"{graph.source or graph.name}: layer {source.id} '{clip(source.name)}': "
                              f"the {role} of FakeQuantize '{clip(node.name)}' {problem}")
        low, high = bounds.get(1), bounds.get(2)
        if isinstance(low, float) and isinstance(high, float):
            if 0 < abs(high - low) < _TINY:
                raise node.error("input interval narrower than the smallest normal float32 and not empty: "
                                 "the quantization scale overflows")
        elif low is not None and high is not None and _broadcastable(np.asarray(low), np.asarray(high)):
            # (A denormal *output* interval is legal: LPT replaces its scale, see the reference cases.)
            width = np.abs(np.asarray(high) - np.asarray(low))
            if ((width > 0) & (width < _TINY)).any():
                raise node.error("input interval narrower than the smallest normal float32 and not empty: "
                                 "the quantization scale overflows")


_TINY = float(np.finfo(np.float32).tiny)


def _broadcastable(a: np.ndarray, b: np.ndarray) -> bool:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return False
    return True


def _run_pipeline(graph: Graph, config: Config, progress: Progress | None,
                  on_step: StepHook | None) -> PipelineResult:
    from ..markup import run_markup  # markup imports attributes; keep import cost off `lpt --help`
    from ..surgery.constants import fold_constant_subgraphs

    ctx = Context(graph, config)
    result = PipelineResult(decisions=ctx.decisions)
    graph.topological_order()  # fail early (and clearly) on a cycle
    if config.common_optimizations:
        from ..common_optimizations import LISTS, plugin_runs_lpt, run_common_optimizations

        # the GPU plugin asks isFunctionQuantized of the model as read, before its pre-LPT passes
        quantized = plugin_runs_lpt(graph, config) if LISTS[config.common_optimizations].quantized_before else None
        if progress:
            progress("common optimizations")
        result.applied.update(run_common_optimizations(graph, config))
        if on_step:
            on_step("common_optimizations", graph)
        if not (plugin_runs_lpt(graph, config) if quantized is None else quantized):
            result.not_quantized = True  # the plugin runs no LPT on such a model
            graph.remove_dead()
            return result
    if config.callbacks:
        ctx.callbacks = registry.load_callbacks(config.callbacks)
    for step in (registry.PRE_LPT, registry.PREREQUISITES):
        if _run_step(ctx, step, result, progress) and on_step:
            on_step(step.name, graph)
    if progress:
        progress("markup")
    run_markup(graph, config, ctx.callbacks.get("MarkupPrecisions"))
    if on_step:
        on_step("markup", graph)
    for step in (registry.MAIN, registry.EXTRA, registry.CLEANUP, registry.FOLD_FAKE_QUANTIZE):
        if _run_step(ctx, step, result, progress) and on_step:
            on_step(step.name, graph)
    # OpenVINO runs ConstantFolding right after FoldFakeQuantize (steps F and G go together).
    if config.enabled("FoldFakeQuantizeTransformation"):
        if progress:
            progress("constant folding")
        fold_constant_subgraphs(graph)
        if on_step:
            on_step("constant_folding", graph)
    graph.remove_dead()
    return result


def _run_step(ctx: Context, step: registry.Step, result: PipelineResult, progress: Progress | None) -> bool:
    """Runs one step; False when the config leaves it no pass to run."""
    names = [name for name in step.names if ctx.config.enabled(name)]
    if not names:
        return False
    if progress:
        progress(step.name)
    _rewrite(ctx, names, result)
    return True


def _rewrite(ctx: Context, names: list[str], result: PipelineResult) -> None:
    """Offers each node to the passes `names` (in that order) for its type; a pass is imported
    and made when a node of its type first comes up."""
    graph = ctx.graph
    by_type: dict[str, list[str]] = {}
    for name in names:
        for op_type in registry.op_types(name):
            by_type.setdefault(op_type, []).append(name)
    made: dict[str, Transformation] = {}
    queue = deque(ordered_ops(graph))
    while queue:
        node = queue.popleft()
        if not node.alive:
            continue
        for name in by_type.get(node.type, ()):
            p = made.get(name)
            if p is None:
                p = made[name] = registry.load(name)(ctx)
            first_new = graph.next_id
            try:
                if not p.applies_to(node):
                    continue
                callback = ctx.callbacks.get(name)
                skipped = callback(node, ctx.config) if callback is not None else None
                if skipped is not None:  # transformation_callback(op): the plugin leaves the node alone
                    p.reject(node, "plugin_callback", skipped)
                    continue
                matched = p.transform(node)
            except LptError:
                raise
            except Exception as exc:  # re-raised with the pass and layer named
                raise PassError(p.name, node.name, node.id, exc) from exc
            if p.revisits_created:
                created = _created_since(graph, first_new)
                if isinstance(p.revisits_created, frozenset):
                    created = [n for n in created if n.type in p.revisits_created]
                queue.extendleft(created)
            if matched:
                result.applied[p.name] += 1
                result.matched.setdefault(node.id, []).append(p.name)
                break
            if not node.alive:
                break


def _created_since(graph: Graph, first_id: int) -> list[Node]:
    """Nodes added since `first_id` was the next id, newest first (they sit at the dict's end)."""
    created = []
    for node in reversed(graph.nodes.values()):
        if node.id < first_id:
            break
        created.append(node)
    return created
