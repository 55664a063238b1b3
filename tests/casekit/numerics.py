"""Runs two graphs with OpenVINO on the same random inputs and compares their outputs.

Same rules as the judge (shared/tools/lptcase/README.md, "Numerics"), so a case that
passes here passes there: plain f32 CPU math, inputs drawn per element type (a float
Parameter feeding a FakeQuantize over that FakeQuantize's input interval), and per output
    max|A - B| <= 1e-4 * max(1, max|A|) + 0.51 * deq_scale
with FakeQuantize rounding-tie flips tolerated (at most 1 % of the elements, each within
one FakeQuantize step). A is the reference (a case's input graph).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import openvino as ov

from lpt_cli.ir.graph import Graph
from lpt_cli.ir.writer import write_ir

from . import ovprep
from .quantities import dequantization_scale, fake_quantize_step, input_interval

SEEDS = (0, 1, 2)
REL_TOL, DEQ_FACTOR, FLIP_FRACTION = 1e-4, 0.51, 0.01


def _load(graph: Graph, folder: Path, name: str) -> ov.Model:
    path = folder / f"{name}.xml"
    write_ir(graph, path, dialect="runtime")
    return ov.Core().read_model(path)


def _draw(rng: np.random.Generator, etype: ov.Type, shape: list[int],
          interval: tuple[float, float] | None) -> np.ndarray:
    dtype = etype.to_dtype()
    if etype == ov.Type.boolean:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        lo, hi = (0, 255) if etype == ov.Type.u8 else (-128, 127) if etype == ov.Type.i8 else (-4, 4)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    lo, hi = interval if interval is not None else (-4.0, 4.0)
    if interval is not None:
        pad = max(0.1 * (hi - lo), 1e-3)
        lo, hi = lo - pad, hi + pad
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _run_all(model: ov.Model, feeds: list[dict[str, np.ndarray]]) -> list[list[np.ndarray]]:
    """Per seed, the outputs of `model` (inputs matched by Parameter name)."""
    compiled = ovprep.compile_cpu(model)
    request = compiled.create_infer_request()
    names = [p.get_friendly_name() for p in model.get_parameters()]
    runs = []
    for feed in feeds:
        request.infer({k: feed[name] for k, name in enumerate(names)})
        runs.append([np.array(request.get_output_tensor(k).data, dtype=np.float64)
                     for k in range(len(model.outputs))])
    return runs


def compare_numerics(reference: Graph, candidate: Graph, *,
                     shapes: dict[str, list[int]] | None = None) -> str | None:
    """None when `candidate` computes what `reference` does, else a readable reason."""
    with tempfile.TemporaryDirectory(prefix="lpt-numerics-") as tmp:
        model_a, model_b = _load(reference, Path(tmp), "a"), _load(candidate, Path(tmp), "b")
    names_a = sorted(p.get_friendly_name() for p in model_a.get_parameters())
    if names_a != sorted(p.get_friendly_name() for p in model_b.get_parameters()):
        return "the graphs have different Parameters"
    if len(model_a.outputs) != len(model_b.outputs):
        return f"A has {len(model_a.outputs)} outputs, B has {len(model_b.outputs)}"
    static = ovprep.static_shapes(model_a, model_b, [reference, candidate], shapes or {})
    for model in (model_a, model_b):
        ovprep.reshape(model, static)
        ovprep.decompose_stripped_fake_quantize(model)
    types = {p.get_friendly_name(): p.get_element_type() for p in model_a.get_parameters()}
    intervals = {name: input_interval(reference, name) or input_interval(candidate, name) for name in types}
    feeds = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        feeds.append({name: _draw(rng, types[name], static[name], intervals[name]) for name in names_a})
    runs_a, runs_b = _run_all(model_a, feeds), _run_all(model_b, feeds)
    step = max(fake_quantize_step(reference), fake_quantize_step(candidate))
    deq = dequantization_scale(candidate)
    for k in range(len(model_a.outputs)):
        why = _judge_output([run[k] for run in runs_a], [run[k] for run in runs_b], deq, step)
        if why is not None:
            return f"output {k}: {why} (dims {static})"
    return None


def _judge_output(outs_a: list[np.ndarray], outs_b: list[np.ndarray], deq: float, step: float) -> str | None:
    """Applies the tolerance (and the tie-flip allowance) to one output over all seeds."""
    diffs, ref_max = [], 0.0
    for ya, yb in zip(outs_a, outs_b):
        if ya.shape != yb.shape:
            return f"shapes differ: A {list(ya.shape)}, B {list(yb.shape)}"
        with np.errstate(invalid="ignore", over="ignore"):
            same = (ya == yb) | (np.isnan(ya) & np.isnan(yb))
            diffs.append(np.nan_to_num(np.where(same, 0.0, np.abs(ya - yb)), nan=np.inf).reshape(-1))
        finite = np.abs(ya[np.isfinite(ya)])
        ref_max = max(ref_max, float(finite.max()) if finite.size else 0.0)
    flat = np.concatenate(diffs)
    tol = REL_TOL * max(1.0, ref_max) + DEQ_FACTOR * deq
    above = flat[flat > tol]
    if above.size == 0:
        return None
    if step > 0 and above.max() <= 1.01 * step + tol and above.size <= FLIP_FRACTION * flat.size:
        return None  # FakeQuantize rounding ties flipped by float rounding
    return (f"max|A-B| {float(flat.max()):.4g} > tol {tol:.4g} (max|A| {ref_max:.4g}, "
            f"deq_scale {deq:.4g}, {above.size} of {flat.size} elements above)")
