"""Dequantization propagation through data-movement and reduction ops (tiny graphs)."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.ir.shapes import broadcast_shapes
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline


def dequantized(graph: Graph, shape: tuple[int, ...], scale, zero_point=None, etype: str = "u8") -> Output:
    """Parameter(etype) -> Convert(f32) -> [Subtract(zero_point)] -> Multiply(scale)."""
    data = graph.add_node("Parameter", outputs=[(etype, shape)], name="input").output()
    value = graph.add_node("Convert", [data], outputs=[("f32", shape)], attrs={"destination_type": "f32"}).output()
    if zero_point is not None:
        zp = graph.add_constant(np.asarray(zero_point, np.float32), "f32").output()
        value = graph.add_node("Subtract", [value, zp], outputs=[("f32", shape)]).output()
    sc = graph.add_constant(np.asarray(scale, np.float32), "f32").output()
    return graph.add_node("Multiply", [value, sc], outputs=[("f32", broadcast_shapes(shape, sc.shape))]).output()


def op(graph: Graph, op_type: str, inputs: list[Output], shape, attrs=None, etype="f32", **kw) -> Node:
    node = graph.add_node(op_type, inputs, outputs=[(etype, shape)], attrs=attrs or {}, **kw)
    graph.add_node("Result", [node.output()])
    return node


def const(graph: Graph, value, etype: str = "i64") -> Output:
    return graph.add_constant(np.asarray(value), etype).output()


def run(graph: Graph, name: str, **config):
    return run_pipeline(graph, config_from_dict({"transformations": {"only": [name]}, **config}))


def chain_after(node: Node) -> dict[str, Node]:
    """The dequantization that now follows `node`: {'convert', 'subtract', 'multiply'}."""
    found: dict[str, Node] = {}
    current = node
    while current.output().uses and current.output().uses[0].node.type != "Result":
        current = current.output().uses[0].node
        found[current.type.lower()] = current
    return found


def constant_of(node: Node) -> np.ndarray:
    return next(n for n in (node.input_node(1), node.input_node(0)) if n.type == "Constant").value


def test_reshape_merging_channel_repeats_per_channel_values():
    g = Graph()
    x = dequantized(g, (1, 3, 2, 2), [[[[0.1]], [[0.2]], [[0.3]]]], [[[[1]], [[2]], [[3]]]])
    reshape = op(g, "Reshape", [x, const(g, [1, 12])], (1, 12), {"special_zero": "false"})
    run(g, "ReshapeTransformation")
    assert reshape.input_value(0).element_type.name == "u8"
    assert reshape.output().element_type.name == "u8"
    after = chain_after(reshape)
    np.testing.assert_allclose(constant_of(after["multiply"]).reshape(-1), np.repeat([0.1, 0.2, 0.3], 4), rtol=1e-6)
    np.testing.assert_allclose(constant_of(after["subtract"]).reshape(-1), np.repeat([1, 2, 3], 4))


def test_reshape_changing_batch_keeps_per_channel_dequantization():
    g = Graph()
    x = dequantized(g, (1, 3, 4, 6), [[[[0.1]], [[0.2]], [[0.3]]]])
    reshape = op(g, "Reshape", [x, const(g, [2, -1])], (2, 36), {"special_zero": "false"})
    result = run(g, "ReshapeTransformation")
    assert reshape.input_node(0).type == "Multiply"
    assert reshape.output().element_type.name == "f32"
    assert [d.code for d in result.decisions[reshape.id]] == ["batch_changed"]


@pytest.mark.parametrize("order, moves", [([0, 1, 3, 2], True), ([0, 2, 1, 3], False)])
def test_transpose_moves_per_channel_only_with_channel_in_place(order, moves):
    g = Graph()
    x = dequantized(g, (1, 3, 4, 5), [[[[0.1]], [[0.2]], [[0.3]]]])
    out_shape = tuple((1, 3, 4, 5)[i] for i in order)
    transpose = op(g, "Transpose", [x, const(g, order)], out_shape)
    run(g, "TransposeTransformation")
    assert (transpose.input_node(0).type == "Parameter") is moves
    if moves:
        assert constant_of(chain_after(transpose)["multiply"]).shape == (1, 3, 1, 1)


def test_gather_along_channel_gathers_constants():
    g = Graph()
    x = dequantized(g, (1, 4, 2), [[[1.0], [2.0], [3.0], [4.0]]], [[[10], [20], [30], [40]]])
    gather = op(g, "Gather", [x, const(g, [3, 1]), const(g, 1)], (1, 2, 2), {"batch_dims": "0"}, version="opset8")
    run(g, "GatherTransformation")
    after = chain_after(gather)
    np.testing.assert_allclose(constant_of(after["multiply"]).reshape(-1), [4.0, 2.0])
    np.testing.assert_allclose(constant_of(after["subtract"]).reshape(-1), [40, 20])


def test_reduce_sum_scales_zero_point_and_drops_axes():
    g = Graph()
    x = dequantized(g, (1, 3, 4, 4), [[[[0.1]], [[1.0]], [[10.0]]]], [[[[1]], [[2]], [[3]]]])
    reduce = op(g, "ReduceSum", [x, const(g, [2, 3])], (1, 3), {"keep_dims": "false"})
    run(g, "ReduceSumTransformation")
    assert reduce.input_value(0).element_type.name == "u8"
    assert reduce.output().element_type.name == "f32"  # the sum is computed in f32
    after = chain_after(reduce)
    assert "convert" not in after
    np.testing.assert_allclose(constant_of(after["subtract"]), [[16, 32, 48]])
    assert constant_of(after["multiply"]).shape == (1, 3)


def test_reduce_over_channel_is_refused():
    g = Graph()
    x = dequantized(g, (1, 3, 4, 4), [[[[0.1]], [[1.0]], [[10.0]]]])
    reduce = op(g, "ReduceMean", [x, const(g, [1])], (1, 1, 4, 4), {"keep_dims": "true"})
    result = run(g, "ReduceMeanTransformation")
    assert reduce.input_node(0).type == "Multiply"
    assert result.decisions[reduce.id][0].code == "reduced_channel"


def test_reduce_max_refuses_negative_scale():
    g = Graph()
    x = dequantized(g, (1, 3, 4, 4), -0.5)
    reduce = op(g, "ReduceMax", [x, const(g, [2, 3])], (1, 3, 1, 1), {"keep_dims": "true"})
    result = run(g, "ReduceMaxTransformation")
    assert reduce.input_node(0).type == "Multiply"
    assert result.decisions[reduce.id][0].code == "negative_scale"


def test_strided_slice_on_channel_slices_constants():
    g = Graph()
    x = dequantized(g, (1, 3, 4, 4), [[[[0.1]], [[0.2]], [[0.3]]]], [[[[1]], [[2]], [[3]]]])
    attrs = {"begin_mask": "1, 0, 1, 1", "end_mask": "1, 0, 1, 1"}
    ss = op(g, "StridedSlice", [x, const(g, [0, 1, 0, 0]), const(g, [1, 3, 1, 1]), const(g, [1, 1, 1, 1])],
            (1, 2, 4, 4), attrs)
    run(g, "StridedSliceTransformation")
    after = chain_after(ss)
    np.testing.assert_allclose(constant_of(after["multiply"]).reshape(-1), [0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(constant_of(after["subtract"]).reshape(-1), [2, 3])


def test_pad_constant_mode_pads_constants_with_neutral_values():
    g = Graph()
    x = dequantized(g, (1, 1, 3, 1), [[[[1.0], [2.0], [3.0]]]], 5)
    pad = op(g, "Pad", [x, const(g, [0, 0, 1, 0]), const(g, [0, 0, 1, 0]), const(g, 0.0, "f32")], (1, 1, 5, 1),
             {"pad_mode": "constant"}, version="opset12")
    run(g, "PadTransformation")
    after = chain_after(pad)
    np.testing.assert_allclose(constant_of(after["multiply"]).reshape(-1), [1, 1, 2, 3, 1])
    np.testing.assert_allclose(constant_of(after["subtract"]).reshape(-1), [0, 5, 5, 5, 0])
    assert pad.input_value(3).element_type.name == "u8"


def test_pad_constant_mode_two_padded_axes_with_zero_point_is_refused():
    g = Graph()
    x = dequantized(g, (1, 1, 3, 3), 1.0, 5)
    pad = op(g, "Pad", [x, const(g, [0, 0, 1, 1]), const(g, [0, 0, 0, 0]), const(g, 0.0, "f32")], (1, 1, 4, 4),
             {"pad_mode": "constant"}, version="opset12")
    result = run(g, "PadTransformation")
    assert pad.input_node(0).type == "Multiply"
    assert result.decisions[pad.id][0].code == "padded_zero_point"


def test_split_on_channel_gives_each_output_its_values():
    g = Graph()
    x = dequantized(g, (1, 2, 4), [[[0.5], [0.25]]])
    split = g.add_node("Split", [x, const(g, 1)], outputs=[("f32", (1, 1, 4)), ("f32", (1, 1, 4))],
                       attrs={"num_splits": "2"})
    for out in split.outputs:
        g.add_node("Result", [out])
    run(g, "SplitTransformation")
    assert split.input_node(0).type == "Parameter"
    scales = [float(constant_of(out.uses[0].node.output().uses[0].node)) for out in split.outputs]
    assert scales == [0.5, 0.25]


def test_squeeze_and_unsqueeze_follow_axes():
    g = Graph()
    x = dequantized(g, (1, 3, 1, 1), [[[[0.1]], [[0.2]], [[0.3]]]])
    squeeze = op(g, "Squeeze", [x, const(g, [2, 3])], (1, 3))
    run(g, "SqueezeTransformation")
    assert constant_of(chain_after(squeeze)["multiply"]).shape == (1, 3)

    g = Graph()
    x = dequantized(g, (1, 3), [[0.1, 0.2, 0.3]])
    unsqueeze = op(g, "Unsqueeze", [x, const(g, [-1])], (1, 3, 1))
    run(g, "UnsqueezeTransformation")
    assert constant_of(chain_after(unsqueeze)["multiply"]).shape == (1, 3, 1)


def test_shuffle_channels_shuffles_constants():
    g = Graph()
    x = dequantized(g, (1, 4, 2, 2), np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1, 1))
    shuffle = op(g, "ShuffleChannels", [x], (1, 4, 2, 2), {"axis": "1", "group": "2"})
    run(g, "ShuffleChannelsTransformation")
    np.testing.assert_allclose(constant_of(chain_after(shuffle)["multiply"]).reshape(-1), [1, 3, 2, 4])


def test_depth_to_space_refuses_distinct_channel_values():
    g = Graph()
    x = dequantized(g, (1, 4, 2, 2), np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1, 1))
    d2s = op(g, "DepthToSpace", [x], (1, 1, 4, 4), {"mode": "blocks_first", "block_size": "2"})
    result = run(g, "DepthToSpaceTransformation")
    assert d2s.input_node(0).type == "Multiply"
    assert result.decisions[d2s.id][0].code == "per_channel"


def test_pull_reshape_folds_into_weights_and_fuses_scales():
    g = Graph()
    weights = g.add_constant(np.arange(6, dtype=np.int8).reshape(2, 3), "i8").output()
    cvt = g.add_node("Convert", [weights], outputs=[("f32", (2, 3))], attrs={"destination_type": "f32"}).output()
    mul = g.add_node("Multiply", [cvt, const(g, [[0.5], [2.0]], "f32")], outputs=[("f32", (2, 3))]).output()
    reshape = g.add_node("Reshape", [mul, const(g, [2, 3, 1, 1])], outputs=[("f32", (2, 3, 1, 1))],
                         attrs={"special_zero": "false"}).output()
    mul2 = op(g, "Multiply", [reshape, const(g, 3.0, "f32")], (2, 3, 1, 1))
    names = ["PullReshapeThroughDequantization", "PullTransposeThroughDequantization", "LinOpSequenceFusion"]
    run_pipeline(g, config_from_dict({"transformations": {"only": names}}))
    final = g.results[0].input_node(0)
    assert final.type == "Multiply" and final.input_node(0).type == "Convert"
    assert final.input_node(0).input_node(0).value.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(constant_of(final).reshape(-1), [1.5, 6.0])
    assert not mul2.alive


def weights_with_zero_point(graph: Graph, zero_point: list[float]) -> Node:
    weights = graph.add_constant(np.full((2, 3), 5, np.int8), "i8").output()
    cvt = graph.add_node("Convert", [weights], outputs=[("f32", (2, 3))], attrs={"destination_type": "f32"}).output()
    sub = graph.add_node("Subtract", [cvt, const(graph, [[v] for v in zero_point], "f32")],
                         outputs=[("f32", (2, 3))]).output()
    return op(graph, "Multiply", [sub, const(graph, 0.1, "f32")], (2, 3))


def test_convert_subtract_constant_rounds_zero_point_into_weights_type():
    g = Graph()
    multiply = weights_with_zero_point(g, [1.4, -2.5])
    run(g, "ConvertSubtractConstant")
    zero_point = multiply.input_node(0).input_node(1)
    assert zero_point.type == "Convert"
    assert zero_point.input_value(0).element_type.name == "i8"
    assert zero_point.input_node(0).value.reshape(-1).tolist() == [1, -3]  # half away from zero


def test_convert_subtract_constant_drops_zero_zero_point():
    g = Graph()
    multiply = weights_with_zero_point(g, [0.2, -0.4])
    run(g, "ConvertSubtractConstant")
    assert multiply.input_node(0).type == "Convert"


def test_add_multiply_fusion_moves_scale_before_shift():
    g = Graph()
    x = g.add_node("Parameter", outputs=[("f32", (1, 3))]).output()
    add = g.add_node("Add", [x, const(g, 2.0, "f32")], outputs=[("f32", (1, 3))]).output()
    op(g, "Multiply", [add, const(g, 3.0, "f32")], (1, 3))
    run(g, "LinOpSequenceFusion")
    last = g.results[0].input_node(0)
    assert last.type == "Add" and float(constant_of(last)) == 6.0
    assert last.input_node(0).type == "Multiply" and float(constant_of(last.input_node(0))) == 3.0


def _max_pool(graph: Graph, version: str, rounding: str, indices_used: bool) -> Node:
    shape = (1, 3, 4, 4)
    attrs = {"strides": "1, 1", "dilations": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0", "kernel": "1, 1",
             "rounding_type": rounding, "auto_pad": "explicit", "index_element_type": "i64", "axis": "0"}
    pool = graph.add_node("MaxPool", [dequantized(graph, shape, 0.1)], outputs=[("f32", shape), ("i64", shape)],
                          attrs=attrs, version=version, name="pool")
    graph.add_node("Result", [pool.output()])
    if indices_used:
        graph.add_node("Result", [pool.output(1)])
    return pool


@pytest.mark.parametrize("version, rounding, indices_used, moves", [
    ("opset8", "floor", False, True), ("opset8", "floor", True, False), ("opset14", "floor", False, True),
    ("opset14", "ceil", False, True), ("opset14", "ceil_torch", False, False), ("opset14", "floor", True, False),
])
def test_max_pool_moves_dequantization_only_as_the_plugin_downgrades_it(version, rounding, indices_used, moves):
    """MaxPool-14/-8 reach LPT as MaxPool-1 only through the plugin's common optimizations."""
    from lpt_cli.lpt.common_optimizations import run_common_optimizations

    alone = Graph()
    _max_pool(alone, version, rounding, indices_used)
    run(alone, "MaxPoolTransformation")
    assert alone.find("pool").input_node(0).type == "Multiply"  # LPT alone: not an op it knows

    graph = Graph()
    _max_pool(graph, version, rounding, indices_used)
    run_common_optimizations(graph)
    run(graph, "MaxPoolTransformation")
    pool = graph.find("pool")
    assert (pool.input_node(0).type != "Multiply") is moves
    if moves:
        assert pool.version == "opset1" and len(pool.outputs) == 1 and "dilations" not in pool.attrs


@pytest.mark.parametrize(("op_type", "name"), [("Relu", "ReluTransformation"), ("MaxPool", "MaxPoolTransformation")])
def test_a_shape_of_consumer_keeps_reading_the_ops_own_output(op_type, name):
    g = Graph()
    x = dequantized(g, (1, 3, 4, 4), 0.1)
    attrs = ({"strides": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0", "kernel": "1, 1",
              "rounding_type": "floor", "auto_pad": "explicit"} if op_type == "MaxPool" else {})
    node = op(g, op_type, [x], (1, 3, 4, 4), attrs, version="opset1")
    shape_of = g.add_node("ShapeOf", [node.output()], outputs=[("i64", (4,))])
    g.add_node("Result", [shape_of.output()])
    run(g, name)
    assert shape_of.input_node(0) is node
    data_result = next(r for r in g.results if r.input_node(0) is not shape_of)
    assert data_result.input_node(0).type == "Multiply"


def _concat_relu_fake_quantize(sizes: tuple[int, ...], high: np.ndarray, split: bool = False) -> Graph:
    """Concat(inputs of `sizes` channels) -> Relu -> FakeQuantize([0, high]) -> Result."""
    g = Graph()
    if split:
        x = g.add_node("Parameter", outputs=[("f32", (1, sum(sizes), 4, 4))], name="x").output()
        parts = g.add_node("Split", [x, const(g, 1)], outputs=[("f32", (1, s, 4, 4)) for s in sizes],
                           attrs={"num_splits": str(len(sizes))}).outputs
    else:
        parts = [g.add_node("Parameter", outputs=[("f32", (1, s, 4, 4))], name=f"x{i}").output()
                 for i, s in enumerate(sizes)]
    joined = g.add_node("Concat", list(parts), outputs=[("f32", (1, sum(sizes), 4, 4))], attrs={"axis": "1"},
                        name="concat").output()
    relu = g.add_node("Relu", [joined], outputs=[("f32", joined.shape)], name="relu").output()
    low = np.zeros_like(high)
    bounds = [g.add_constant(v).output() for v in (low, high, low, high)]
    op(g, "FakeQuantize", [relu, *bounds], joined.shape, attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq")
    return g


def test_fake_quantize_after_concat_and_relu_moves_onto_each_input_with_its_channels() -> None:
    high = np.arange(1, 7, dtype=np.float32).reshape(1, 6, 1, 1)
    g = _concat_relu_fake_quantize((4, 2), high)
    run(g, "MoveFakeQuantize")
    concat = g.results[0].input_node(0)
    assert concat.type == "Concat" and concat.name == "fq"  # a model output keeps its producer's name
    moved = [slot.source.node for slot in concat.inputs]
    assert [n.name for n in moved] == ["fq_1", "fq_2"]
    assert [n.input_node(0).name for n in moved] == ["relu_1", "relu_2"]
    assert [n.input_node(2).value.reshape(-1).tolist() for n in moved] == [[1, 2, 3, 4], [5, 6]]


def test_fake_quantize_after_a_concat_of_one_split_stays() -> None:
    g = _concat_relu_fake_quantize((3, 3), np.float32(2.0), split=True)
    run(g, "MoveFakeQuantize")
    assert g.results[0].input_node(0).type == "FakeQuantize"
