"""Cuts a model at one op (its output the only Result), runs lpt on it, and shows both runtime models'
layers around weightable ops and the outputs' relative error.

    python repros/cut_compare.py MODEL.xml OP_NAME [--save DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("xml", type=Path)
    parser.add_argument("op")
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()
    feed = zoo.test_inputs(json.loads(args.xml.with_suffix(".json").read_text()))
    model = ov.Core().read_model(args.xml)
    op = next(o for o in model.get_ops() if o.get_friendly_name() == args.op)
    work = args.save or Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    src, out = work / "cut.xml", work / "cut_lpt.xml"
    ov.save_model(ov.Model([op.output(0)], model.get_parameters(), "cut"), src, compress_to_fp16=False)
    graph = read_ir(src)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, out, dialect="runtime")
    write_ir(graph, work / "cut_lowp.xml", dialect="lowp")
    for label, path in (("plugin", src), ("lpt", out)):
        ran = plugin_run(path, feed)
        print(label, "ok" if ran.ok else ran.error)
        for layer in ran.layers[-12:]:
            print("   ", layer.layer_type, layer.runtime_precision, layer.name[-60:], layer.original_names[-3:])
        if label == "plugin":
            first = ran
    print("relative error", parity.worst_relative_error(first.outputs, ran.outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
