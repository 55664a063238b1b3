"""Weight-only compressed models: the report says which layers keep compressed weights."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Output
from lpt_cli.ir.legalize import copy_graph
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.render import render


def compressed_matmul(etype: str, *, fake_quantize: bool = False) -> Graph:
    """x -> [FakeQuantize] -> MatMul(Const(etype) -> Convert -> Subtract -> Multiply, transposed)."""
    g = Graph("wc")
    x: Output = g.add_node("Parameter", outputs=[("f32", (1, 8, 16))], name="x",
                           attrs={"shape": "1,8,16", "element_type": "f32"}).output()
    if fake_quantize:
        limits = [g.add_constant(np.float32(v)).output() for v in (0.0, 2.55, 0.0, 2.55)]
        x = g.add_node("FakeQuantize", [x, *limits], outputs=[("f32", (1, 8, 16))],
                       attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq").output()
    raw = np.random.default_rng(0).integers(0, 15, (32, 16)).astype(np.uint8)
    w = g.add_constant(raw, etype, name="w").output()
    w = g.add_node("Convert", [w], outputs=[("f32", (32, 16))], attrs={"destination_type": "f32"}).output()
    zp = g.add_node("Convert", [g.add_constant(np.uint8(7), etype).output()], outputs=[("f32", ())],
                    attrs={"destination_type": "f32"}).output()
    w = g.add_node("Subtract", [w, zp], outputs=[("f32", (32, 16))], attrs={"auto_broadcast": "numpy"}).output()
    scale = g.add_constant(np.full((32, 1), 0.01, np.float32)).output()
    w = g.add_node("Multiply", [w, scale], outputs=[("f32", (32, 16))], attrs={"auto_broadcast": "numpy"}).output()
    y = g.add_node("MatMul", [x, w], outputs=[("f32", (1, 8, 32))], name="mm",
                   attrs={"transpose_a": "false", "transpose_b": "true"}).output()
    g.add_node("Result", [y], name="y")
    return g


def report_of(graph: Graph):
    before = copy_graph(graph)
    config = load_config("cpu-vnni")
    result = run_pipeline(graph, config)
    return build_report("wc.xml", before, graph, result, config), graph


@pytest.mark.parametrize("etype", ["u8", "u4"])
def test_weight_only_model_is_reported_as_such_and_left_alone(etype: str) -> None:
    report, after = report_of(compressed_matmul(etype))
    assert report.summary.weight_compressed == {etype: 1}
    assert "weight-compressed (no FakeQuantize): 1 weightable layers keep compressed weights" in render(report, "table")
    assert render(report, "json").count('"weight_compressed"') == 1
    weights = [n for n in after if n.type == "Constant" and n.name == "w"]
    assert weights and weights[0].output().element_type.name == etype  # not unpacked
    assert any(n.type == "Convert" and n.input_node(0) is weights[0] for n in after)


def test_quantized_model_is_not_called_weight_compressed() -> None:
    report, _ = report_of(compressed_matmul("u8", fake_quantize=True))
    assert report.summary.weight_compressed == {}


def test_a_weight_only_share_of_zero_says_why() -> None:
    """0.00 % alone reads as a failure of LPT; a weight-only model has no activation quantization."""
    from lpt_cli.reports.many import ManyReport, render_many

    report, _ = report_of(compressed_matmul("u8"))
    assert report.summary.low_precision_share == 0.0
    assert ("weightable layers in low precision: 0/1, 0.00% of 4096 MACs: weight-only (no activation "
            "quantization)") in render(report, "table", notes=())
    many = render_many(ManyReport((report,)), "markdown")
    assert "| 0.00 (weight-only) |" in many
    quantized, _ = report_of(compressed_matmul("u8", fake_quantize=True))
    assert "weight-only" not in render(quantized, "table")
