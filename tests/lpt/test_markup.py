"""Markup: restrictions, precision propagation through precision-preserved ops, alignment."""
from __future__ import annotations

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32, i8, u8
from lpt_cli.lpt.dequantization.attributes import (PRECISIONS, QUANTIZATION_GRANULARITY, intervals_alignment, is_bias,
                                    is_precision_preserved, precisions_of, quantization_alignment)
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.markup import run_markup

from .fq_graphs import fake_quantize, parameter, result, unary

AVG_POOL = {"strides": "1,1", "kernel": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "exclude-pad": "true"}


def _conv(graph: Graph, data, weights_low=-1.28, weights_high=1.27):
    weights = graph.add_constant(1.0, f32, shape=(3, 3, 1, 1)).output()
    wfq = fake_quantize(graph, weights, weights_low, weights_high)
    return graph.add_node("Convolution", [data, wfq.output()], outputs=[(f32, data.shape)],
                          attrs={"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1",
                                 "auto_pad": "explicit"})


def test_without_restrictions_nothing_is_precision_preserved():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    pool = unary(graph, "MaxPool", fq.output())
    result(graph, pool.output())
    run_markup(graph, config_from_dict({}))
    assert precisions_of(fq.output()) == [u8, i8]
    assert not is_precision_preserved(pool)


def test_restriction_narrows_the_fq_through_precision_preserved_ops():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    pool = unary(graph, "MaxPool", fq.output())
    conv = _conv(graph, pool.output())
    result(graph, conv.output())
    config = config_from_dict({"restrictions": {"precisions": [{"op": "Convolution", "ports": {0: ["i8"], 1: ["i8"]}}],
                                                "per_tensor": [{"op": "Convolution", "ports": [0]}]}})
    run_markup(graph, config)
    assert is_precision_preserved(pool)
    assert precisions_of(fq.output()) == [i8]
    # one shared value: narrowing the FQ's precisions narrows the Convolution input too
    fq.output().annotations[PRECISIONS].value = []
    assert precisions_of(conv.inputs[0]) == []
    assert conv.inputs[0].annotations[QUANTIZATION_GRANULARITY] == "PerTensor"
    assert QUANTIZATION_GRANULARITY not in conv.inputs[1].annotations


def test_unquantized_weights_disable_the_convolution():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    weights = graph.add_constant(1.0, f32, shape=(3, 3, 1, 1)).output()
    conv = graph.add_node("Convolution", [fq.output(), weights], outputs=[(f32, (1, 3, 4, 4))],
                          attrs={"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1"})
    result(graph, conv.output())
    run_markup(graph, config_from_dict({}))
    assert precisions_of(conv.inputs[0]) == [] and precisions_of(conv.inputs[1]) == []
    # PropagateToInput refuses a node with an empty input attribute: the FQ keeps its defaults
    assert precisions_of(fq.output()) == [u8, i8]


def test_avg_pool_is_precision_preserved_only_before_a_quantizable_consumer():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    to_result = unary(graph, "AvgPool", fq.output(), **AVG_POOL)
    result(graph, to_result.output())
    to_conv = unary(graph, "AvgPool", fq.output(), **AVG_POOL)
    result(graph, _conv(graph, to_conv.output()).output())
    run_markup(graph, config_from_dict({}))
    assert not is_precision_preserved(to_result)
    assert is_precision_preserved(to_conv)


def _concat_of_two_fqs(graph: Graph, per_tensor: bool):
    a = fake_quantize(graph, parameter(graph), 0, 2.55)
    b = fake_quantize(graph, parameter(graph), 0, 1.275)
    concat = graph.add_node("Concat", [a.output(), b.output()], outputs=[(f32, (1, 6, 4, 4))], attrs={"axis": "1"})
    conv = graph.add_node("Convolution", [concat.output(), _conv(graph, parameter(graph)).inputs[1].source],
                          outputs=[(f32, (1, 3, 4, 4))],
                          attrs={"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1"})
    result(graph, conv.output())
    restrictions = {"precisions": [{"op": "Convolution", "ports": {0: ["u8"], 1: ["i8"]}}]}
    if per_tensor:
        restrictions["per_tensor"] = [{"op": "Convolution", "ports": [0, 1]}]
    run_markup(graph, config_from_dict({"restrictions": restrictions}))
    return a, b, concat


def test_concat_intervals_are_combined_and_alignment_needs_per_tensor():
    graph = Graph()
    a, b, concat = _concat_of_two_fqs(graph, per_tensor=True)
    alignment = intervals_alignment(concat)
    assert alignment is intervals_alignment(a) or alignment.shared is intervals_alignment(b).shared
    assert alignment.value.combined == (0.0, 2.55) or abs(alignment.value.combined[1] - 2.55) < 1e-6
    assert intervals_alignment(b).value.combined == alignment.value.combined
    assert alignment.value.min_levels == 129
    assert quantization_alignment(concat) is True

    graph = Graph()
    _, _, concat = _concat_of_two_fqs(graph, per_tensor=False)
    assert quantization_alignment(concat) is False


def test_bias_add_after_convolution():
    graph = Graph()
    conv = _conv(graph, parameter(graph))
    bias = graph.add_constant(0.5, f32, shape=(1, 3, 1, 1)).output()
    add = graph.add_node("Add", [conv.output(), bias], outputs=[(f32, (1, 3, 4, 4))])
    result(graph, add.output())
    run_markup(graph, config_from_dict({}))
    assert is_bias(add)


def test_running_chosen_transformations_marks_like_the_unit_test_driver():
    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    avg = unary(graph, "AvgPool", fq.output(), **AVG_POOL)
    pool = unary(graph, "MaxPool", avg.output())
    result(graph, pool.output())
    run_markup(graph, config_from_dict({"transformations": {"only": ["MaxPoolTransformation"]}}))
    assert is_precision_preserved(pool)  # MarkupPrecisions ran without restrictions
    assert not is_precision_preserved(avg)  # only a precision-preserved op and a Result follow it

    graph = Graph()
    fq = fake_quantize(graph, parameter(graph), 0, 2.55)
    avg = unary(graph, "AvgPool", fq.output(), **AVG_POOL)
    pool = unary(graph, "MaxPool", avg.output())
    result(graph, pool.output())
    run_markup(graph, config_from_dict({}))
    assert not is_precision_preserved(pool) and is_precision_preserved(avg)
