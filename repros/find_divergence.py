"""Finds the first op of a model whose output lpt's runtime model no longer matches.

    python repros/find_divergence.py MODEL.xml [--config cpu] [--types Convolution,Add,...]
                                     [--scan] [--tol 1e-5] [--seed 0]

Inputs come from MODEL.json (a zoo sidecar: full-size images, tokens, padded masks) when it
exists, else random normal data of the model's static input shapes.

Cuts the original at one op (that op's first output becomes the only Result; single-output
sub-models, since extra outputs change what the plugin fuses), runs `lpt` on the cut model and
compares both on the CPU plugin (child processes). The candidates are the ops downstream of a
FakeQuantize: an op that sees no quantized value computes the same in both models (attention
masks and shape subgraphs are exact, and bisecting over them misleads the search). By default a
binary search over the candidates in topological order (it assumes an error, once there, stays
downstream); `--scan` tries them one by one and prints every op above the tolerance.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures import zoo  # noqa: E402
from lpt_cli.ir.reader import read_ir  # noqa: E402
from lpt_cli.ir.writer import write_ir  # noqa: E402
from lpt_cli.lpt.engine.config import load_config  # noqa: E402
from lpt_cli.lpt.engine.pipeline import run_pipeline  # noqa: E402
from lpt_cli.runtime import parity  # noqa: E402
from lpt_cli.runtime.oracle import plugin_run  # noqa: E402

_NOT_CANDIDATES = {"Constant", "Parameter", "Result", "FakeQuantize", "Convert", "ShapeOf"}


def error_at(model: ov.Model, op: ov.Node, feed: dict[str, np.ndarray], work: Path, config: str) -> float:
    """The relative error of lpt's runtime output of the model cut at `op` (inf: one side failed)."""
    cut = ov.Model([op.output(0)], model.get_parameters(), "cut")
    src, out = work / "cut.xml", work / "cut_lpt.xml"
    ov.save_model(cut, src, compress_to_fp16=False)
    graph = read_ir(src)
    run_pipeline(graph, load_config(config))
    write_ir(graph, out, dialect="runtime")
    a, b = plugin_run(src, feed), plugin_run(out, feed)
    if not (a.ok and b.ok):
        return float("inf")
    return parity.worst_relative_error(a.outputs, b.outputs)


def quantized_candidates(model: ov.Model, types: set[str]) -> list[ov.Node]:
    """The ops fed (through any path but a ShapeOf) by a FakeQuantize, in topological order."""
    downstream: set[str] = set()
    candidates = []
    for op in model.get_ordered_ops():
        sources = [i.get_source_output().get_node() for i in op.inputs()]
        if any(s.get_type_name() == "FakeQuantize" or s.get_friendly_name() in downstream for s in sources):
            if op.get_type_name() != "ShapeOf":  # a shape is no quantized value
                downstream.add(op.get_friendly_name())
            if (op.get_type_name() not in _NOT_CANDIDATES and (not types or op.get_type_name() in types)
                    and op.get_output_element_type(0).is_real()):
                candidates.append(op)
    return candidates


def model_inputs(xml: Path, model: ov.Model, seed: int) -> dict[str, np.ndarray]:
    sidecar = xml.with_suffix(".json")
    if sidecar.exists():
        return zoo.test_inputs(json.loads(sidecar.read_text()), seed)
    rng = np.random.default_rng(seed)
    return {p.get_any_name(): rng.standard_normal(list(p.get_shape())).astype(p.get_element_type().to_dtype())
            for p in model.inputs}


def reduce(xml: Path, *, config: str = "cpu", types: frozenset[str] = frozenset(), tol: float = 1e-5, seed: int = 0,
           scan: bool = False, log: Callable[[str], None] = print) -> list[tuple[ov.Node, float]]:
    """The diverging cuts of the model at `xml` and their errors: with `scan` every candidate above `tol`, else
    the first by bisection (assuming an error, once there, stays downstream; within `tol` if no cut diverges)."""
    model = ov.Core().read_model(xml)
    feed = model_inputs(xml, model, seed)
    ops = quantized_candidates(model, set(types))
    log(f"{len(ops)} candidates downstream of a FakeQuantize")
    with tempfile.TemporaryDirectory() as tmp:
        def err(op: ov.Node) -> float:
            return error_at(model, op, feed, Path(tmp), config)

        if scan:
            found = []
            for op in ops:
                error = err(op)
                if error > tol:
                    log(f"{op.get_type_name()} {op.get_friendly_name()}: {error:.1e}")
                    found.append((op, error))
            return found
        if not ops:
            return []
        lo, hi = 0, len(ops) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            error = err(ops[mid])
            log(f"[{lo},{hi}] {ops[mid].get_type_name()} {ops[mid].get_friendly_name()}: {error:.1e}")
            if error > tol:
                hi = mid
            else:
                lo = mid + 1
        return [(ops[lo], err(ops[lo]))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("xml", type=Path)
    parser.add_argument("--config", default="cpu")
    parser.add_argument("--types", default="", help="only cut at ops of these types (comma-separated)")
    parser.add_argument("--scan", action="store_true", help="try every candidate instead of bisecting")
    parser.add_argument("--tol", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    found = reduce(args.xml, config=args.config, types=frozenset(filter(None, args.types.split(","))), tol=args.tol,
                   seed=args.seed, scan=args.scan, log=lambda line: print(line, flush=True))
    if found and not args.scan:
        op, error = found[0]
        print(f"first diverging: {op.get_type_name()} {op.get_friendly_name()} ({error:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
