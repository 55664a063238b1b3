"""The plugin's optimizations before LPT (lpt_cli/lpt/common_optimizations): what each sub-pass changes."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.ir import Graph, Output
from lpt_cli.lpt.surgery.constants import DISABLE_CONSTANT_FOLDING
from lpt_cli.lpt.common_optimizations import is_function_quantized, run_common_optimizations
from lpt_cli.lpt.common_optimizations.arithmetic import convert_divide, convert_subtract
from lpt_cli.lpt.common_optimizations.batch_norm import decompose_batch_norm
from lpt_cli.lpt.common_optimizations.constant_folding import fold_constants
from lpt_cli.lpt.common_optimizations.interpolate import convert_interpolate_11
from lpt_cli.lpt.common_optimizations.mark_dequantization import mark_dequantization
from lpt_cli.lpt.common_optimizations.matmul_multiply import fuse_matmul_multiply
from lpt_cli.lpt.common_optimizations.nop_elimination import eliminate_eltwise, squeezes_to_reshapes
from lpt_cli.lpt.common_optimizations.shape_folding import fold_shape_subgraphs
from lpt_cli.lpt.common_optimizations.shared_ops import share_equal_ops


def parameter(g: Graph, shape: tuple[int, ...], etype: str = "f32") -> Output:
    return g.add_node("Parameter", outputs=[(etype, shape)], name="x",
                      attrs={"shape": ",".join(map(str, shape)), "element_type": etype}).output()


def convert(g: Graph, x: Output, to: str) -> Output:
    return g.add_node("Convert", [x], outputs=[(to, x.shape)], attrs={"destination_type": to}).output()


def channel_split(dims: tuple[int, ...]) -> tuple[Graph, Output]:
    """x -> VariadicSplit(axis 1, lengths Concat(C/2, C - C/2)) with C read through ShapeOf."""
    g = Graph()
    x = parameter(g, dims)
    shape = convert(g, g.add_node("ShapeOf", [x], outputs=[("i64", (4,))], version="opset3").output(), "i32")
    channels = g.add_node("Gather", [shape, g.add_constant(np.int64(1)).output(), g.add_constant(np.int32(0)).output()],
                          outputs=[("i32", ())], version="opset8", attrs={"batch_dims": "0"}).output()
    half = g.add_node("Divide", [channels, g.add_constant(np.int32(2)).output()], outputs=[("i32", ())],
                      attrs={"auto_broadcast": "numpy", "m_pythondiv": "true"}).output()
    rest = g.add_node("Subtract", [channels, half], outputs=[("i32", ())], attrs={"auto_broadcast": "numpy"}).output()
    unsq = [g.add_node("Unsqueeze", [v, g.add_constant(np.int64(0)).output()], outputs=[("i32", (1,))]).output()
            for v in (half, rest)]
    lengths = g.add_node("Concat", unsq, outputs=[("i32", (2,))], attrs={"axis": "0"}).output()
    half_dims = (dims[0], dims[1] // 2 if dims[1] > 0 else -1, *dims[2:])
    split = g.add_node("VariadicSplit", [x, g.add_constant(np.int64(1)).output(), lengths],
                       outputs=[("f32", half_dims), ("f32", half_dims)], name="split")
    for out in split.outputs:
        g.add_node("Result", [out])
    return g, lengths


def test_static_channels_read_through_shape_of_become_constant_split_lengths() -> None:
    g, _ = channel_split((-1, 48, -1, -1))  # batch and H/W dynamic, as convert_model leaves them
    assert fold_shape_subgraphs(g) > 0
    lengths = g.find("split").input_node(2)
    assert lengths.type == "Constant" and lengths.value.tolist() == [24, 24]
    assert not any(n.type == "ShapeOf" for n in g if n.alive)


def test_uneven_split_sizes_broadcast_from_the_channel_count_become_constant() -> None:
    """torch.split(x, chunk) with an uneven last chunk (edgenext): the sizes are
    `Concat(Broadcast(C // 3, [2]), -1)`; the plugin folds them, so LPT sees constant lengths."""
    g = Graph()
    x = parameter(g, (-1, 88, -1, -1))
    shape = g.add_node("ShapeOf", [x], outputs=[("i64", (4,))], version="opset3").output()
    channels = g.add_node("Gather", [shape, g.add_constant(np.int64(1)).output(), g.add_constant(np.int32(0)).output()],
                          outputs=[("i64", ())], version="opset8", attrs={"batch_dims": "0"}).output()
    chunk = g.add_node("Divide", [channels, g.add_constant(np.int64(3)).output()], outputs=[("i64", ())],
                       attrs={"auto_broadcast": "numpy", "m_pythondiv": "true"}).output()
    repeated = g.add_node("Broadcast", [chunk, g.add_constant(np.array([2], np.int64)).output()],
                          outputs=[("i64", (2,))], version="opset3", attrs={"mode": "numpy"}).output()
    lengths = g.add_node("Concat", [repeated, g.add_constant(np.array([-1], np.int64)).output()],
                         outputs=[("i64", (3,))], attrs={"axis": "0"}).output()
    split = g.add_node("VariadicSplit", [x, g.add_constant(np.int64(1)).output(), lengths],
                       outputs=[("f32", (-1, -1, -1, -1))] * 3, name="split")
    for out in split.outputs:
        g.add_node("Result", [out])
    fold_shape_subgraphs(g)
    lengths_node = g.find("split").input_node(2)
    assert lengths_node.type == "Constant" and lengths_node.value.tolist() == [29, 29, -1]


def test_dynamic_channels_stay_a_shape_subgraph() -> None:
    g, _ = channel_split((-1, -1, -1, -1))
    fold_shape_subgraphs(g)
    assert g.find("split").input_node(2).type == "Concat"


def _fake_quantize(g: Graph, x: Output, interval: Output) -> Output:
    return g.add_node("FakeQuantize", [x, interval, interval, interval, interval], outputs=[("f32", x.shape)],
                      attrs={"levels": "256", "auto_broadcast": "numpy"}, name="fq").output()


def test_f16_constants_fold_except_matmul_weights_and_low_precision_data() -> None:
    g = Graph()
    x = parameter(g, (1, 16))
    f16 = convert(g, g.add_constant(np.float16(0.5), "f16").output(), "f32")
    y = _fake_quantize(g, x, f16)
    matmul_weights = convert(g, g.add_constant(np.ones((16, 16), np.float16), "f16").output(), "f32")
    y = g.add_node("MatMul", [y, matmul_weights], outputs=[("f32", (1, 16))]).output()
    codes = convert(g, g.add_constant(np.ones((1, 16), np.uint8), "u8").output(), "f32")
    y = g.add_node("Add", [y, codes], outputs=[("f32", (1, 16))]).output()
    g.add_node("Result", [y])
    assert is_function_quantized(g)  # Convert(Constant) intervals count, as in the plugin
    assert fold_constants(g) == 1
    fq = g.find("fq")
    intervals = [fq.input_value(i) for i in range(1, 5)]
    assert all(v.node.type == "Constant" and v.element_type.name == "f32" for v in intervals)
    kept = [n for n in g if n.type == "Convert" and n.input_node(0).type == "Constant"]
    assert sorted(n.input_value(0).element_type.name for n in kept) == ["f16", "u8"]


def test_weights_decompression_is_marked_to_stay_compressed() -> None:
    g = Graph()
    x = parameter(g, (1, 16))
    w = convert(g, g.add_constant(np.ones((16, 16), np.int8), "i8").output(), "f32")
    zp = convert(g, g.add_constant(np.int8(1), "i8").output(), "f32")
    w = g.add_node("Subtract", [w, zp], outputs=[("f32", (16, 16))]).output()
    w = g.add_node("Multiply", [w, g.add_constant(np.float32(0.1)).output()], outputs=[("f32", (16, 16))]).output()
    g.add_node("Result", [g.add_node("MatMul", [x, w], outputs=[("f32", (1, 16))]).output()])
    assert not is_function_quantized(g)
    assert mark_dequantization(g) == 2
    assert all(n.annotations.get(DISABLE_CONSTANT_FOLDING) for n in g if n.type == "Convert")
    applied = run_common_optimizations(g)
    assert "ConstantFolding" not in applied  # nothing foldable: the decompression stays


def _mvn(g: Graph, shape: tuple[int, ...], axes: list[int]) -> None:
    x = parameter(g, shape, "u8")
    scaled = g.add_node("Multiply", [convert(g, x, "f32"), g.add_constant(np.float32(0.1)).output()],
                        outputs=[("f32", shape)]).output()
    mvn = g.add_node("MVN", [scaled, g.add_constant(np.array(axes, np.int64)).output()], outputs=[("f32", shape)],
                     version="opset6", name="mvn",
                     attrs={"eps": "1e-06", "normalize_variance": "true", "eps_mode": "inside_sqrt"})
    g.add_node("Result", [mvn.output()])


def test_mvn_the_cpu_kernel_cannot_run_is_left_to_the_plugin() -> None:
    """LayerNorm over the last axis of a 4-D tensor (ConvNeXt, Swin): the plugin decomposes it
    before LPT, so no dequantization moves through it; over the last axis of 3-D (BERT) it stays."""
    from lpt_cli.lpt.engine.config import config_from_dict
    from lpt_cli.lpt.engine.pipeline import run_pipeline
    from lpt_cli.lpt.common_optimizations.mvn import DECOMPOSED_BY_PLUGIN, cpu_runs_mvn, mark_mvn_decomposition

    for shape, axes, runs in (((1, 8, 8, 16), [-1], False), ((1, 8, 16), [-1], True), ((1, 16, 8, 8), [2, 3], True),
                              ((1, 16, 8, 8), [1, 2, 3], True), ((1, 16, 8, 8), [1], False)):
        g = Graph()
        _mvn(g, shape, axes)
        assert cpu_runs_mvn(g.find("mvn")) is runs, (shape, axes)
        mark_mvn_decomposition(g)
        run_pipeline(g, config_from_dict({"transformations": {"only": ["MVNTransformation"]}}))
        mvn = g.find("mvn")
        assert bool(mvn.annotations.get(DECOMPOSED_BY_PLUGIN)) is not runs
        assert (mvn.input_node(0).type == "Multiply") is not runs  # the dequantization moved only if kept


def _scores_times(const: np.ndarray) -> Graph:
    """Activations Q [?, 2, ?, 16] x K^T (K an activation too) -> Multiply(const) -> Result."""
    g = Graph()
    q = g.add_node("Parameter", outputs=[("f32", (-1, 2, -1, 16))], name="q",
                   attrs={"shape": "?,2,?,16", "element_type": "f32"}).output()
    k = g.add_node("Parameter", outputs=[("f32", (-1, 2, -1, 16))], name="k",
                   attrs={"shape": "?,2,?,16", "element_type": "f32"}).output()
    scores = g.add_node("MatMul", [q, k], outputs=[("f32", (-1, 2, -1, -1))], name="scores",
                        attrs={"transpose_a": "false", "transpose_b": "true"}).output()
    scaled = g.add_node("Multiply", [scores, g.add_constant(const).output()], outputs=[("f32", (-1, 2, -1, -1))],
                        attrs={"auto_broadcast": "numpy"}, name="scaled")
    g.add_node("Result", [scaled.output()])
    return g


def test_per_head_scale_after_scores_moves_onto_k() -> None:
    """MatMulMultiplyFusion: `MatMul(Q, K) * c` -> `MatMul(Q, K * c)`; the MatMul feeds the Result."""
    g = _scores_times(np.array([10.0, 7.5], np.float32).reshape(1, 2, 1, 1))
    assert fuse_matmul_multiply(g) == 1
    matmul = g.find("scores")
    assert matmul.input_node(1).type == "Multiply" and matmul.output().uses[0].node.type == "Result"
    k_scaled = matmul.input_node(1)
    assert k_scaled.input_node(0).name == "k" and k_scaled.output().shape == (-1, 2, -1, 16)
    assert k_scaled.input_node(1).value.ravel().tolist() == [10.0, 7.5]


def test_scale_varying_along_rows_stays_after_the_matmul() -> None:
    g = _scores_times(np.ones((1, 2, 3, 1), np.float32))  # (..., n, 1): not a column scale
    assert fuse_matmul_multiply(g) == 0
    assert g.find("scaled").type == "Multiply"


def test_a_shape_value_no_shape_input_reads_stays_computed() -> None:
    """OpenVINO folds the values whose bounds shape inference evaluated: `ShapeOf -> Gather ->
    Convert -> Power` feeding a Multiply stays (swin_t's attention scale), while the same Gather
    feeding a Reshape's target shape becomes a constant."""
    g = Graph()
    x = parameter(g, (-1, 49, 96))
    shape = g.add_node("ShapeOf", [x], outputs=[("i64", (3,))], version="opset3").output()
    dim = g.add_node("Gather", [shape, g.add_constant(np.int64(2)).output(), g.add_constant(np.int64(0)).output()],
                     outputs=[("i64", ())], version="opset8", attrs={"batch_dims": "0"}, name="dim").output()
    scale = g.add_node("Power", [convert(g, dim, "f32"), g.add_constant(np.float32(-0.5)).output()],
                       outputs=[("f32", ())], attrs={"auto_broadcast": "numpy"}).output()
    g.add_node("Result", [g.add_node("Multiply", [x, scale], outputs=[("f32", (-1, 49, 96))],
                                     attrs={"auto_broadcast": "numpy"}).output()])
    assert fold_shape_subgraphs(g) == 0 and g.find("dim").type == "Gather"
    target = g.add_node("Concat", [g.add_constant(np.array([-1, 49], np.int64)).output(),
                                   g.add_node("Unsqueeze", [dim, g.add_constant(np.int64(0)).output()],
                                              outputs=[("i64", (1,))]).output()],
                        outputs=[("i64", (3,))], attrs={"axis": "0"}).output()
    g.add_node("Result", [g.add_node("Reshape", [x, target], outputs=[("f32", (-1, 49, 96))],
                                     attrs={"special_zero": "false"}).output()])
    assert fold_shape_subgraphs(g) > 0
    assert g.find("dim").type == "Constant" and g.find("dim").value.tolist() == 96


def _binary(g: Graph, op: str, x: Output, constant: np.ndarray) -> Output:
    return g.add_node(op, [x, g.add_constant(constant).output()], outputs=[(x.element_type, x.shape)],
                      attrs={"auto_broadcast": "numpy"}).output()


def test_neutral_eltwise_ops_leave_but_not_a_dequantization_or_a_broadcast() -> None:
    g = Graph()
    x = parameter(g, (1, 8, 4, 4))
    kept_broadcast = _binary(g, "Multiply", g.add_node("Relu", [x], outputs=[("f32", (1, 8, 4, 4))]).output(),
                             np.ones((2, 8, 1, 1), np.float32))
    removed = _binary(g, "Add", _binary(g, "Multiply", x, np.ones((1, 8, 1, 1), np.float32)), np.float32(0))
    dequantized = _binary(g, "Multiply", convert(g, g.add_constant(np.ones((8,), np.uint8)).output(), "f32"),
                          np.float32(1.0))
    for value in (kept_broadcast, removed, dequantized):
        g.add_node("Result", [value])
    assert eliminate_eltwise(g) == 2
    assert [r.input_node(0).type for r in g.results] == ["Multiply", "Parameter", "Multiply"]


def test_batch_norm_becomes_the_plugin_s_three_eltwise_ops_with_its_constants() -> None:
    g = Graph()
    x = parameter(g, (1, 4, 2, 2))
    rng = np.random.default_rng(0)
    gamma, beta, mean, var = (rng.uniform(0.5, 1.5, 4).astype(np.float32) for _ in range(4))
    bn = g.add_node("BatchNormInference", [x, *(g.add_constant(v).output() for v in (gamma, beta, mean, var))],
                    outputs=[("f32", (1, 4, 2, 2))], version="opset5", attrs={"epsilon": "0.001"}, name="bn")
    g.add_node("Result", [bn.output()])
    assert decompose_batch_norm(g) == 1
    add = g.find("bn")
    multiply = add.input_node(0)
    shift = multiply.input_node(0)
    assert (add.type, multiply.type, shift.type, shift.input_node(0).type) == ("Add", "Multiply", "Add", "Parameter")
    f32 = np.float32
    assert np.array_equal(multiply.input_node(1).value.reshape(-1), gamma / np.sqrt(var + f32(0.001)))
    assert np.array_equal(shift.input_node(1).value.reshape(-1), -mean)
    assert np.array_equal(add.input_node(1).value.reshape(-1), beta)


def test_a_zero_point_reshaped_after_its_convert_is_reshaped_before_it() -> None:
    """ONNX's per-channel DequantizeLinear read without MOC: `W - Reshape(Convert(zp))`. Like the
    plugin's MarkDequantization, the Convert moves above the Reshape, which folds into the i8
    constant, so LPT finds its `Convert(Constant)` zero point (and keeps it compressed)."""
    g = Graph()
    weights = convert(g, g.add_constant(np.ones((4, 3, 1, 1), np.int8)).output(), "f32")
    zero_point = g.add_node("Reshape", [convert(g, g.add_constant(np.arange(4, dtype=np.int8)).output(), "f32"),
                                        g.add_constant(np.array([4, 1, 1, 1], np.int64)).output()],
                            outputs=[("f32", (4, 1, 1, 1))], attrs={"special_zero": "false"}).output()
    shifted = g.add_node("Subtract", [weights, zero_point], outputs=[("f32", (4, 3, 1, 1))]).output()
    scaled = g.add_node("Multiply", [shifted, g.add_constant(np.full((4, 1, 1, 1), 0.5, np.float32)).output()],
                        outputs=[("f32", (4, 3, 1, 1))]).output()
    g.add_node("Result", [scaled])
    mark_dequantization(g)
    zp = g.results[0].input_node(0).input_node(0).input_node(1)
    assert zp.type == "Convert" and zp.annotations.get(DISABLE_CONSTANT_FOLDING)
    assert zp.input_node(0).type == "Constant" and zp.input_node(0).value.shape == (4, 1, 1, 1)
    assert zp.input_node(0).value.dtype == np.int8


def _scaled_fake_quantize(shape: tuple[int, ...]) -> Graph:
    """x * per-channel scale -> FakeQuantize -> Result."""
    from lpt_cli.ir.eltypes import f32

    g = Graph()
    x = parameter(g, shape)
    scale = np.linspace(0.9, 1.3, shape[1], dtype=np.float32).reshape((1, shape[1]) + (1,) * (len(shape) - 2))
    scaled = _binary(g, "Multiply", x, scale)
    limits = [g.add_constant(np.float32(v), f32).output() for v in (0.0, 2.55, 0.0, 2.55)]
    fq = g.add_node("FakeQuantize", [scaled, *limits], outputs=[("f32", shape)], attrs={"levels": "256"}, name="fq")
    g.add_node("Result", [fq.output()])
    return g


def test_a_scale_goes_into_the_interval_only_on_static_dimensions() -> None:
    # openvino 2026's check_for_broadcast: a [1, C] scale on [?, C] may broadcast the dynamic
    # batch, so MulFakeQuantizeFusion leaves it (the plugin then runs one FakeQuantize after an
    # f32 Concat where lpt, fusing, let MoveFakeQuantize make one per Concat input).
    from lpt_cli.lpt.common_optimizations.fq_fusions import fuse_fake_quantizes

    static, dynamic = _scaled_fake_quantize((1, 32)), _scaled_fake_quantize((-1, 32))
    assert fuse_fake_quantizes(static) == 1 and static.find("fq").input_node(0).type == "Parameter"
    assert fuse_fake_quantizes(dynamic) == 0 and dynamic.find("fq").input_node(0).type == "Multiply"


def _fq(g: Graph, x: Output, high: float, name: str) -> Output:
    """A FakeQuantize with its own four Constants (equal bytes across calls with the same `high`)."""
    bounds = [g.add_constant(np.float32(v)).output() for v in (-high, high, -high, high)]
    return g.add_node("FakeQuantize", [x, *bounds], outputs=[("f32", x.shape)], name=name,
                      attrs={"levels": "256", "auto_broadcast": "numpy"}).output()


def test_twin_fake_quantizes_of_one_tensor_become_one_the_earliest() -> None:
    """NNCF's ignored scope can leave two equal FakeQuantizes on one tensor (one per consumer);
    MOC's SharedOpOptimization keeps the first and moves the other's consumers to it."""
    g = Graph()
    x = parameter(g, (1, 8, 4, 4))
    first, twin, other = _fq(g, x, 2.0, "first"), _fq(g, x, 2.0, "twin"), _fq(g, x, 3.0, "other")
    relus = [g.add_node("Relu", [value], outputs=[("f32", x.shape)]).output() for value in (first, twin, other)]
    for value in relus:
        g.add_node("Result", [value])
    assert share_equal_ops(g) == 2  # the twin FakeQuantize, then the two Relus it left equal
    assert [r.input_node(0).input_node(0).name for r in g.results] == ["first", "first", "other"]
    assert sum(n.type == "FakeQuantize" for n in g if n.alive) == 2


def test_a_merged_op_feeding_a_result_gives_the_survivor_its_name() -> None:
    """replace_output_update_name: a Result keeps the name of the op that fed it. The survivor is
    the earlier in OpenVINO's order, which visits the last Result's inputs first."""
    g = Graph()
    x = parameter(g, (1, 8))
    g.add_node("Result", [g.add_node("Relu", [x], outputs=[("f32", (1, 8))], name="output_relu").output()])
    kept = g.add_node("Relu", [x], outputs=[("f32", (1, 8))], name="kept")
    g.add_node("Result", [g.add_node("Sigmoid", [kept.output()], outputs=[("f32", (1, 8))]).output()])
    assert share_equal_ops(g) == 1
    assert g.results[0].input_node(0) is kept and kept.name == "output_relu"


def test_ops_differing_in_an_attribute_or_a_constant_byte_stay_apart() -> None:
    g = Graph()
    x = parameter(g, (1, 8))
    for axis, scale in ((1, 0.0), (0, 0.0), (1, -0.0)):  # -0.0 differs from 0.0 byte-wise, as memcmp
        softmax = g.add_node("SoftMax", [x], outputs=[("f32", (1, 8))], attrs={"axis": str(axis)}).output()
        g.add_node("Result", [_binary(g, "Add", softmax, np.float32(scale))])
    assert share_equal_ops(g) == 1  # the two axis-1 SoftMaxes; their Adds differ in a constant byte
    assert sum(n.type == "SoftMax" for n in g if n.alive) == 2
    assert sum(n.type == "Add" for n in g if n.alive) == 3


def _interpolate_11(g: Graph, x: Output, mode: str, by_scales: bool, axes: bool) -> Output:
    size = g.add_constant(np.array([2.0, 2.0], np.float32) if by_scales else np.array([8, 8], np.int32)).output()
    inputs = [x, size, *([g.add_constant(np.array([2, 3], np.int64)).output()] if axes else [])]
    attrs = {"mode": mode, "shape_calculation_mode": "scales" if by_scales else "sizes", "antialias": "false",
             "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "pads_begin": "0,0,0,0",
             "pads_end": "0,0,0,0", "cube_coeff": "-0.75"}
    out = g.add_node("Interpolate", inputs, outputs=[("f32", (1, 3, 8, 8))], version="opset11", name="up",
                     attrs=attrs).output()
    g.add_node("Result", [out])
    return out


@pytest.mark.parametrize("by_scales", [True, False])
@pytest.mark.parametrize("axes", [True, False])
def test_interpolate_11_becomes_interpolate_4_with_ones_for_what_it_lacks(by_scales: bool, axes: bool) -> None:
    """ConvertInterpolate11ToInterpolate4: v4 reads sizes and scales; the one v11 lacks is ones,
    one per resized axis (the axes input's length, else the rank); name and attributes stay."""
    g = Graph()
    given = _interpolate_11(g, parameter(g, (1, 3, 4, 4)), "nearest", by_scales, axes).node.input_value(1)
    assert convert_interpolate_11(g) == 1
    (node,) = [n for n in g if n.type == "Interpolate"]
    assert (node.version, node.name, len(node.inputs)) == ("opset4", "up", 4 if axes else 3)
    sizes, scales = node.input_value(1), node.input_value(2)
    assert (scales if by_scales else sizes) is given
    ones = (sizes if by_scales else scales).node.value
    assert ones.dtype == (np.int32 if by_scales else np.float32) and ones.tolist() == [1] * (2 if axes else 4)
    assert node.attr("nearest_mode") == "floor" and node.attr("shape_calculation_mode") == ("scales" if by_scales
                                                                                             else "sizes")


def test_interpolate_11_in_a_pillow_mode_stays() -> None:
    g = Graph()
    _interpolate_11(g, parameter(g, (1, 3, 4, 4)), "bilinear_pillow", True, True)
    assert convert_interpolate_11(g) == 0
    assert [n.version for n in g if n.type == "Interpolate"] == ["opset11"]


def _named_eltwise(g: Graph, op: str, a: Output, b: Output, name: str) -> Output:
    return g.add_node(op, [a, b], outputs=[(a.element_type, a.shape)], attrs={"auto_broadcast": "numpy"},
                      name=name).output()


def test_divides_become_multiplies_by_a_power_of_minus_one() -> None:
    """convert_divide.cpp: `a / b` -> `a * Power(b, -1)`, a constant b folded to its reciprocal in
    its type, `1 / b` -> `Power(b, -1)` alone; each takes the Divide's name."""
    g = Graph()
    x, y = parameter(g, (1, 4)), parameter(g, (1, 4))
    for name, a, b in (("by_var", x, y), ("by_const", x, g.add_constant(np.float32(3)).output()),
                       ("inverse", g.add_constant(np.float32(1)).output(), y)):
        g.add_node("Result", [_named_eltwise(g, "Divide", a, b, name)])
    assert convert_divide(g) == 3
    by_var, by_const, inverse = (g.find(n) for n in ("by_var", "by_const", "inverse"))
    assert by_var.type == "Multiply" and by_var.input_node(1).type == "Power"
    assert by_var.input_node(1).input_node(1).value == np.float32(-1)
    assert by_const.type == "Multiply" and by_const.input_node(1).value == np.float32(1) / np.float32(3)
    assert inverse.type == "Power" and inverse.input_value(0) is y
    assert not any(n.type == "Divide" for n in g)


def test_integer_divides_and_divides_that_compute_a_shape_stay() -> None:
    """ConvertDivide skips integers; MarkDividesInShapeSubgraphs keeps a real Divide upstream of an
    input shape inference reads (a Reshape's target shape), up to the ShapeOf."""
    g = Graph()
    x = parameter(g, (2, 8))
    dims = convert(g, g.add_node("ShapeOf", [x], outputs=[("i64", (2,))], version="opset3").output(), "f32")
    half = _named_eltwise(g, "Divide", dims, g.add_constant(np.float32(2)).output(), "half")
    target = convert(g, half, "i64")
    reshaped = g.add_node("Reshape", [x, target], outputs=[("f32", None)], attrs={"special_zero": "false"})
    count = _named_eltwise(g, "Divide", g.add_constant(np.int32(6)).output(), g.add_constant(np.int32(4)).output(), "ints")
    g.add_node("Result", [reshaped.output()])
    g.add_node("Result", [count])
    assert convert_divide(g) == 0
    assert g.find("half").type == "Divide" and g.find("ints").type == "Divide"


def test_subtracts_become_adds_but_a_dequantization_s_stays() -> None:
    """convert_subtract.cpp: `a - b` -> `a + b * -1` (a constant b negated in place), named after
    the Subtract; not the Subtract of `Convert(u8) -> Subtract -> Multiply`, which MarkDequantization
    marks, nor one whose second input is unsigned."""
    g = Graph()
    x, y = parameter(g, (1, 4)), parameter(g, (1, 4))
    g.add_node("Result", [_named_eltwise(g, "Subtract", x, y, "by_var")])
    g.add_node("Result", [_named_eltwise(g, "Subtract", x, g.add_constant(np.float32(3)).output(), "by_const")])
    data = convert(g, parameter(g, (1, 4), "u8"), "f32")
    shifted = _named_eltwise(g, "Subtract", data, g.add_constant(np.float32(128)).output(), "zero_point")
    g.add_node("Result", [_named_eltwise(g, "Multiply", shifted, g.add_constant(np.float32(0.1)).output(), "scale")])
    counts = parameter(g, (1, 4), "u8")
    g.add_node("Result", [_named_eltwise(g, "Subtract", counts, g.add_constant(np.uint8(1)).output(), "unsigned")])
    assert convert_subtract(g) == 2
    by_var, by_const = g.find("by_var"), g.find("by_const")
    assert by_var.type == "Add" and by_var.input_node(1).type == "Multiply"
    assert by_var.input_node(1).input_value(0) is y and by_var.input_node(1).input_node(1).value == np.float32(-1)
    assert by_const.type == "Add" and by_const.input_node(1).value == np.float32(-3)
    assert g.find("zero_point").type == "Subtract" and g.find("unsigned").type == "Subtract"


def _reshaping(g: Graph, op: str, x: Output, axes: list[int], shape: tuple[int, ...], name: str) -> Output:
    return g.add_node(op, [x, g.add_constant(np.array(axes, np.int64)).output()], outputs=[(x.element_type, shape)],
                      name=name).output()


def test_squeezes_and_unsqueezes_of_a_known_shape_become_reshapes() -> None:
    """nop_elimination.cpp, EliminateUnsqueeze/EliminateSqueeze: an output rank known and not 0 with
    at most one dynamic dimension gives a Reshape to that shape (-1 for the dynamic one) that takes
    the op's name, a Squeeze/Unsqueeze/Reshape before it taken in, and no op at all when the shape
    does not change; two dynamic dimensions keep the op."""
    g = Graph()
    x = parameter(g, (-1, 4, 8))
    unsqueezed = _reshaping(g, "Unsqueeze", x, [1], (-1, 1, 4, 8), "unsqueeze")
    g.add_node("Result", [_reshaping(g, "Squeeze", unsqueezed, [1], (-1, 4, 8), "round_trip")])
    g.add_node("Result", [_reshaping(g, "Unsqueeze", unsqueezed, [0], (1, -1, 1, 4, 8), "twice")])
    y = g.add_node("Parameter", outputs=[("f32", (-1, -1, 1))], name="y").output()
    g.add_node("Result", [_reshaping(g, "Squeeze", y, [2], (-1, -1), "two_dynamic")])
    assert squeezes_to_reshapes(g) == 3
    twice = g.find("twice")
    assert twice.type == "Reshape" and twice.input_value(0) is x
    assert list(twice.input_node(1).value) == [1, -1, 1, 4, 8] and twice.attrs["special_zero"] == "false"
    assert not any(n.name == "round_trip" and n.type == "Squeeze" for n in g)  # the Unsqueeze's input again
    assert g.results[0].input_value(0) is x
    assert g.find("two_dynamic").type == "Squeeze"


@pytest.mark.parametrize("eps_mode", ["inside_sqrt", "outside_sqrt"])
def test_an_mvn_the_cpu_kernel_cannot_run_becomes_the_plugin_s_decomposition(eps_mode: str) -> None:
    """mvn6_decomposition.cpp: `d = x - ReduceMean(x)`, `d / Sqrt(ReduceMean(d ^ 2) + eps)` (outside:
    `d / (Sqrt(ReduceMean(d ^ 2)) + eps)`), the Divide named after the MVN; an MVN the kernel runs
    stays whole."""
    from lpt_cli.lpt.common_optimizations.mvn import decompose_marked_mvns, mark_mvn_decomposition

    g, kept = Graph(), Graph()
    _mvn(g, (1, 4, 4, 8), [-1])
    _mvn(kept, (1, 8, 4), [-1])
    g.find("mvn").attrs["eps_mode"] = eps_mode
    for graph in (g, kept):
        mark_mvn_decomposition(graph)
        decompose_marked_mvns(graph)
    assert kept.find("mvn").type == "MVN"
    divide = g.find("mvn")
    assert divide.type == "Divide" and not any(n.type == "MVN" for n in g)
    centred, root = divide.input_node(0), divide.input_node(1)
    assert centred.type == "Subtract" and centred.input_node(1).type == "ReduceMean"
    assert root.type == ("Sqrt" if eps_mode == "inside_sqrt" else "Add")
    power = next(n for n in g if n.type == "Power")
    eps_add = root.input_node(0) if eps_mode == "inside_sqrt" else root
    assert power.input_node(1).value.tolist() == [2.0] and power.input_node(0) is centred
    assert eps_add.type == "Add" and eps_add.input_node(1).value.tolist() == [np.float32(1e-6)]
    assert centred.input_node(1).output().shape == (1, 4, 4, 1)


def test_a_range_of_constants_folds_into_the_axes_it_computes() -> None:
    """ONNX's GlobalAveragePool read by OpenVINO reduces over `Range(2, rank, 1)`: once the rank is
    a constant, ConstantFolding folds the Range, so LPT's ReduceMean sees constant axes (a QDQ
    mobilenet_v2's pooled features ran on u8 in the plugin, stayed f32 in lpt)."""
    g = Graph()
    x = parameter(g, (1, 8, 4, 4))
    ends = [g.add_constant(np.int64(v)).output() for v in (2, 4, 1)]
    axes = g.add_node("Range", ends, outputs=[("i64", (2,))], version="opset4", attrs={"output_type": "i64"},
                      name="axes").output()
    pooled = g.add_node("ReduceMean", [x, axes], outputs=[("f32", (1, 8, 1, 1))], attrs={"keep_dims": "true"})
    g.add_node("Result", [pooled.output()])
    fold_constants(g)
    folded = pooled.input_node(1)
    assert folded.type == "Constant" and folded.value.tolist() == [2, 3] and folded.name == "axes"
