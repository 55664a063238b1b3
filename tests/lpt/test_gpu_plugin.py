"""The GPU plugin's rules (profiles `gpu`, `gpu-xmx`): one test per rule, each naming the source it
follows. No Intel GPU is reachable here: these pin lpt to its reading of
src/plugins/intel_gpu/src/plugin/transformations_pipeline.cpp (TransformationsPipeline::apply,
OpenVINO 2025.x as read) and the common transformations it runs, not to a device."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lpt_cli.ir import Graph, Node, Output
from lpt_cli.lpt.common_optimizations import run_common_optimizations
from lpt_cli.lpt.common_optimizations.convert_precision import convert_precision
from lpt_cli.lpt.common_optimizations.gpu import is_decompression_multiply
from lpt_cli.lpt.common_optimizations.mvn import DECOMPOSED_BY_PLUGIN, gpu_runs_mvn
from lpt_cli.lpt.common_optimizations.sdpa import gpu_keeps_sdpa
from lpt_cli.lpt.dequantization.attributes import PRECISIONS
from lpt_cli.lpt.engine.config import ConfigError, config_from_dict, load_config, profile_text
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.lpt.engine.profile_yaml import read_profile
from lpt_cli.lpt.surgery.constants import DISABLE_CONSTANT_FOLDING


def param(g: Graph, shape: tuple[int, ...], name: str = "x", etype: str = "f32") -> Output:
    return g.add_node("Parameter", outputs=[(etype, shape)], name=name,
                      attrs={"shape": ",".join(map(str, shape)), "element_type": etype}).output()


def const(g: Graph, value: Any, etype: str = "f32") -> Output:
    return g.add_constant(np.asarray(value), etype).output()


def node(g: Graph, op: str, inputs: list[Output], shape: tuple[int, ...] | None, etype: str = "f32",
         name: str | None = None, version: str = "opset1", **attrs: str) -> Node:
    return g.add_node(op, inputs, outputs=[(etype, shape)], attrs=attrs, name=name, version=version)


def fake_quantize(g: Graph, x: Output, low: Any, high: Any, levels: int = 256, name: str = "fq") -> Node:
    bounds = [const(g, low), const(g, high), const(g, low), const(g, high)]
    return node(g, "FakeQuantize", [x, *bounds], x.shape, name=name, levels=str(levels), auto_broadcast="numpy")


def result(g: Graph, value: Output) -> None:
    g.add_node("Result", [value])


def named(g: Graph, name: str) -> Node:
    """The layer the model called `name`: on GPU a Result reads its producer through a Convert
    (ConvertPrecision) that took the producer's name."""
    found = g.find(name)
    if found.type == "Convert" and any(use.node.type == "Result" for use in found.output().uses):
        return found.input_node(0)
    return found


def without_callbacks(profile: str) -> Any:
    """The profile as written, without `callbacks`: what the GPU plugin's callbacks change shows."""
    doc = read_profile(profile_text(profile))
    del doc["callbacks"]
    return config_from_dict(doc, name=f"{profile} without callbacks")


def decisions(result_: Any, n: Node) -> list[str]:
    return [d.code for d in result_.decisions.get(n.id, [])]


# --- profiles and config -------------------------------------------------------------------

def test_gpu_profiles_name_the_plugin_list_precision_and_callbacks():
    """transformations_pipeline.cpp: the GPU's pre-LPT list, f16 inference precision, its callbacks;
    `reshapeIgnorePerTensorQuantizationCheck` only when `device_info.supports_immad` (XMX)."""
    gpu, xmx = load_config("gpu"), load_config("gpu-xmx")
    assert (gpu.common_optimizations, xmx.common_optimizations) == ("gpu", "gpu-xmx")
    assert gpu.inference_precision.name == xmx.inference_precision.name == "f16"
    assert gpu.callbacks == xmx.callbacks == "gpu"
    assert gpu.param("reshape_ignore_per_tensor_quantization_check") is False
    assert xmx.param("reshape_ignore_per_tensor_quantization_check") is True
    assert gpu.precision_restrictions == xmx.precision_restrictions
    assert load_config("cpu-avx2").common_optimizations == "cpu" and load_config("cpu-avx2").callbacks is None


@pytest.mark.parametrize("doc, message", [
    ({"common_optimizations": "npu"}, "common_optimizations: 'npu' is not known"),
    ({"callbacks": "cpu"}, "callbacks: 'cpu' is not known"),
    ({"inference_precision": "bf16", "common_optimizations": "gpu"}, "inference_precision"),
    ({"inference_precision": "f16"}, "needs common_optimizations"),
])
def test_plugin_keys_are_validated(doc, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(doc)


def test_common_optimizations_true_is_the_cpu_plugins_list():
    assert config_from_dict({"common_optimizations": True}).common_optimizations == "cpu"
    assert config_from_dict({"common_optimizations": False}).common_optimizations is None


def test_config_list_says_which_gpu_profile_is_which():
    from click.testing import CliRunner

    from lpt_cli.cli.config_cmd import config_group

    lines = {line.split()[0]: line for line in CliRunner().invoke(config_group, ["list"]).output.splitlines()}
    assert "without XMX" in lines["gpu"] and "with XMX" in lines["gpu-xmx"]
    assert all("untested on hardware" in lines[name] for name in ("gpu", "gpu-xmx"))


# --- the LPT gate ---------------------------------------------------------------------------

@pytest.mark.parametrize("profile, runs", [("gpu", True), ("gpu-xmx", True), ("cpu-avx2", False)])
def test_gpu_runs_lpt_for_any_of_lpts_levels(profile, runs):
    """transformations_pipeline.cpp calls LowPrecision::isFunctionQuantized(func) without levels:
    its default, all_levels (low_precision.hpp, layer_transformation.hpp: 15/16/255/256/65535/
    65536/2^32-1/2^32); the CPU plugin's UpToLpt passes int4/int8 only."""
    g = Graph()
    result(g, fake_quantize(g, param(g, (1, 3, 4, 4)), 0.0, 6.5535, levels=65536).output())
    assert run_pipeline(g, load_config(profile)).not_quantized is not runs


# --- ConvertPrecision f32 -> f16 ------------------------------------------------------------

def test_gpu_lpt_sees_f16_intervals_constants_and_the_plugins_names():
    """TransformationsPipeline::apply: ConvertPrecision(f32 -> f16, keep_precision_sensitive_in_fp32,
    convert_input_output_precision = false) before LPT; convert_precision.cpp: constants clamped
    (convert_from_f32_to_f16_with_clamp), a Convert after each Parameter, a Convert before each
    Result that takes the producer's name."""
    g = Graph()
    x = param(g, (1, 3, 4, 4))
    fq = fake_quantize(g, x, 0.0, 0.1)
    big = node(g, "Multiply", [fq.output(), const(g, 1e6)], (1, 3, 4, 4), name="scaled")
    result(g, big.output())
    convert_precision(g)
    assert fq.input_node(0).type == "Convert" and fq.input_value(0).element_type.name == "f16"
    high = fq.input_node(2)
    assert high.output().element_type.name == "f16" and high.value == np.float16(0.1)
    assert big.input_node(1).value == np.float16(65504.0)  # clamped, not inf
    last = g.results[0].input_node(0)
    assert last.type == "Convert" and last.name == "scaled" and last.output().element_type.name == "f32"
    assert big.name != "scaled" and big.output().element_type.name == "f16"


def test_precision_sensitive_division_stays_f32_with_converts_around_it():
    """mark_subgraphs_to_keep_in_mixed_precision.cpp, MarkDivWithEps (x / Add(y, eps <= f16 min
    normal)) and align_mixed_fp32_fp16_types.cpp (`_decompressed_to_f32`, `_compressed_to_f16`)."""
    g = Graph()
    x = param(g, (1, 8))
    head = node(g, "MatMul", [x, const(g, np.ones((8, 8), np.float32))], (1, 8), name="head")
    square = node(g, "Multiply", [head.output(), head.output()], (1, 8), name="square")
    guarded = node(g, "Add", [square.output(), const(g, 1e-12)], (1, 8), name="guarded")
    div = node(g, "Divide", [head.output(), guarded.output()], (1, 8), name="div")
    tail = node(g, "MatMul", [div.output(), const(g, np.ones((8, 8), np.float32))], (1, 8), name="mm")
    result(g, tail.output())
    convert_precision(g)
    # the root, and what the marks reach up (the Add, the Multiply) and down; not the MatMuls
    assert {div.output().element_type.name, guarded.output().element_type.name, square.output().element_type.name} == {"f32"}
    assert head.output().element_type.name == "f16" and tail.output().element_type.name == "f16"
    assert div.input_node(0).name.startswith("head_decompressed_to_f32")
    assert tail.input_node(0).name == "div_compressed_to_f16"


def test_exp_into_reduce_sum_stays_f32_but_not_below_a_fake_quantize():
    """MarkExpInReduceOpPath and PropagateDownDisableSensitivityForQuantized
    (mark_subgraphs_to_keep_in_mixed_precision.cpp)."""
    g = Graph()
    x = param(g, (1, 8))
    exp = node(g, "Exp", [x], (1, 8), name="exp")
    total = node(g, "ReduceSum", [exp.output(), const(g, [1], "i64")], (1, 1), name="sum", keep_dims="true")
    result(g, total.output())
    fq = fake_quantize(g, exp.output(), 0.0, 10.0)
    after = node(g, "Relu", [fq.output()], (1, 8), name="after")
    result(g, after.output())
    convert_precision(g)
    assert exp.output().element_type.name == "f32" and total.output().element_type.name == "f32"
    assert fq.output().element_type.name == "f16" and after.output().element_type.name == "f16"


def test_cpu_with_an_f16_hint_converts_before_lpt_too():
    """transformation_pipeline.cpp, Transformations::PreLpt: ConvertPrecision(f32 -> f16) when
    config.inferencePrecision is f16; without the hint the CPU list is unchanged."""
    for precision, applied in (("f16", True), ("f32", False)):
        g = Graph()
        result(g, fake_quantize(g, param(g, (1, 3, 4, 4)), 0.0, 0.1).output())
        config = config_from_dict({"common_optimizations": "cpu", "inference_precision": precision})
        assert ("ConvertPrecision" in run_common_optimizations(g, config)) is applied
        assert (named(g, "fq").output().element_type.name == "f16") is applied


# --- MVN ------------------------------------------------------------------------------------

def _mvn(axes: list[int], shape: tuple[int, ...] = (1, 4, 4, 8)) -> tuple[Graph, Node]:
    g = Graph()
    mvn = node(g, "MVN", [param(g, shape), const(g, axes, "i64")], shape, name="mvn", version="opset6",
               eps="1e-05", eps_mode="inside_sqrt", normalize_variance="true")
    result(g, mvn.output())
    return g, mvn


@pytest.mark.parametrize("axes, gpu_keeps, cpu_keeps", [
    ([3], True, False),          # NHWC LayerNorm: the CPU decomposes it, the GPU runs it
    ([2, 3], True, True), ([1, 2, 3], True, True),
    ([0, 1, 2, 3], False, False),  # axis 0: decomposed on GPU
    ([1, 3], False, False),      # not trailing-contiguous
])
def test_gpu_mvn_rule_is_its_own(axes, gpu_keeps, cpu_keeps):
    """transformations_pipeline.cpp, the MVN6Decomposition callback: ranks 2-5, sorted axes trailing
    and contiguous, axis 0 excluded."""
    _, mvn = _mvn(axes)
    assert gpu_runs_mvn(mvn) is gpu_keeps
    for profile, keeps in (("gpu", gpu_keeps), ("cpu-avx2", cpu_keeps)):
        g, mvn = _mvn(axes)
        run_common_optimizations(g, load_config(profile))
        assert (not mvn.annotations.get(DECOMPOSED_BY_PLUGIN)) is keeps


# --- MaxPool-14 / AvgPool-14 ceil_torch -----------------------------------------------------

def _pool(op: str, size: int, pads: int, **attrs: str) -> Graph:
    g = Graph()
    x = param(g, (1, 3, size, size))
    fq = fake_quantize(g, x, 0.0, 2.55)
    out = (size + 2 * pads - 2 + 1) // 2 + 1
    outputs = [("f32", (1, 3, out, out))] + ([("i64", (1, 3, out, out))] if op == "MaxPool" else [])
    pool = g.add_node(op, [fq.output()], outputs=outputs, name="pool", version="opset14", attrs={
        "strides": "2, 2", "pads_begin": f"{pads}, {pads}", "pads_end": f"{pads}, {pads}", "kernel": "2, 2",
        "rounding_type": "ceil_torch", "auto_pad": "explicit", "dilations": "1, 1", **attrs})
    result(g, pool.output())
    return g


@pytest.mark.parametrize("size, pads, kept_end", [(7, 1, 0), (8, 1, 1), (7, 0, 0)])
def test_gpu_downgrades_a_ceil_torch_max_pool_to_pad_and_max_pool(size, pads, kept_end):
    """No callback on ConvertMaxPool14ToMaxPool8 in transformations_pipeline.cpp (the CPU plugin
    keeps `ceil_torch`): convert_maxpool_downgrade.cpp pads with -inf, [0, 0, pads_begin] at the
    start and the end pad where the last ceil window starts inside the input, then MaxPool CEIL."""
    g = _pool("MaxPool", size, pads, index_element_type="i64", axis="0")
    run_common_optimizations(g, load_config("gpu"))
    pool = named(g, "pool")
    assert pool.version == "opset1" and pool.attr("rounding_type") == "ceil" and pool.attr_ints("pads_end") == [0, 0]
    pad = pool.input_node(0)
    assert pad.type == "Pad" and pad.output().element_type.name == "f16"
    assert np.isneginf(pad.input_node(3).value.astype(np.float32)).all()
    assert pad.input_node(1).value.tolist() == [0, 0, pads, pads]
    assert pad.input_node(2).value.tolist() == [0, 0, kept_end, kept_end]


def test_gpu_lpt_reaches_the_pad_of_a_ceil_torch_max_pool():
    """What LPT then sees: on the CPU MaxPool-14 (not an op LPT knows: the FakeQuantize in front of it
    is refused for its consumer), on the GPU Pad -> MaxPool-1, where PadTransformation declines the
    -inf padding on two axes (a per-tensor scale would change the padded value)."""
    codes = {}
    for profile in ("gpu", "cpu-avx2"):
        g = _pool("MaxPool", 8, 1, index_element_type="i64", axis="0")
        out = run_pipeline(g, load_config(profile))
        codes[profile] = {d.code for found in out.decisions.values() for d in found}
    assert "padded_scale" in codes["gpu"] and "padded_scale" not in codes["cpu-avx2"]


def test_gpu_downgrades_a_ceil_torch_avg_pool_padding_with_zeros():
    """convert_avgpool_downgrade.cpp (no GPU callback): `ceil_torch` with exclude-pad false becomes
    Pad(0, pads_begin at both ends) + AvgPool-1 CEIL without pads."""
    g = _pool("AvgPool", 7, 1, **{"exclude-pad": "false"})
    run_common_optimizations(g, load_config("gpu"))
    pool = named(g, "pool")
    pad = pool.input_node(0)
    assert pool.version == "opset1" and pool.attr("rounding_type") == "ceil" and pad.type == "Pad"
    assert pad.input_node(1).value.tolist() == pad.input_node(2).value.tolist() == [0, 0, 1, 1]
    assert float(pad.input_node(3).value) == 0.0


# --- LPT callbacks --------------------------------------------------------------------------

def _per_channel_max_pool(consumers: int = 1) -> Graph:
    g = Graph()
    x = param(g, (1, 3, 4, 4))
    low = const(g, np.zeros((1, 3, 1, 1), np.float32))
    high = const(g, np.array([1.0, 2.0, 4.0], np.float32).reshape(1, 3, 1, 1))
    fq = node(g, "FakeQuantize", [x, low, high, low, high], (1, 3, 4, 4), name="fq", levels="256",
              auto_broadcast="numpy")
    attrs = {"strides": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0", "kernel": "1, 1",
             "rounding_type": "floor", "auto_pad": "explicit"}
    for i in range(consumers):
        pool = g.add_node("MaxPool", [fq.output()], outputs=[("f32", (1, 3, 4, 4))], name=f"pool{i}", attrs=attrs)
        result(g, pool.output())
    return g


def test_gpu_multiply_to_group_convolution_callback_skips_a_single_consumer_chain():
    """transformations_pipeline.cpp, the MultiplyToGroupConvolutionTransformation callback: skipped
    when the dequantization's data has one consumer, or the Multiply's constant is a scalar or
    dynamic (MultiplyToGroupConvolutionTransformation::isDynamicOrScalar)."""
    def group_convolutions(g: Graph) -> int:
        return sum(1 for n in g if n.type == "GroupConvolution")

    g = _per_channel_max_pool()
    assert group_convolutions(g) == 0
    run_pipeline(g, load_config("gpu"))
    assert group_convolutions(g) == 0
    plain = _per_channel_max_pool()
    run_pipeline(plain, without_callbacks("gpu"))
    assert group_convolutions(plain) == 1  # what the CPU-shaped profile made before


def _deconvolution(channels_in: int, channels_out: int, zero_point: bool = False) -> Graph:
    g = Graph()
    x = param(g, (1, channels_in, 4, 4))
    fq = fake_quantize(g, x, -1.0 if zero_point else 0.0, 2.55)
    weights = const(g, np.full((channels_in, channels_out, 2, 2), 0.5, np.float32))
    wq = node(g, "FakeQuantize", [weights, const(g, -1.28), const(g, 1.27), const(g, -1.28), const(g, 1.27)],
              (channels_in, channels_out, 2, 2), name="wq", levels="256", auto_broadcast="numpy")
    deconv = node(g, "ConvolutionBackpropData", [fq.output(), wq.output()], (1, channels_out, 8, 8), name="deconv",
                  strides="2, 2", pads_begin="0, 0", pads_end="0, 0", dilations="1, 1", auto_pad="explicit")
    result(g, deconv.output())
    return g


@pytest.mark.parametrize("channels_in, channels_out, zero_point, transformed", [
    (4, 16, False, True), (3, 16, False, False), (4, 8, False, False), (4, 16, True, False)])
def test_gpu_convolution_backprop_data_callback(channels_in, channels_out, zero_point, transformed):
    """transformations_pipeline.cpp, the ConvolutionBackpropDataTransformation callback: static
    channels, IC % 4 == 0, OC % 16 == 0, symmetric activations and weights."""
    g = _deconvolution(channels_in, channels_out, zero_point)
    out = run_pipeline(g, load_config("gpu"))
    deconv = next(n for n in g if n.type == "ConvolutionBackpropData")
    assert ("ConvolutionBackpropDataTransformation" in out.applied) is transformed
    assert ("plugin_callback" in decisions(out, deconv)) is not transformed


def _attention(head: int, *, through_transpose: bool = False, dtype: str = "f32") -> Graph:
    g = Graph()
    shape = (1, 2, 4, head)
    inputs = []
    for name in ("q", "k", "v"):
        value = fake_quantize(g, param(g, shape, name), 0.0, 2.55, name=f"fq_{name}").output()
        if through_transpose and name == "q":
            value = node(g, "Transpose", [value, const(g, [0, 2, 1, 3], "i64")], (1, 4, 2, head), name="tq").output()
            value = node(g, "Transpose", [value, const(g, [0, 2, 1, 3], "i64")], shape, name="transpose").output()
        inputs.append(value)
    sdpa = node(g, "ScaledDotProductAttention", inputs, shape, etype=dtype, name="attention", version="opset13",
                causal="false")
    result(g, sdpa.output())
    return g


def test_gpu_leaves_a_transpose_feeding_sdpa_alone():
    """transformations_pipeline.cpp, the TransposeTransformation callback: a Transpose that feeds a
    ScaledDotProductAttention is not transformed (the SDPA, head 64, is kept)."""
    g = _attention(64, through_transpose=True)
    out = run_pipeline(g, load_config("gpu"))
    assert named(g, "attention").type == "ScaledDotProductAttention"
    assert "plugin_callback" in decisions(out, g.find("transpose"))
    plain = _attention(64, through_transpose=True)
    run_pipeline(plain, without_callbacks("gpu"))
    assert plain.find("transpose").input_node(0).type != "Multiply"  # moved through without the callback


@pytest.mark.parametrize("head, rank4, dtype, xmx, kept", [
    (64, True, "f16", False, True), (32, True, "f16", False, False), (32, True, "f16", True, True),
    (264, True, "f16", True, False), (72, True, "f16", False, False), (64, True, "f32", False, False)])
def test_gpu_sdpa_keep_rule(head, rank4, dtype, xmx, kept):
    """transformations_pipeline.cpp, the ScaledDotProductAttentionDecomposition callback: f16, rank 4,
    one static head size; <= 256 on XMX, else a multiple of 16 in 64..256."""
    g = _attention(head, dtype=dtype)
    assert gpu_keeps_sdpa(g.find("attention"), xmx=xmx) is kept


def test_gpu_decomposes_a_small_head_sdpa_and_quantizes_its_matmuls():
    """scaled_dot_product_attention_decomposition.cpp under the GPU callback (head 32 without XMX):
    MatMul(Q, K^T) * 1/sqrt(32) -> Softmax -> MatMul(., V) named after the SDPA; MatMulMultiplyFusion
    moves the scale onto K^T, so TransposeMatMul finds no Transpose feeding the MatMul; LPT's
    MatMulTransformation takes Q.K^T on u8 (the Softmax output is not quantized here, so the second
    MatMul stays)."""
    g = _attention(32)
    out = run_pipeline(g, load_config("gpu"))
    last = named(g, "attention")
    assert last.type == "MatMul" and last.input_node(0).type in ("Softmax", "Multiply")
    scores = [n for n in g if n.type == "MatMul" and n is not last]
    assert len(scores) == 1 and not scores[0].attr_bool("transpose_b")
    assert out.applied["MatMulTransformation"] == 1
    assert [v.element_type.name for v in scores[0].input_values()] == ["u8", "u8"]
    kept = _attention(32)
    run_pipeline(kept, load_config("gpu-xmx"))
    assert named(kept, "attention").type == "ScaledDotProductAttention"


def test_gpu_markup_precisions_callback_leaves_group_convolution_misfits_unmarked():
    """transformations_pipeline.cpp, the MarkupPrecisions callback: a Multiply that
    MultiplyToGroupConvolutionTransformation::canBeTransformedToGroupConvolution refuses (no
    Constant input) gets no marks, where MarkupPrecisions would mark it not quantizable."""
    from lpt_cli.lpt.callbacks.gpu import CALLBACKS
    from lpt_cli.lpt.markup import run_markup

    def graph() -> tuple[Graph, Node]:
        g = Graph()
        x = param(g, (1, 3, 4, 4), etype="u8")
        value = node(g, "Convert", [x], (1, 3, 4, 4), destination_type="f32").output()
        value = node(g, "Multiply", [value, const(g, np.arange(1, 5, dtype=np.float32).reshape(1, 1, 1, 4))],
                     (1, 3, 4, 4)).output()
        mul = node(g, "Multiply", [value, param(g, (1, 3, 4, 4), "y")], (1, 3, 4, 4), name="mul")
        result(g, mul.output())
        return g, mul

    g, mul = graph()
    run_markup(g, load_config("gpu"), CALLBACKS["MarkupPrecisions"])
    assert PRECISIONS not in mul.inputs[0].annotations
    g, mul = graph()
    run_markup(g, load_config("gpu"))
    assert mul.inputs[0].annotations[PRECISIONS].value == []


# --- the pre-LPT list -----------------------------------------------------------------------

def _compressed_weights(consumer: str, batch: int = 1) -> tuple[Graph, Node]:
    """i8 weights with an i8 zero point and a scale, feeding `consumer` (Convolution or Add)."""
    g = Graph()
    x = param(g, (batch, 3, 4, 4))
    w = node(g, "Convert", [const(g, np.ones((3, 3, 1, 1), np.int8), "i8")], (3, 3, 1, 1), destination_type="f32")
    zp = node(g, "Convert", [const(g, np.ones((3, 1, 1, 1), np.int8), "i8")], (3, 1, 1, 1), name="zp",
              destination_type="f32")
    w = node(g, "Subtract", [w.output(), zp.output()], (3, 3, 1, 1))
    w = node(g, "Multiply", [w.output(), const(g, np.full((3, 1, 1, 1), 0.1, np.float32))], (3, 3, 1, 1), name="scale")
    if consumer == "Convolution":
        out = node(g, "Convolution", [x, w.output()], (batch, 3, 4, 4), strides="1, 1", pads_begin="0, 0",
                   pads_end="0, 0", dilations="1, 1", auto_pad="explicit")
    else:
        out = node(g, "Add", [w.output(), const(g, np.zeros((3, 3, 1, 1), np.float32))], (3, 3, 1, 1))
    result(g, out.output())
    return g, w


def test_gpu_marks_only_decompression_multiplies_it_compresses_for():
    """transformations_pipeline.cpp, `is_decompression_multiply` as MarkDequantization's callback:
    weights feeding a Convolution stay compressed, weights feeding an Add fold."""
    g, scale = _compressed_weights("Convolution")
    assert is_decompression_multiply(scale)
    run_common_optimizations(g, load_config("gpu"))
    assert any(n.type == "Convert" and n.input_value(0).element_type.name == "i8" for n in g)
    g, scale = _compressed_weights("Add")
    assert not is_decompression_multiply(scale)
    run_common_optimizations(g, load_config("gpu"))
    assert not any(n.type in ("Convert", "Subtract") and n.input_node(0).type == "Constant" for n in g)
    cpu, _ = _compressed_weights("Add")
    run_common_optimizations(cpu, load_config("cpu-avx2"))
    assert cpu.find("zp").annotations.get(DISABLE_CONSTANT_FOLDING)


def test_gpu_folds_compressed_weights_of_a_convolution_with_a_dynamic_input():
    """transformations_pipeline.cpp, `is_decompression_multiply`: a convolution whose input shape is
    dynamic is no decompression target, so MarkDequantization leaves its weights unmarked and
    ConstantFolding decompresses them to f16 before LPT (which then finds no quantized weights)."""
    g, scale = _compressed_weights("Convolution", batch=-1)
    assert not is_decompression_multiply(scale)
    run_common_optimizations(g, load_config("gpu"))
    conv = next(n for n in g if n.type == "Convolution")
    assert conv.input_node(1).type == "Constant" and conv.input_value(1).element_type.name == "f16"
    cpu, _ = _compressed_weights("Convolution", batch=-1)
    run_common_optimizations(cpu, load_config("cpu-avx2"))
    assert next(n for n in cpu if n.type == "Convolution").input_node(1).type == "Multiply"


@pytest.mark.parametrize("profile, zero_point_kept", [("gpu", False), ("gpu-xmx", True)])
def test_xmx_keeps_the_weights_zero_point_subtract(profile, zero_point_kept):
    """transformations_pipeline.cpp: MarkDequantization(..., fold_subtract_const = !supports_immad)
    (mark_dequantization_subgraph.cpp): on XMX the zero point's Convert stays, else it folds."""
    g, _ = _compressed_weights("Convolution")
    run_common_optimizations(g, load_config(profile))
    subtract = next(n for n in g if n.type == "Subtract")
    assert (subtract.input_node(1).type == "Convert") is zero_point_kept


@pytest.mark.parametrize("profile, reduced", [("gpu", False), ("gpu-xmx", True)])
def test_xmx_turns_a_global_avg_pool_into_reduce_mean(profile, reduced):
    """transformations_pipeline.cpp registers ConvertAvgPoolingToReduce when supports_immad
    (plugin/transformations/convert_pooling_to_reduce.cpp): kernel == spatial dims, no pads."""
    g = Graph()
    pool = node(g, "AvgPool", [param(g, (1, 3, 7, 7))], (1, 3, 1, 1), name="gap", strides="1, 1",
                pads_begin="0, 0", pads_end="0, 0", kernel="7, 7", rounding_type="floor", auto_pad="explicit",
                **{"exclude-pad": "true"})
    result(g, pool.output())
    run_common_optimizations(g, load_config(profile))
    reduce = [n for n in g if n.type == "ReduceMean"]
    assert bool(reduce) is reduced
    if reduced:  # named after the pool, which ConvertPrecision renamed: its name went to the Result's Convert
        assert reduce[0].name.endswith("/Reduce") and reduce[0].attr_bool("keep_dims")
        assert g.find("gap").type == "Convert" and g.find("gap").input_node(0) is reduce[0]


def test_gpu_fuses_transposes_into_matmul():
    """TransposeMatMul (matmul_sr.cpp) in the GPU's pre-LPT list: a last-two-axes Transpose becomes
    the MatMul's transpose_b."""
    g = Graph()
    y = param(g, (1, 4, 8), "y")
    t = node(g, "Transpose", [y, const(g, [0, 2, 1], "i64")], (1, 8, 4))
    mm = node(g, "MatMul", [param(g, (1, 2, 8)), t.output()], (1, 2, 4), name="mm", transpose_a="false",
              transpose_b="false")
    result(g, mm.output())
    assert run_common_optimizations(g, load_config("gpu"))["TransposeMatMul"] == 1
    source = mm.input_node(1)
    assert mm.attr_bool("transpose_b") and source.type == "Convert" and source.input_node(0) is y.node


def test_gpu_fake_quantize_fusions_have_no_callback():
    """transformations_pipeline.cpp sets no callback on the FakeQuantize fusions (the CPU plugin's
    is node::FakeQuantize::isSupportedOperation: ranks 2-5): a rank-6 FakeQuantize takes the Multiply."""
    def graph() -> Graph:
        g = Graph()
        fq = fake_quantize(g, param(g, (1, 2, 1, 1, 1, 2)), 0.0, 2.55)
        result(g, node(g, "Multiply", [fq.output(), const(g, 2.0)], (1, 2, 1, 1, 1, 2), name="mul").output())
        return g

    for profile, fused in (("gpu", True), ("cpu-avx2", False)):
        g = graph()
        applied = run_common_optimizations(g, load_config(profile))
        assert ("FakeQuantizeFusions" in applied) is fused
