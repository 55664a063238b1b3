"""Eltwise and precision-preserving transformations on tiny graphs: structure, values, numerics."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.shapes import broadcast_shapes
from lpt_cli.ir.legalize import MAT_MUL_ZERO_POINT, MatMulZeroPoint
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.transformations.eltwise.eltwise_base import full_branch_index, is_broadcasted
from lpt_cli.lpt.engine.pipeline import run_pipeline

SHAPE = (1, 3, 4, 4)


def parameter(graph: Graph, name: str, etype: str = "u8", shape=SHAPE) -> Output:
    return graph.add_node("Parameter", outputs=[(etype, shape)], name=name).output()


def dequantize(graph: Graph, data: Output, scale, zero_point=None) -> Output:
    """data -> Convert(f32) -> [Subtract(zero_point)] -> Multiply(scale)."""
    value = graph.add_node("Convert", [data], outputs=[("f32", data.shape)], attrs={"destination_type": "f32"}).output()
    if zero_point is not None:
        zp = graph.add_constant(np.asarray(zero_point, np.float32), "f32").output()
        value = graph.add_node("Subtract", [value, zp], outputs=[("f32", data.shape)]).output()
    sc = graph.add_constant(np.asarray(scale, np.float32), "f32").output()
    return graph.add_node("Multiply", [value, sc], outputs=[("f32", broadcast_shapes(data.shape, sc.shape))]).output()


def output(graph: Graph, op_type: str, inputs: list[Output], attrs=None, shape=None) -> Node:
    shape = shape or broadcast_shapes(*(i.shape for i in inputs))
    node = graph.add_node(op_type, inputs, outputs=[("f32", shape)], attrs=attrs or {})
    graph.add_node("Result", [node.output()])
    return node


def run(graph: Graph, *names: str, **config) -> dict[str, int]:
    return run_pipeline(graph, config_from_dict({"transformations": {"only": list(names)}, **config})).applied


# --- a small numpy interpreter to check that a rewrite keeps the math ------------------------
def _evaluate(node: Node, args: list[np.ndarray], feeds: dict[str, np.ndarray]) -> np.ndarray:
    kind = node.type
    if kind == "Parameter":
        return feeds[node.name]
    if kind == "Constant":
        return node.value.astype(np.float64)
    if kind in ("Convert", "Result"):
        return args[0]
    if kind in ("Add", "Subtract", "Multiply"):
        return {"Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply}[kind](args[0], args[1])
    if kind == "Clamp":
        return np.clip(args[0], float(node.attr("min")), float(node.attr("max")))
    if kind == "Relu":
        return np.maximum(args[0], 0)
    if kind == "Concat":
        return np.concatenate(args, axis=node.attr_int("axis"))
    raise NotImplementedError(kind)


def evaluate(graph: Graph, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    values: dict[int, np.ndarray] = {}
    for node in graph.topological_order():
        values[node.id] = _evaluate(node, [values[s.source.node.id] for s in node.inputs], feeds)
    return [values[r.id] for r in graph.results]


def random_feeds(graph: Graph) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {p.name: rng.integers(0, 256, p.output().shape).astype(np.float64) for p in graph.parameters}


def assert_same_math(graph: Graph, before: list[np.ndarray], feeds: dict[str, np.ndarray]) -> None:
    for want, have in zip(before, evaluate(graph, feeds)):
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-4)


def constant_of(node: Node) -> np.ndarray:
    return next(n for n in (node.input_node(1), node.input_node(0)) if n.type == "Constant").value


# --- Add ----------------------------------------------------------------------------------------
def test_add_keeps_one_branch_integral_and_recomputes_the_other():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), 10.0, 7.0)
    b = dequantize(g, parameter(g, "b"), 5.0, 3.0)
    output(g, "Add", [a, b])
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    assert run(g, "AddTransformation")["AddTransformation"] == 1
    after = g.results[0].input_node(0)
    assert after.type == "Multiply" and float(constant_of(after)) == pytest.approx(5.0)
    add = after.input_node(0)
    assert add.type == "Add" and add.input_value(1).element_type.name == "u8"
    full = add.input_node(0)
    assert float(constant_of(full)) == pytest.approx(2.0)
    assert float(constant_of(full.input_node(0))) == pytest.approx(8.5)
    assert_same_math(g, before, feeds)


def test_add_with_a_constant_becomes_a_zero_point():
    g = Graph()
    x = dequantize(g, parameter(g, "x", "i8"), 5.0)
    c = g.add_constant(np.array([10, 5, 2], np.float32).reshape(1, 3, 1, 1), "f32").output()
    output(g, "Add", [x, c])
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    run(g, "AddTransformation")
    multiply = g.results[0].input_node(0)
    subtract = multiply.input_node(0)
    assert (multiply.type, subtract.type) == ("Multiply", "Subtract")
    np.testing.assert_allclose(constant_of(subtract).reshape(-1), [-2.0, -1.0, -0.4], rtol=1e-6)
    assert_same_math(g, before, feeds)


def test_add_declines_a_zero_scale():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), np.array([1, 0, 2], np.float32).reshape(1, 3, 1, 1), 7.0)
    add = output(g, "Add", [parameter(g, "f", "f32"), a])
    assert not run(g, "AddTransformation")
    assert add.input_node(1).type == "Multiply"


# --- MultiplyPartial / Multiply -------------------------------------------------------------------
def test_multiply_partial_merges_scales_into_the_full_branch():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), 10.0, 2.0)
    b = dequantize(g, parameter(g, "b"), 7.0)
    output(g, "Multiply", [a, b])
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    run(g, "MultiplyPartialTransformation")
    product = g.results[0].input_node(0)
    assert product.input_value(1).element_type.name == "u8"
    scaled = product.input_node(0)
    assert float(constant_of(scaled)) == pytest.approx(70.0)
    assert_same_math(g, before, feeds)


def test_multiply_partial_needs_an_empty_branch_without_zero_point():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), 10.0, 2.0)
    b = dequantize(g, parameter(g, "b"), 7.0, 3.0)
    multiply = output(g, "Multiply", [a, b])
    assert not run(g, "MultiplyPartialTransformation")
    assert multiply.alive and multiply.input_node(0).type == "Multiply"


def test_multiply_moves_both_scales_after_the_product():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), 10.0, 2.0)
    b = dequantize(g, parameter(g, "b"), 7.0, 3.0)
    output(g, "Multiply", [a, b])
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    run(g, "MultiplyTransformation")
    scales = g.results[0].input_node(0)
    assert float(constant_of(scales)) == pytest.approx(70.0)
    product = scales.input_node(0)
    assert [product.input_node(i).type for i in (0, 1)] == ["Subtract", "Subtract"]
    assert product.input_node(0).input_value(0).element_type.name == "u8"
    assert_same_math(g, before, feeds)


# --- Clamp, Relu, MaxPool -------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [3.0, -5.0])
def test_clamp_bounds_move_into_the_integer_domain(scale):
    g = Graph()
    x = dequantize(g, parameter(g, "x"), scale, 128.0)
    clamp = output(g, "Clamp", [x], {"min": "0", "max": "10"})
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    run(g, "ClampTransformation")
    low, high = sorted((0 / scale + 128, 10 / scale + 128))
    assert float(clamp.attr("min")) == pytest.approx(low)
    assert float(clamp.attr("max")) == pytest.approx(high)
    assert clamp.input_value(0).element_type.name == "u8" and clamp.output().element_type.name == "f32"
    assert_same_math(g, before, feeds)


def test_clamp_declines_a_per_channel_scale():
    g = Graph()
    x = dequantize(g, parameter(g, "x"), np.array([3, 1, 2], np.float32).reshape(1, 3, 1, 1))
    clamp = output(g, "Clamp", [x], {"min": "0", "max": "10"})
    assert not run(g, "ClampTransformation")
    assert clamp.input_node(0).type == "Multiply"


def test_relu_runs_on_integers_and_declines_a_zero_point():
    g = Graph()
    relu = output(g, "Relu", [dequantize(g, parameter(g, "x"), 0.1)])
    run(g, "ReluTransformation")
    assert relu.output().element_type.name == "u8"
    g2 = Graph()
    relu2 = output(g2, "Relu", [dequantize(g2, parameter(g2, "x"), 0.1, 128.0)])
    assert not run(g2, "ReluTransformation")
    assert relu2.input_node(0).type == "Multiply"


def test_max_pool_declines_a_negative_scale():
    g = Graph()
    x = dequantize(g, parameter(g, "x"), -0.5)
    attrs = {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "kernel": "1,1"}
    pool = output(g, "MaxPool", [x], attrs, shape=SHAPE)
    assert not run(g, "MaxPoolTransformation")
    assert pool.input_node(0).type == "Multiply"


# --- Concat --------------------------------------------------------------------------------------
def test_concat_joins_per_input_dequantizations_along_the_axis():
    g = Graph()
    a = dequantize(g, parameter(g, "a"), 0.1, 127.0)
    b = dequantize(g, parameter(g, "b"), 0.2, 128.0)
    concat = output(g, "Concat", [a, b], {"axis": "1"}, shape=(1, 6, 4, 4))
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    run(g, "ConcatTransformation")
    assert concat.output().element_type.name == "u8"
    multiply = g.results[0].input_node(0)
    np.testing.assert_allclose(constant_of(multiply).reshape(-1), [0.1] * 3 + [0.2] * 3, rtol=1e-6)
    np.testing.assert_allclose(constant_of(multiply.input_node(0)).reshape(-1), [127] * 3 + [128] * 3)
    assert_same_math(g, before, feeds)


def test_concat_declines_dequantization_varying_off_the_axis():
    g = Graph()
    per_channel = np.array([0.1, 0.2, 0.3], np.float32).reshape(1, 3, 1, 1)
    a = dequantize(g, parameter(g, "a"), per_channel)
    b = dequantize(g, parameter(g, "b"), per_channel)
    concat = output(g, "Concat", [a, b], {"axis": "0"}, shape=(2, 3, 4, 4))
    assert not run(g, "ConcatTransformation")
    assert concat.input_node(0).type == "Multiply"


# --- branch choice --------------------------------------------------------------------------------
def test_full_branch_is_the_unquantized_one():
    g = Graph()
    q = dequantize(g, parameter(g, "q"), 0.5)
    f = dequantize(g, parameter(g, "f", "f32"), 0.5)
    add = output(g, "Add", [q, f])
    assert full_branch_index(add, config_from_dict({})) == 1


def test_full_branch_is_the_broadcast_one_between_equals():
    g = Graph()
    big = dequantize(g, parameter(g, "big"), 0.5)
    small = dequantize(g, parameter(g, "small", shape=(1, 3, 1, 1)), 0.5)
    add = output(g, "Add", [big, small])
    assert full_branch_index(add, config_from_dict({})) == 1


@pytest.mark.parametrize("shape, expected", [((1,), True), ((1000,), False), ((1, 1), True),
                                             ((1, 256), False), ((1, 1000, 1, 1), True),
                                             ((1, 32, 144, 144), False)])
def test_is_broadcasted(shape, expected):
    assert is_broadcasted(shape) is expected


@pytest.mark.parametrize("skip", [True, False])
def test_skip_bias_add_leaves_a_bias_add_before_its_scale(skip):
    graph = Graph()
    shape = (1, 4, 3, 3)

    def dequantized(value_shape: tuple[int, ...], value: Output) -> Output:
        convert = graph.add_node("Convert", [value], outputs=[("f32", value_shape)], attrs={"destination_type": "f32"})
        scale = graph.add_constant(np.float32(0.5), "f32").output()
        return graph.add_node("Multiply", [convert.output(), scale], outputs=[("f32", value_shape)]).output()

    data = dequantized(shape, graph.add_node("Parameter", outputs=[("u8", shape)], name="x").output())
    weights = dequantized((4, 4, 1, 1), graph.add_constant(np.ones((4, 4, 1, 1), np.int8), "i8").output())
    conv = graph.add_node("Convolution", [data, weights], outputs=[("f32", shape)], name="conv",
                          attrs={"strides": "1, 1", "dilations": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0",
                                 "auto_pad": "explicit"})
    bias = graph.add_constant(np.full((1, 4, 1, 1), 2.0, np.float32), "f32").output()
    add = graph.add_node("Add", [conv.output(), bias], outputs=[("f32", shape)], name="bias")
    graph.add_node("Result", [add.output()])
    only = ["ConvolutionTransformation", "AddTransformation"]
    run_pipeline(graph, config_from_dict({"transformations": {"only": only}, "params": {"skip_bias_add": skip}}))
    assert (graph.results[0].input_node(0).type == "Add") is skip


@pytest.mark.parametrize("other_zero_point", [None, 3.0])
def test_add_keeps_a_mat_mul_zero_point_only_with_the_same_values(other_zero_point):
    """The full branch's `z @ B` Subtract is rebuilt; with unchanged values it keeps the record
    the runtime dialect needs to write z before the MatMul, with a shifted value it loses it."""
    g = Graph()
    product = parameter(g, "product", "f32")  # a MatMul's result: float, not low precision
    shift = g.add_constant(np.full((1, 3, 1, 1), 254.0, np.float32), "f32")
    sub = g.add_node("Subtract", [product, shift.output()], outputs=[("f32", SHAPE)])
    sub.annotations[MAT_MUL_ZERO_POINT] = MatMulZeroPoint(np.float32(2.0), shift.constant_data)
    scale = g.add_constant(np.float32(0.5), "f32").output()
    full = g.add_node("Multiply", [sub.output(), scale], outputs=[("f32", SHAPE)]).output()
    other = parameter(g, "other", "f32") if other_zero_point is None else dequantize(
        g, parameter(g, "other"), 0.25, other_zero_point)
    output(g, "Add", [full, other])
    feeds = random_feeds(g)
    before = evaluate(g, feeds)
    assert run(g, "AddTransformation")["AddTransformation"] == 1
    rebuilt = [n for n in g if n.type == "Subtract" and n.input_node(0).name == "product"]
    assert len(rebuilt) == 1 and rebuilt[0] is not sub
    record = rebuilt[0].annotations.get(MAT_MUL_ZERO_POINT)
    if other_zero_point is None:
        assert record is not None and record.product is rebuilt[0].input_node(1).constant_data
    else:
        assert record is None
    assert_same_math(g, before, feeds)


def test_add_after_separation_counts_the_replaced_add_as_a_consumer():
    """OpenVINO separates a shared dequantization by replacing the Add with a copy; the original
    stays alive until AddTransformation returns, so getNotEmpty sees the input without
    dequantization read twice too. Both branches then look shared and input 0 stays full:
    the Add is transformed (Swin's residual Add after a LayerNorm the CPU decomposes)."""
    graph = Graph()
    y = parameter(graph, "y", "f32")
    scale = graph.add_constant(np.asarray(0.5, np.float32), "f32").output()
    shared = graph.add_node("Multiply", [y, scale], outputs=[("f32", SHAPE)]).output()
    output(graph, "Sqrt", [shared])  # another reader of the dequantization, left alone by LPT
    add = output(graph, "Add", [shared, parameter(graph, "z", "f32")])
    assert run(graph, "AddTransformation") == {"AddTransformation": 1}
    assert add.alive is False or add.output().uses[0].node.type == "Multiply"


@pytest.mark.parametrize("to_result", [False, True])
def test_add_with_a_constant_keeps_the_plugin_s_names(to_result):
    """NetworkHelper::swapMultiplyAndAdd and replaceToSubtract: the Subtract that takes the Add's
    place keeps the Add's name and the dequantization Multiply moved after it keeps its own
    (`x/DequantizationMultiply`, as the plugin's runtime model lists them); before a model output
    (updateOutput) the Multiply takes the Add's name and the Subtract becomes `add_original`."""
    g = Graph()
    x = dequantize(g, parameter(g, "x", "i8"), 5.0)
    g.rename(x.node, "x/DequantizationMultiply")
    c = g.add_constant(np.array([10, 5, 2], np.float32).reshape(1, 3, 1, 1), "f32").output()
    add = g.add_node("Add", [x, c], outputs=[("f32", SHAPE)], name="add")
    tail = add if to_result else g.add_node("Relu", [add.output()], outputs=[("f32", SHAPE)], name="relu")
    g.add_node("Result", [tail.output()])
    run(g, "AddTransformation")
    multiply = g.find("add") if to_result else g.find("relu").input_node(0)
    subtract = multiply.input_node(0)
    assert (multiply.type, subtract.type) == ("Multiply", "Subtract")
    expected = ("add", "add_original") if to_result else ("x/DequantizationMultiply", "add")
    assert (multiply.name, subtract.name) == expected
