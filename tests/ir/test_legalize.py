"""The runtime dialect: stock OpenVINO loads LPT's graph and the CPU plugin runs it in INT8."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.ir.graph import Graph
from lpt_cli.ir.legalize import legalize_for_runtime
from lpt_cli.ir.writer import write_ir

C, K, HW = 16, 32, 14
CONV = {"strides": "1, 1", "dilations": "1, 1", "pads_begin": "1, 1", "pads_end": "1, 1", "auto_pad": "explicit"}
RNG = np.random.default_rng(7)
WEIGHTS = RNG.integers(-127, 128, (K, C, 3, 3)).astype(np.int8)
W_SCALE = RNG.uniform(0.01, 0.03, (K, 1, 1, 1)).astype(np.float32)
ZERO_POINT = 5


def lowp_graph(zero_point: bool) -> Graph:
    """LPT's result for FakeQuantize(0..2.55) -> Convolution(i8 weights) [-> with a zero point]."""
    g = Graph("lowp")
    x = g.add_node("Parameter", outputs=[("f32", (1, C, HW, HW))], name="x",
                   attrs={"shape": f"1,{C},{HW},{HW}", "element_type": "f32"})
    x.outputs[0].names = "x"
    limits = [g.add_constant(np.float32(v)).outputs[0] for v in (0.0, 2.55, 0.0, 255.0)]
    act = g.add_node("FakeQuantize", [x.outputs[0], *limits], outputs=[("u8", (1, C, HW, HW))],
                     attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq").outputs[0]
    if zero_point:
        zp = g.add_constant(np.uint8(ZERO_POINT), "u8", name="zp")
        act = g.add_node("Subtract", [act, zp.outputs[0]], outputs=[("f32", (1, C, HW, HW))],
                         attrs={"auto_broadcast": "numpy"}, name="sub").outputs[0]
    w = g.add_constant(WEIGHTS, "i8", name="w")
    conv = g.add_node("Convolution", [act, w.outputs[0]], outputs=[("f32", (1, K, HW, HW))], attrs=CONV, name="conv")
    scale = g.add_constant((W_SCALE * 0.01).reshape(1, K, 1, 1), "f32", name="scale")
    deq = g.add_node("Multiply", [conv.outputs[0], scale.outputs[0]], outputs=[("f32", (1, K, HW, HW))],
                     attrs={"auto_broadcast": "numpy"}, name="deq")
    deq.outputs[0].names = "y"
    g.add_node("Result", [deq.outputs[0]], name="y/sink")
    return g


def reference(zero_point: bool) -> ov.Model:
    """The same math with stock ops: FakeQuantize, dequantized f32 weights, f32 Convolution."""
    x = ops.parameter([1, C, HW, HW], np.float32, name="x")
    act = ops.fake_quantize(x, 0.0, 2.55, 0.0, 2.55, 256)
    if zero_point:
        act = ops.subtract(act, ops.constant(np.float32(ZERO_POINT * 0.01)))
    weights = ops.multiply(ops.convert(ops.constant(WEIGHTS), np.float32), ops.constant(W_SCALE))
    return ov.Model([ops.convolution(act, weights, [1, 1], [1, 1], [1, 1], [1, 1])], [x], "ref")


def _conv_precisions(compiled: ov.CompiledModel) -> list[str]:
    return [op.get_rt_info()["runtimePrecision"].astype(str) for op in compiled.get_runtime_model().get_ordered_ops()
            if op.get_rt_info()["layerType"].astype(str) == "Convolution"]


@pytest.mark.parametrize("zero_point", [False, True], ids=["symmetric", "zero_point"])
def test_cpu_runs_the_convolution_in_int8_with_the_same_result(tmp_path: Path, zero_point: bool) -> None:
    graph = lowp_graph(zero_point)
    write_ir(graph, tmp_path / "rt.xml", dialect="runtime")
    core = ov.Core()
    compiled = core.compile_model(str(tmp_path / "rt.xml"), "CPU")
    assert _conv_precisions(compiled) and all(p in ("U8", "I8", "u8", "i8") for p in _conv_precisions(compiled))
    ref = core.compile_model(reference(zero_point), "CPU")
    x = RNG.uniform(-0.3, 2.8, (1, C, HW, HW)).astype(np.float32)
    expected, actual = ref(x)[0], compiled(x)[0]
    assert np.allclose(actual, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_a_plain_convert_would_not_be_int8(tmp_path: Path) -> None:
    """Guards the reason for Multiply(1.0): without it the plugin falls back to f32."""
    x = ops.parameter([1, C, HW, HW], np.float32, name="x")
    act = ops.convert(ops.convert(ops.fake_quantize(x, 0.0, 2.55, 0.0, 255.0, 256), "u8"), np.float32)
    weights = ops.convert(ops.constant(WEIGHTS), np.float32)
    model = ov.Model([ops.convolution(act, weights, [1, 1], [1, 1], [1, 1], [1, 1])], [x], "plain")
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    assert _conv_precisions(compiled) in (["FP32"], ["f32"])


def test_legalize_works_on_a_copy_and_leaves_data_movement_in_u8() -> None:
    graph = lowp_graph(zero_point=True)
    pool_in = graph.find("fq").outputs[0]
    pool = graph.add_node("MaxPool", [pool_in], outputs=[("u8", (1, C, 7, 7))], name="pool",
                          attrs={"strides": "2, 2", "pads_begin": "0, 0", "pads_end": "0, 0", "kernel": "2, 2",
                                 "rounding_type": "floor", "auto_pad": "explicit"})
    graph.add_node("Result", [pool.outputs[0]], name="pooled")
    before = len(graph)
    legal = legalize_for_runtime(graph)
    assert len(graph) == before and len(legal) > before  # the input graph is unchanged
    assert graph.find("conv").input_node(0).name == "sub"
    assert legal.find("pool").outputs[0].element_type.name == "u8"
    assert legal.find("pool").input_node(0).type == "Convert"  # FakeQuantize (f32) -> Convert(u8)
    assert legal.find("fq").outputs[0].element_type.name == "f32"
    chain = legal.find("conv").input_node(0)
    assert [chain.type, chain.input_node(0).type, chain.input_node(0).input_node(0).type] == [
        "Multiply", "Subtract", "Convert"]
    weights = legal.find("conv").input_node(1)
    assert [weights.type, weights.input_node(0).type, weights.input_node(0).input_node(0).name] == [
        "Multiply", "Convert", "w"]
    assert [n.name for n in legal.results] == ["y/sink", "pooled"]



def attention_scores(shared_chain: bool, integer_output: bool = False) -> Graph:
    """i8 -> Reshape -> Transpose -> MatMul(transpose_b), the Transpose also feeding input 1 or not,
    and a model output (that keeps integers) or not."""
    g = Graph("attention")
    shape, split = (1, 4, 8), (1, 4, 2, 4)
    x = g.add_node("Parameter", outputs=[("i8", shape)], name="x", attrs={"shape": "1,4,8", "element_type": "i8"})
    reshape = g.add_node("Reshape", [x.outputs[0], g.add_constant(np.array(split), "i64").outputs[0]],
                         outputs=[("i8", split)], attrs={"special_zero": "false"}, name="reshape")
    order = g.add_constant(np.array([0, 2, 1, 3]), "i64").outputs[0]
    transpose = g.add_node("Transpose", [reshape.outputs[0], order], outputs=[("i8", (1, 2, 4, 4))], name="transpose")
    other = transpose.outputs[0] if shared_chain else g.add_constant(np.ones((1, 2, 4, 4), np.int8), "i8").outputs[0]
    matmul = g.add_node("MatMul", [transpose.outputs[0], other], outputs=[("f32", (1, 2, 4, 4))],
                        attrs={"transpose_a": "false", "transpose_b": "true"}, name="matmul")
    g.add_node("Result", [matmul.outputs[0]], name="y")
    if integer_output:
        g.add_node("Result", [transpose.outputs[0]], name="scores_i8")
    return g


def test_integer_input_behind_shape_only_ops_is_dequantized_at_their_head():
    """`Convert -> Multiply(1.0)` goes before Reshape -> Transpose, where the CPU plugin's LPT moves
    it down again (written after them, a Q x K^T MatMul ran in an f32 attention snippet)."""
    legal = legalize_for_runtime(attention_scores(shared_chain=False))
    head = legal.find("reshape").input_node(0)
    assert head.type == "Multiply" and head.input_node(0).type == "Convert"
    assert legal.find("transpose").outputs[0].element_type.name == "f32"
    assert legal.find("matmul").input_node(0).type == "Transpose"


def test_chain_feeding_only_float_ops_is_dequantized_once_at_its_head():
    """convnext: the Transpose feeds the depthwise convolution and the residual Add; at the head
    the plugin runs the convolution in i8, behind the Transpose in f32."""
    legal = legalize_for_runtime(attention_scores(shared_chain=True))
    assert legal.find("reshape").input_node(0).type == "Multiply"
    assert legal.find("matmul").input_node(0).type == legal.find("matmul").input_node(1).type == "Transpose"


def test_chain_whose_integers_are_also_used_as_such_keeps_them():
    legal = legalize_for_runtime(attention_scores(shared_chain=True, integer_output=True))
    assert legal.find("reshape").input_node(0).type == "Parameter"
    assert legal.find("transpose").outputs[0].element_type.name == "i8"


def depthwise_behind_transpose(residual: bool) -> Graph:
    """convnext's stem in LPT's lowp form: LayerNorm output (NHWC) -> FakeQuantize(u8, zero point)
    -> Transpose(u8) -> Subtract(zero point) -> 7x7 depthwise GroupConvolution(i8) -> Multiply,
    with the Transpose also feeding the residual's dequantization or not."""
    g = Graph("convnext_stem")
    nhwc, nchw = (1, HW, HW, C), (1, C, HW, HW)
    x = g.add_node("Parameter", outputs=[("f32", nhwc)], name="x",
                   attrs={"shape": f"1,{HW},{HW},{C}", "element_type": "f32"})
    x.outputs[0].names = "x"
    limits = [g.add_constant(np.float32(v)).outputs[0] for v in (-1.0, 1.55, 0.0, 255.0)]
    fq = g.add_node("FakeQuantize", [x.outputs[0], *limits], outputs=[("u8", nhwc)],
                    attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq")
    order = g.add_constant(np.array([0, 3, 1, 2]), "i64").outputs[0]
    transpose = g.add_node("Transpose", [fq.outputs[0], order], outputs=[("u8", nchw)], name="transpose")
    zp = g.add_constant(np.full((1, C, 1, 1), 100, np.uint8), "u8", name="zp").outputs[0]
    shifted = g.add_node("Subtract", [transpose.outputs[0], zp], outputs=[("f32", nchw)],
                         attrs={"auto_broadcast": "numpy"}, name="sub")
    weights = g.add_constant(RNG.integers(-127, 128, (C, 1, 1, 7, 7)).astype(np.int8), "i8", name="w")
    conv = g.add_node("GroupConvolution", [shifted.outputs[0], weights.outputs[0]], outputs=[("f32", nchw)],
                      attrs={**CONV, "pads_begin": "3, 3", "pads_end": "3, 3"}, name="dwconv")
    scale = g.add_constant(np.float32(0.01 * 0.02), name="scale").outputs[0]
    y = g.add_node("Multiply", [conv.outputs[0], scale], outputs=[("f32", nchw)],
                   attrs={"auto_broadcast": "numpy"}, name="deq")
    if residual:
        skip_zp = g.add_constant(np.uint8(100), "u8", name="skip_zp").outputs[0]
        skip = g.add_node("Subtract", [transpose.outputs[0], skip_zp], outputs=[("f32", nchw)],
                          attrs={"auto_broadcast": "numpy"}, name="skip_sub")
        skip_scaled = g.add_node("Multiply", [skip.outputs[0], g.add_constant(np.float32(0.01)).outputs[0]],
                                 outputs=[("f32", nchw)], attrs={"auto_broadcast": "numpy"}, name="skip_deq")
        y = g.add_node("Add", [y.outputs[0], skip_scaled.outputs[0]], outputs=[("f32", nchw)],
                       attrs={"auto_broadcast": "numpy"}, name="residual")
    y.outputs[0].names = "y"
    g.add_node("Result", [y.outputs[0]], name="y/sink")
    return g


@pytest.mark.parametrize("residual", [False, True], ids=["single_use", "residual"])
def test_zero_point_behind_transpose_is_dequantized_at_the_head(tmp_path: Path, residual: bool) -> None:
    """Behind the Transpose, `Convert -> Subtract -> Multiply(1.0) -> GroupConvolution` crashed
    the CPU plugin's compile_model (convnext on AVX2); at the head it runs the i8 kernel."""
    from lpt_cli.runtime.oracle import plugin_run

    graph = depthwise_behind_transpose(residual)
    legal = legalize_for_runtime(graph)
    head = legal.find("transpose").input_node(0)
    assert [head.type, head.input_node(0).type] == ["Multiply", "Convert"]
    assert legal.find("transpose").outputs[0].element_type.name == "f32"
    write_ir(graph, tmp_path / "rt.xml", dialect="runtime")
    feed = {"x": RNG.uniform(-1.2, 1.7, (1, HW, HW, C)).astype(np.float32)}
    ran = plugin_run(tmp_path / "rt.xml", feed)
    assert ran.ok, ran.error
    dwconv = [layer for layer in ran.layers if layer.layer_type == "Convolution"]
    assert dwconv and dwconv[0].computes_low
    act = np.clip(np.round((feed["x"] + 1.0) / 0.01), 0, 255).transpose(0, 3, 1, 2) - 100.0
    w = graph.find("w").value.astype(np.float64)
    padded = np.pad(act, ((0, 0), (0, 0), (3, 3), (3, 3)))
    expected = np.zeros((1, C, HW, HW))
    for dy in range(7):
        for dx in range(7):
            expected += padded[:, :, dy:dy + HW, dx:dx + HW] * w[:, 0, 0, dy, dx].reshape(1, C, 1, 1)
    expected *= 0.01 * 0.02
    if residual:
        expected += act * 0.01
    assert np.allclose(ran.outputs[0], expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_hoisted_scale_of_a_higher_rank_keeps_the_head_rank(tmp_path: Path) -> None:
    """maxvit_t: i8 (rank 4) -> Reshape(special_zero, rank 5) -> Transpose -> Multiply by a [1,1,1,1,1]
    scale -> Einsum. Hoisted to the rank-4 head with that constant, the Multiply broadcast to rank 5 and
    the Reshape's copied (0) dims read the wrong axes: the plugin refused the model at inference."""
    g = Graph("heads")
    shape, split, moved = (1, 1, 49, 64), (1, 1, 49, 2, 32), (1, 1, 2, 49, 32)
    x = g.add_node("Parameter", outputs=[("i8", shape)], name="x", attrs={"shape": "1,1,49,64", "element_type": "i8"})
    x.outputs[0].names = "x"
    pattern = g.add_constant(np.array([0, 0, 0, 2, 32]), "i64").outputs[0]
    reshape = g.add_node("Reshape", [x.outputs[0], pattern], outputs=[("i8", split)], attrs={"special_zero": "true"},
                         name="reshape")
    order = g.add_constant(np.array([0, 1, 3, 2, 4]), "i64").outputs[0]
    transpose = g.add_node("Transpose", [reshape.outputs[0], order], outputs=[("i8", moved)], name="transpose")
    scale = g.add_constant(np.full((1, 1, 1, 1, 1), 0.125, np.float32), "f32").outputs[0]
    scaled = g.add_node("Multiply", [transpose.outputs[0], scale], outputs=[("f32", moved)],
                        attrs={"auto_broadcast": "numpy"}, name="scaled")
    scores = g.add_node("Einsum", [scaled.outputs[0], scaled.outputs[0]], outputs=[("f32", (1, 1, 2, 49, 49))],
                        attrs={"equation": "bhnwd,bhnvd->bhnwv"}, version="opset7", name="scores")
    scores.outputs[0].names = "y"
    g.add_node("Result", [scores.outputs[0]], name="y/sink")
    legal = legalize_for_runtime(g)
    assert legal.find("reshape").input_node(0).type == "Multiply"
    assert legal.find("reshape").input_value(0).rank == 4
    write_ir(g, tmp_path / "rt.xml", dialect="runtime")
    feed = {"x": RNG.integers(-128, 128, shape).astype(np.int8)}
    ran = ov.Core().compile_model(str(tmp_path / "rt.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feed)[0]
    heads = feed["x"].astype(np.float64).reshape(split).transpose(0, 1, 3, 2, 4) * 0.125
    expected = np.einsum("bhnwd,bhnvd->bhnwv", heads, heads)
    assert np.allclose(ran, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def lowp_projection(transpose_b: bool, bias: bool) -> Graph:
    """LPT's result for FakeQuantize(u8) -> MatMul(i8 weights) -> scale Multiply [-> bias Add]."""
    n, k = 8, 4
    g = Graph("lowp")
    x = g.add_node("Parameter", outputs=[("u8", (1, 3, k))], name="x", attrs={"shape": f"1,3,{k}", "element_type": "u8"})
    w = g.add_constant(RNG.integers(-127, 128, (n, k) if transpose_b else (k, n)).astype(np.int8), "i8", name="w")
    mat_mul = g.add_node("MatMul", [x.outputs[0], w.outputs[0]], outputs=[("f32", (1, 3, n))], name="mm",
                         attrs={"transpose_a": "false", "transpose_b": str(transpose_b).lower()})
    scale = g.add_constant(RNG.uniform(1e-3, 2e-3, (1, 1, n)).astype(np.float32), "f32", name="scale")
    y = g.add_node("Multiply", [mat_mul.outputs[0], scale.outputs[0]], outputs=[("f32", (1, 3, n))],
                   attrs={"auto_broadcast": "numpy"}, name="mm/DequantizationMultiply").outputs[0]
    if bias:
        b = g.add_constant(RNG.uniform(-1, 1, (1, 1, n)).astype(np.float32), "f32", name="b")
        y = g.add_node("Add", [y, b.outputs[0]], outputs=[("f32", (1, 3, n))], attrs={"auto_broadcast": "numpy"},
                       name="bias").outputs[0]
    g.add_node("Result", [y], name="y/sink")
    return g


@pytest.mark.parametrize("transpose_b", [True, False])
def test_scale_of_a_biased_mat_mul_moves_onto_its_weights(transpose_b: bool) -> None:
    """The plugin marks a bias only right behind the MatMul: the scale goes onto the weights'
    dequantization, laid out along the weights' output channels."""
    lowp = lowp_projection(transpose_b, bias=True)
    scale = next(n for n in lowp if n.name == "scale").value
    g = legalize_for_runtime(lowp)
    mat_mul = next(n for n in g if n.type == "MatMul")
    assert [use.node.name for use in mat_mul.outputs[0].uses] == ["bias"]
    weights = mat_mul.input_node(1)
    assert weights.type == "Multiply" and weights.input_node(0).type == "Convert"
    moved = weights.input_node(1).value
    assert np.array_equal(moved, scale.reshape(-1, 1) if transpose_b else scale.reshape(1, -1))


def test_scale_of_a_mat_mul_without_bias_stays_behind_it() -> None:
    g = legalize_for_runtime(lowp_projection(True, bias=False))
    mat_mul = next(n for n in g if n.type == "MatMul")
    assert [use.node.type for use in mat_mul.outputs[0].uses] == ["Multiply"]
    assert float(mat_mul.input_node(1).input_node(1).value) == 1.0


def lowp_ignored_convolution(scale_sign: float, relu_also_output: bool) -> Graph:
    """LPT's result for FakeQuantize(u8) -> Convolution(i8) -> Relu -> Convolution(float): the
    first convolution's scale moved across the Relu, in front of the float one."""
    g = Graph("lowp")
    x = g.add_node("Parameter", outputs=[("u8", (1, C, HW, HW))], name="x",
                   attrs={"shape": f"1,{C},{HW},{HW}", "element_type": "u8"})
    w = g.add_constant(WEIGHTS, "i8", name="w")
    conv = g.add_node("Convolution", [x.outputs[0], w.outputs[0]], outputs=[("f32", (1, K, HW, HW))], attrs=CONV,
                      name="conv")
    relu = g.add_node("Relu", [conv.outputs[0]], outputs=[("f32", (1, K, HW, HW))], name="relu")
    scale = g.add_constant(scale_sign * W_SCALE.reshape(1, K, 1, 1), "f32", name="scale")
    deq = g.add_node("Multiply", [relu.outputs[0], scale.outputs[0]], outputs=[("f32", (1, K, HW, HW))],
                     attrs={"auto_broadcast": "numpy"}, name="deq")
    floats = g.add_constant(RNG.normal(0, 0.05, (4, K, 3, 3)).astype(np.float32), "f32", name="floats")
    ignored = g.add_node("Convolution", [deq.outputs[0], floats.outputs[0]], outputs=[("f32", (1, 4, HW, HW))],
                         attrs=CONV, name="ignored")
    g.add_node("Result", [ignored.outputs[0]], name="y/sink")
    if relu_also_output:
        g.add_node("Result", [relu.outputs[0]], name="relu/sink")
    return g


@pytest.mark.parametrize(("scale_sign", "relu_also_output", "moved"), [
    (1.0, False, True),
    (-1.0, False, False),  # Relu(x * -c) is not Relu(x) * -c
    (1.0, True, False),  # the Relu's other reader needs it unscaled
])
def test_scale_in_front_of_a_float_convolution_goes_back_across_the_relu(
        scale_sign: float, relu_also_output: bool, moved: bool) -> None:
    g = legalize_for_runtime(lowp_ignored_convolution(scale_sign, relu_also_output))
    relu, ignored = g.find("relu"), g.find("ignored")
    if moved:
        assert relu.input_node(0).name == "deq" and relu.input_node(0).input_node(0).name == "conv"
        assert ignored.input_node(0) is relu
    else:
        assert relu.input_node(0).name == "conv" and ignored.input_node(0).name == "deq"


def test_an_mvn_a_cpu_profile_decomposed_is_written_back_whole() -> None:
    """The CPU profile decomposes an MVN its kernel cannot run so that LPT sees the plugin's ops;
    the runtime dialect writes the MVN back on what `x - mean` took (its attributes, axes and
    name), for the plugin to decompose as on the original: its Divide would otherwise meet the
    plugin's ConvertDivide."""
    from lpt_cli.lpt.common_optimizations.mvn import decompose_marked_mvns, mark_mvn_decomposition

    g = Graph("mvn")
    x = g.add_node("Parameter", outputs=[("f32", (1, 4, 4, 8))], name="x").outputs[0]
    attrs = {"eps": "1e-05", "normalize_variance": "true", "eps_mode": "inside_sqrt"}
    mvn = g.add_node("MVN", [x, g.add_constant(np.array([-1], np.int64)).outputs[0]], outputs=[("f32", (1, 4, 4, 8))],
                     attrs=attrs, version="opset6", name="norm")
    g.add_node("Result", [mvn.outputs[0]])
    mark_mvn_decomposition(g)
    assert decompose_marked_mvns(g) == 1 and g.find("norm").type == "Divide"
    written = legalize_for_runtime(g)
    back = written.find("norm")
    assert back.type == "MVN" and back.attrs == attrs and back.input_node(0).name == "x"
    assert back.input_node(1).value.tolist() == [-1]
    assert not any(n.type in ("ReduceMean", "Sqrt", "Divide") for n in written)
    assert g.find("norm").type == "Divide"  # lpt's own graph keeps the decomposition
