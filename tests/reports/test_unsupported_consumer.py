"""A FakeQuantize left in front of an op LPT does not know: the reason names the op and version."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph
from lpt_cli.ir.legalize import copy_graph
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.reports.classify import build_report

POOL = {"strides": "2, 2", "dilations": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0", "kernel": "2, 2",
        "auto_pad": "explicit", "index_element_type": "i64", "axis": "0"}


def fq_then_pool(rounding: str) -> Graph:
    g = Graph()
    x = g.add_node("Parameter", outputs=[("f32", (1, 4, 8, 8))], name="x",
                   attrs={"shape": "1,4,8,8", "element_type": "f32"}).output()
    limits = [g.add_constant(np.float32(v)).output() for v in (0.0, 2.55, 0.0, 2.55)]
    fq = g.add_node("FakeQuantize", [x, *limits], outputs=[("f32", (1, 4, 8, 8))],
                    attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq").output()
    pool = g.add_node("MaxPool", [fq], outputs=[("f32", (1, 4, 4, 4)), ("i64", (1, 4, 4, 4))],
                      attrs={**POOL, "rounding_type": rounding}, version="opset14", name="pool")
    g.add_node("Result", [pool.output()])
    return g


def fq_row(graph: Graph, profile: str):
    before = copy_graph(graph)
    config = load_config(profile)
    result = run_pipeline(graph, config)
    rows = build_report("m.xml", before, graph, result, config).layers
    return next(r for r in rows if r.name == "fq")


def test_lpt_alone_names_the_pool_version_it_does_not_match() -> None:
    row = fq_row(fq_then_pool("floor"), "default")
    assert row.status == "original-precision"
    assert row.reason is not None and row.reason.code == "consumer_not_supported"
    assert "MaxPool-14 is not in LPT's op list" in row.reason.detail


@pytest.mark.parametrize("rounding, low", [("floor", True), ("ceil_torch", False)])
def test_the_plugin_step_makes_max_pool_14_one_lpt_knows_unless_ceil_torch(rounding: str, low: bool) -> None:
    row = fq_row(fq_then_pool(rounding), "cpu-vnni")
    assert (row.status == "low-precision") is low
    if not low:
        assert row.reason is not None and "MaxPool-14" in row.reason.detail


def test_an_op_version_no_transformation_takes_is_named_with_the_versions_that_are() -> None:
    graph = fq_then_pool("floor")
    before = copy_graph(graph)
    config = load_config("default")
    rows = {r.name: r for r in build_report("m.xml", before, graph, run_pipeline(graph, config), config, "").layers}
    pool = rows["pool"]
    assert pool.status == "original-precision" and pool.reason is not None
    assert pool.reason.code == "op_not_supported"
    assert pool.reason.detail == ("LPT has no transformation for MaxPool-14: MaxPoolTransformation takes "
                                  "MaxPool-1 only")
