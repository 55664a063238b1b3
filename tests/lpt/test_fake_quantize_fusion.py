"""FakeQuantizeTransformation: elementwise ops before an FQ fold into its input interval."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline

from .fq_graphs import fake_quantize, parameter, result

ONLY = {"transformations": {"only": ["FakeQuantizeTransformation"]}}


def _fq_after(op: str, value: float):
    graph = Graph()
    data = parameter(graph)
    eltwise = graph.add_node(op, [data, graph.add_constant(value, f32).output()], outputs=[(f32, data.shape)])
    fq = fake_quantize(graph, eltwise.output(), 0.0, 2.55)
    out = result(graph, fq.output())
    run_pipeline(graph, config_from_dict(ONLY))
    return data, out.input_node(0)


@pytest.mark.parametrize("op, value, low, high", [
    ("Multiply", 2.0, 0.0, 1.275),
    ("Subtract", 1.0, 1.0, 3.55),
    ("Add", 1.0, -1.0, 1.55),
])
def test_elementwise_is_fused(op, value, low, high):
    data, fq = _fq_after(op, value)
    assert fq.type == "FakeQuantize" and fq.input_value(0) is data
    assert float(np.asarray(fq.input_node(1).value)) == pytest.approx(low)
    assert float(np.asarray(fq.input_node(2).value)) == pytest.approx(high)
    assert float(np.asarray(fq.input_node(4).value)) == pytest.approx(2.55)  # output interval kept


def test_negative_scale_is_not_fused():
    data, fq = _fq_after("Multiply", -2.0)
    assert fq.input_node(0).type == "Multiply"
