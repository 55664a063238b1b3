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
    assert parity.int8_ir_layers(RUN, WEIGHTABLE) == {"conv1", "qkv"}
    assert parity.visible_ir_layers(RUN, WEIGHTABLE) == WEIGHTABLE


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
