"""Finds the first op of a model whose output lpt's runtime model no longer matches.

    python repros/find_divergence.py MODEL.xml [--zoo-sidecar NAME.json] [--types Convolution,Add,...] [--tol 1e-5]

Cuts the original at one op (that op's first output becomes the only Result; single-output
sub-models, since extra outputs change what the plugin fuses), runs `lpt` on the cut model and
compares both on the CPU plugin (child processes). Binary search over the candidate ops in
topological order: assumes that once an error appears it stays downstream.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
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


def error_at(model: ov.Model, op: ov.Node, feed: dict[str, np.ndarray], work: Path) -> float:
    cut = ov.Model([op.output(0)], model.get_parameters(), "cut")
    src, out = work / "cut.xml", work / "cut_lpt.xml"
    ov.save_model(cut, src, compress_to_fp16=False)
    graph = read_ir(src)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, out, dialect="runtime")
    a, b = plugin_run(src, feed), plugin_run(out, feed)
    if not (a.ok and b.ok):
        return float("inf")
    return parity.worst_relative_error(a.outputs, b.outputs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("xml", type=Path)
    parser.add_argument("--types", default="")
    parser.add_argument("--tol", type=float, default=1e-5)
    args = parser.parse_args()
    doc = json.loads(args.xml.with_suffix(".json").read_text())
    feed = zoo.test_inputs(doc)
    model = ov.Core().read_model(args.xml)
    skip = {"Constant", "Parameter", "Result", "FakeQuantize", "Convert", "ShapeOf"}
    types = set(filter(None, args.types.split(",")))
    on_data: set[str] = set()  # ops downstream of a Parameter (weight dequantizations are not)
    for op in model.get_ordered_ops():
        if op.get_type_name() == "Parameter" or any(
                i.get_source_output().get_node().get_friendly_name() in on_data for i in op.inputs()):
            on_data.add(op.get_friendly_name())
    ops = [op for op in model.get_ordered_ops() if op.get_type_name() not in skip and op.get_friendly_name() in on_data
           and (not types or op.get_type_name() in types) and op.get_output_element_type(0).is_real()]
    lo, hi = 0, len(ops) - 1
    with tempfile.TemporaryDirectory() as tmp:
        while lo < hi:
            mid = (lo + hi) // 2
            err = error_at(model, ops[mid], feed, Path(tmp))
            print(f"[{lo},{hi}] {ops[mid].get_type_name()} {ops[mid].get_friendly_name()}: {err:.1e}", flush=True)
            if err > args.tol:
                hi = mid
            else:
                lo = mid + 1
        print(f"first diverging: {ops[lo].get_type_name()} {ops[lo].get_friendly_name()} "
              f"({error_at(model, ops[lo], feed, Path(tmp)):.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
