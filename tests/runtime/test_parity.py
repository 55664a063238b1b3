"""The comparisons of two plugin runs the zoo parity check is built on."""
from __future__ import annotations

import numpy as np
import pytest

from lpt_cli.runtime import parity
from lpt_cli.runtime.layers import RuntimeLayer


def _layer(name: str, kind: str, precision: str, primitive: str, *names: str) -> RuntimeLayer:
    return RuntimeLayer(name, kind, precision, ("f32",), primitive, names or (name,))


RUN = [
    _layer("conv1", "Convolution", "u8", "brgconv_avx2_I8", "conv1", "relu1"),
    _layer("fc", "FullyConnected", "f32", "brgemm_avx2_f32", "fc/DequantizationMultiply", "fc"),
    _layer("qkv", "FullyConnected", "u8", "brgemm_avx2_i8", "Multiply_123", "qkv/DequantizationMultiply"),
    _layer("wc", "FullyConnectedCompressed", "u8", "brgemm_avx2_f32", "wc"),
    _layer("relu2", "Eltwise", "f32", "jit_avx2_f32"),
]
WEIGHTABLE = {"conv1", "fc", "qkv", "wc"}


def test_int8_layers_are_named_by_their_ir_layer() -> None:
    truth = parity.read_int8(RUN, WEIGHTABLE)
    assert truth.int8 == {"conv1", "qkv"} and truth.float == {"fc", "wc"} and not truth.opaque
    assert truth.activations == {"conv1": "u8", "qkv": "u8"}


def test_kernels_are_counted_by_type_precision_primitive() -> None:
    kernels = parity.weightable_kernels([*RUN, RUN[0]])
    assert kernels[("Convolution", "u8", "brgconv_avx2_I8")] == 2
    assert ("Eltwise", "f32", "jit_avx2_f32") not in kernels


def test_lost_names_skip_generated_names_and_accept_the_dequantization_name() -> None:
    assert parity.lost_names({"conv1", "qkv", "gone", "Multiply_77"}, RUN) == ["gone"]


def test_relative_error_and_exactness() -> None:
    ref = [np.array([1.0, -4.0], dtype=np.float32)]
    assert parity.worst_relative_error(ref, [np.array([1.0, -3.0], dtype=np.float32)]) == 0.25
    assert parity.worst_relative_error(ref, [np.zeros(3, dtype=np.float32)]) == float("inf")
    assert parity.worst_relative_error(ref, []) == float("inf")
    assert parity.worst_relative_error([], []) == 0.0
    assert parity.bit_exact(ref, [ref[0].copy()])
    assert not parity.bit_exact(ref, [ref[0].astype(np.float64)])


def test_output_error_is_relative_to_the_max_and_absolute_for_zeros() -> None:
    ref = np.array([[2.0, -8.0], [0.0, 1.0]], dtype=np.float32)
    assert parity.output_error(ref, ref + np.float32(0.5)) == (0.0625, False)
    assert parity.output_error(ref, ref.T) == (pytest.approx(1.0), False)  # |-8 - 0| / 8
    zeros = np.zeros(3, np.float32)
    assert parity.output_error(zeros, zeros) == (0.0, True)
    assert parity.output_error(zeros, np.array([0.0, 3e-6, 0.0], np.float32)) == (pytest.approx(3e-6), True)
    assert parity.output_error(np.array([1e-40, 0.0]), np.array([0.0, 1e-40])) == (1e-40, True)  # subnormal: no scale
    assert parity.output_error(ref, ref[:1]) == (float("inf"), False)
    assert parity.output_error(np.zeros(0), np.zeros(0)) == (0.0, False)
    assert parity.output_error(np.array([7, 9], np.int64), np.array([7, 8], np.int64)) == (pytest.approx(1 / 9), False)


def test_output_error_wants_nan_and_infinity_where_the_reference_has_them() -> None:
    ref = np.array([np.nan, np.inf, -2.0, 1.0], dtype=np.float32)
    assert parity.output_error(ref, ref.copy()) == (0.0, False)
    assert parity.output_error(ref, np.array([np.nan, np.inf, -2.0, 1.5], np.float32)) == (0.25, False)
    for wrong in ([1.0, np.inf, -2.0, 1.0], [np.nan, -np.inf, -2.0, 1.0], [np.nan, np.inf, np.nan, 1.0]):
        assert parity.output_error(ref, np.array(wrong, np.float32)) == (float("inf"), False)
    assert parity.output_error(np.array([np.nan]), np.array([np.nan])) == (0.0, False)


# An attention Subgraph as the AMX plugin names it (runtime-fixtures/transformer.json): the first
# MatMul runs under the name of the Multiply fused into it, with its dequantization; the second
# takes f32 inputs, though the Subgraph reports i8 (its narrowest input).
ATTENTION = _layer("transpose_31", "Subgraph", "i8", "jit_avx512_i8", "transpose_8", "scale_27",
                   "scale_27/DequantizationMultiply", "softmax_28", "context_29", "transpose_31")


def test_a_subgraph_says_int8_only_for_the_matmul_whose_dequantization_it_holds() -> None:
    """nodes/subgraph.cpp Subgraph::getRuntimePrecision and utils/cpu_utils.hpp getMaxPrecision:
    a Subgraph's precision is its narrowest input's (lpt_cli/isa.py, rule subgraph_precision)."""
    truth = parity.read_int8([ATTENTION], {"scores_25", "context_29"}, {"scale_27": "scores_25"})
    assert truth.int8 == {"scores_25"} and truth.opaque == {"context_29"} and not truth.float
    assert parity.judge_prediction(truth, {"scores_25": "i8"}, ()) == []
    assert parity.judge_prediction(truth, {}, ())[0] == "missing 1 ['scores_25']"


def test_ran_low_reads_a_fused_layer_by_its_dequantization() -> None:
    from lpt_cli.runtime.layers import ran_low

    assert ran_low(ATTENTION, "scale_27", own=False) and not ran_low(ATTENTION, "context_29", own=False)
    assert ran_low(ATTENTION, "transpose_8", own=True)  # the Subgraph's own layer takes its precision
    assert ran_low(RUN[0], "relu1", own=False)  # fused into a kernel: the kernel's precision


def test_kernels_named_after_no_layer_are_counted_by_what_they_compute() -> None:
    layers = [_layer("Multiply_75152", "FullyConnected", "i8", "brgemm_avx512_amx_i8"),
              _layer("Multiply_5613", "MatMul", "i8", "jit_gemm_i8"),  # an SDPA MatMul: no layer of the original
              _layer("q", "FullyConnected", "u8", "brgemm_avx512_amx_I8", "q")]
    truth = parity.read_int8(layers, {"q", "out_lin"})
    assert truth.int8 == {"q"} and dict(truth.unnamed_int8) == {"i8": 1}
    assert parity.judge_prediction(truth, {"q": "u8", "out_lin": "i8"}, {"q", "out_lin"}) == []
    assert parity.judge_prediction(truth, {"q": "u8", "out_lin": "u8"}, {"q", "out_lin"})  # u8 predicted, i8 ran
    assert parity.judge_prediction(truth, {"q": "u8"}, {"q", "out_lin"})  # out_lin predicted float
    twice = [*layers, _layer("Multiply_9", "FullyConnected", "u8", "jit_gemm_I8")]  # q again, for a second consumer
    assert parity.judge_prediction(parity.read_int8(twice, {"q", "out_lin"}), {"q": "u8", "out_lin": "i8"},
                                   {"q", "out_lin"}) == []  # a layer in two kernels is no disagreement
    deconv = _layer("up", "Deconvolution", "f32", "jit_avx2_f32", "up")  # a GroupConvolutionBackpropData
    assert parity.read_int8([deconv], {"q"}, others={"up"}).unnamed_float == 0
    assert parity.read_int8([deconv], {"q"}).unnamed_float == 1


def test_a_prediction_is_judged_on_missing_extra_and_signedness() -> None:
    truth = parity.read_int8(RUN, WEIGHTABLE)
    assert parity.judge_prediction(truth, {"conv1": "u8", "qkv": "u8"}, WEIGHTABLE) == []
    assert parity.judge_prediction(truth, {"conv1": "u8"}, WEIGHTABLE)[0].startswith("missing 1 ['qkv']")
    assert parity.judge_prediction(truth, {"conv1": "u8", "qkv": "u8", "fc": "u8"}, WEIGHTABLE)[0].startswith("extra 1")
    assert "other activations" in parity.judge_prediction(truth, {"conv1": "i8", "qkv": "u8"}, WEIGHTABLE)[0]


def test_a_layer_listed_under_its_alias_is_not_lost() -> None:
    assert parity.lost_names({"scores_25"}, [ATTENTION]) == ["scores_25"]
    assert parity.lost_names({"scores_25"}, [ATTENTION], {"scale_27": "scores_25"}) == []


def test_a_float_kernel_reading_i8_computes_in_float() -> None:
    """Swin-T's attention MatMul on AVX2 reports i8 on `brgemm_avx2_f32`: not an INT8 kernel, so
    `report --runtime` does not call the layer predicted original-precision a disagreement."""
    assert not _layer("mm", "MatMul", "i8", "brgemm_avx2_f32", "mm").computes_low
    assert _layer("mm", "MatMul", "i8", "jit_gemm_i8", "mm").computes_low
    assert _layer("r", "Reshape", "i8", "unknown_i8", "r").computes_low  # data movement on i8


def test_recurrent_cells_on_integers_are_counted() -> None:
    cells = [_layer("LSTMSequence_1", "RNNSeq", "u8", "ref_any_I8"), _layer("LSTMSequence_2", "RNNSeq", "f32",
                                                                             "ref_any_f32"), *RUN]
    assert parity.int8_recurrent_cells(cells) == 1
    assert parity.weightable_kernels(cells)[("RNNSeq", "u8", "ref_any_I8")] == 1


def test_a_stateful_model_runs_two_steps(tmp_path) -> None:
    """The second step reads what the first stored: both steps' outputs come back, in order."""
    import openvino as ov
    import openvino.opset6 as ops6
    import openvino.opset13 as ops
    from openvino.op.util import Variable, VariableInfo

    from lpt_cli.runtime.oracle import plugin_run

    x = ops.parameter([1, 4], np.float32, name="x")
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 4]), ov.Type.f32, "s"
    variable = Variable(info)
    read = ops.read_value(ops.constant(np.zeros((1, 4), np.float32)), variable)
    total = ops.add(x, read)
    model = ov.Model([total.output(0)], [ops6.assign(total, variable)], [x], "accumulate")
    ov.save_model(model, tmp_path / "state.xml")
    feed = {"x": np.arange(4, dtype=np.float32).reshape(1, 4)}
    ran = plugin_run(tmp_path / "state.xml", feed)
    assert ran.ok, ran.error
    assert len(ran.outputs) == 2
    assert np.array_equal(ran.outputs[0], feed["x"]) and np.array_equal(ran.outputs[1], 2 * feed["x"])
