"""MAC counts that weight the low-precision share."""
from __future__ import annotations

import numpy as np

from lpt_cli.ir import Graph
from lpt_cli.reports.macs import layer_macs, low_precision_share


def _node(op: str, data: tuple, weights: tuple, out: tuple, **attrs: str):
    g = Graph()
    x = g.add_node("Parameter", outputs=[("f32", data)]).outputs[0]
    w = g.add_constant(np.zeros(weights, np.float32)).outputs[0]
    return g.add_node(op, [x, w], outputs=[("f32", out)], attrs=attrs)


def test_convolution():
    # each of 1*16*10*10 outputs sums 8 input channels x 3x3
    assert layer_macs(_node("Convolution", (1, 8, 12, 12), (16, 8, 3, 3), (1, 16, 10, 10))) == 1600 * 72


def test_group_convolution_counts_one_group_per_output():
    assert layer_macs(_node("GroupConvolution", (1, 8, 10, 10), (8, 1, 1, 3, 3), (1, 8, 10, 10))) == 800 * 9


def test_backprop_data_scatters_each_input():
    assert layer_macs(_node("ConvolutionBackpropData", (1, 4, 5, 5), (4, 2, 2, 2), (1, 2, 10, 10))) == 100 * 8


def test_matmul_with_transposed_a_and_dynamic_batch():
    assert layer_macs(_node("MatMul", (-1, 7, 3), (7, 5), (-1, 3, 5), transpose_a="true")) == 15 * 7


def test_not_weightable():
    assert layer_macs(_node("Add", (1, 4), (1, 4), (1, 4))) is None


def test_a_share_short_of_everything_never_shows_100() -> None:
    """15 of 16 equal layers is 93.75; 99,999 of 100,000 MACs floors to 99.99 where rounding gave
    100.00, which `--fail-under 100` let through."""
    assert low_precision_share(99_999, 100_000, 15, 16) == 99.99
    assert low_precision_share(0, 0, 15, 16) == 93.75
    assert low_precision_share(7, 7, 1, 1) == 100.0
    assert low_precision_share(2, 3, 1, 2) == 66.66
    assert low_precision_share(0, 0, 0, 0) == 0.0
