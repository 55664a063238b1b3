"""Where lpt's arithmetic must match the plugin's to the last bit: a FakeQuantize after it turns an
ulp into a whole quantization step (found on wav2vec2 by the zoo probes, NOTES-probe.md)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.ir.constant import ConstantData
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.lpt.transformations.weightable import in_order_dot
from lpt_cli.lpt.transformations.weightable.in_order_dot import dot_in_order
from lpt_cli.runtime.oracle import PluginRun, plugin_run

RNG = np.random.default_rng(3)


def _fake_quantize(x: ov.Output, low: float, high: float) -> ov.Node:
    return ops.fake_quantize(x, *[ops.constant(np.float32(v)) for v in (low, high, low, high)], 256)


def _weights(outputs: int, inputs: int) -> ov.Node:
    """i8 weights [outputs, inputs] with per-output-channel scales, as NNCF compresses them."""
    return ops.multiply(ops.convert(ops.constant(RNG.integers(-127, 128, (outputs, inputs)).astype(np.int8)), np.float32),
                        ops.constant(RNG.uniform(2e-3, 2.5e-3, (outputs, 1)).astype(np.float32)))


def _runtime_output(model: ov.Model, folder: Path) -> Path:
    """`model` saved as folder/m.xml and lpt's runtime dialect of it (config cpu) as folder/lpt.xml."""
    ov.save_model(model, folder / "m.xml", compress_to_fp16=False)
    graph = read_ir(folder / "m.xml")
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, folder / "lpt.xml", dialect="runtime")
    return folder / "lpt.xml"


def _same_outputs(folder: Path, feed: dict[str, np.ndarray]) -> tuple[PluginRun, PluginRun]:
    """The plugin's runs of folder/m.xml and folder/lpt.xml (child processes), asserted bit-equal."""
    original, ours = plugin_run(folder / "m.xml", feed), plugin_run(folder / "lpt.xml", feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    assert all(np.array_equal(a, b) for a, b in zip(original.outputs, ours.outputs, strict=True))
    return original, ours


def projection() -> ov.Model:
    """wav2vec2's feature projection: asymmetric u8 activations -> MatMul(i8) -> bias -> asymmetric FQ."""
    x = ops.parameter([-1, -1, 512], np.float32, name="x")
    weights = _weights(256, 512)
    y = ops.add(ops.matmul(_fake_quantize(x, -0.74976826, 0.9421867), weights, False, True),
                ops.constant(RNG.uniform(-0.03, 0.03, (1, 1, 256)).astype(np.float32)))
    return ov.Model([_fake_quantize(y, -2.3577964, 2.095819)], [x], "projection")


def test_activation_zero_point_of_a_mat_mul_reaches_the_plugin_as_its_own(tmp_path: Path) -> None:
    """Written as `z @ B` after the MatMul, the plugin regrouped it with the scale and the bias and
    single outputs of the FakeQuantize moved one level; written before the MatMul it is bit-exact."""
    written = _runtime_output(projection(), tmp_path)
    matmul = next(n for n in read_ir(written) if n.type == "MatMul")
    assert not any(use.node.type == "Subtract" for use in matmul.outputs[0].uses)
    for seed in range(3):
        feed = {"x": np.random.default_rng(seed).uniform(-0.8, 1.0, (1, 49, 512)).astype(np.float32)}
        _same_outputs(tmp_path, feed)


@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("weight_bytes", [None, 1 << 12], ids=["whole", "row-blocks"])
@pytest.mark.parametrize("block_bytes", [None, 1 << 14], ids=["whole", "k-blocks"])
@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("zero_point", ["fraction", "dyadic", "zero"])
def test_zero_point_product_is_summed_as_openvino_folds_it(transpose: bool, weight_bytes: int | None,
                                                           block_bytes: int | None, rows: int, zero_point: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`z @ B` equals OpenVINO's own MatMul evaluation (what the plugin's LPT folds) bit for bit,
    whatever the weights' layout, for a zero point per row too, when the products are formed a
    block of k at a time and the weights read a block of rows at a time; summed exactly from
    integer sums (z = -0.5 * row: a power of two times an odd number), and for z = 0 (+0 from
    negative weights); a BLAS matmul sums in another order and differs in the last bits."""
    if block_bytes is not None:
        monkeypatch.setattr(in_order_dot, "_BLOCK_BYTES", block_bytes)
    if weight_bytes is not None:
        monkeypatch.setattr(in_order_dot, "_WEIGHT_BYTES", weight_bytes)
    weights = RNG.integers(-127, 128, (256, 512) if transpose else (512, 256)).astype(np.int8)
    weights[..., :3] = 0  # zero columns (rows when transposed): +0 or -0 by the summation's start
    per_row = {"fraction": 113.0003 + RNG.uniform(0, 9, (rows, 1)), "dyadic": -0.5 * np.arange(1, rows + 1)[:, None],
               "zero": np.zeros((rows, 1))}[zero_point]
    zero_points = per_row.astype(np.float32) * np.ones((rows, 512), np.float32)
    folded = [ov.Tensor(np.zeros((rows, 256), np.float32))]
    node = ops.matmul(ops.constant(zero_points), ops.constant(weights.astype(np.float32)), False, transpose)
    assert node.evaluate(folded, [ov.Tensor(zero_points), ov.Tensor(weights.astype(np.float32))])
    if zero_point == "fraction":  # the case tells the summation orders apart
        assert not np.array_equal(np.matmul(zero_points, weights.T if transpose else weights, dtype=np.float32),
                                  folded[0].data)
    got = dot_in_order(zero_points, ConstantData.from_array(weights), transpose)
    assert got.tobytes() == folded[0].data.tobytes()


Q_LIMITS, K_LIMITS, LOGIT_SCALE = (-0.87761056, 0.87075424), (-0.85454106, 0.847865), np.float32(10.0)


def cosine_attention() -> ov.Model:
    """Swin-V2's scores: i8 Q x K^T times a per-head logit scale, then Softmax."""
    q = ops.parameter([1, 2, 49, 16], np.float32, name="q")
    k = ops.parameter([1, 2, 49, 16], np.float32, name="k")
    scores = ops.matmul(_fake_quantize(q, *Q_LIMITS), _fake_quantize(k, *K_LIMITS), False, True)
    scaled = ops.multiply(scores, ops.constant(np.full((1, 2, 1, 1), LOGIT_SCALE, np.float32)))
    return ov.Model([ops.softmax(scaled, -1)], [q, k], "cosine_attention")


def test_scale_after_scores_is_folded_into_k_first_as_the_plugin_does(tmp_path: Path) -> None:
    """MatMulMultiplyFusion (the plugin's CommonOptimizations) moves the logit scale onto K, so LPT
    folds s_q * (s_k * c), the plugin's constant; folded after the MatMul, (s_q * s_k) * c differed
    in the last bit, which a later FakeQuantize turned into whole levels (Swin-V2: 2.2e-2 of max)."""
    ov.save_model(cosine_attention(), tmp_path / "m.xml", compress_to_fp16=False)
    graph = read_ir(tmp_path / "m.xml")
    run_pipeline(graph, load_config("cpu"))
    matmul = next(n for n in graph if n.type == "MatMul")
    scale = next(use.node for use in matmul.outputs[0].uses if use.node.type == "Multiply").input_node(1).value
    f32 = np.float32
    s_q, s_k = (f32(f32(high - low) / f32(255)) for low, high in (map(f32, Q_LIMITS), map(f32, K_LIMITS)))
    plugin_order, after_order = f32(s_q * f32(s_k * LOGIT_SCALE)), f32(f32(s_q * s_k) * LOGIT_SCALE)
    assert plugin_order != after_order  # the two orders differ for these intervals
    assert np.all(scale == plugin_order)
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    feed = {name: RNG.uniform(-0.9, 0.9, (1, 2, 49, 16)).astype(np.float32) for name in ("q", "k")}
    _same_outputs(tmp_path, feed)


def biased_projection() -> ov.Model:
    """u8 activations -> MatMul(i8 weights, per-channel scales) -> bias Add -> FakeQuantize."""
    x = ops.parameter([-1, -1, 64], np.float32, name="x")
    weights = _weights(32, 64)
    y = ops.add(ops.matmul(_fake_quantize(x, -1.0, 1.0), weights, False, True),
                ops.constant(RNG.uniform(-0.3, 0.3, (1, 1, 32)).astype(np.float32)), name="bias")
    return ov.Model([_fake_quantize(y, -1.3, 1.2)], [x], "biased_projection")


def test_bias_after_a_mat_mul_stays_a_bias_for_the_plugin(tmp_path: Path) -> None:
    """The plugin keeps `x*a + b` only for an Add it marks as a bias, one right behind the MatMul;
    behind lpt's scale Multiply it regrouped the Add into `(x + b/a)*a` and single outputs of the
    FakeQuantize moved one level (wav2vec2, PiT). With the scale on the weights, the plugin fuses
    the same post-ops in the same order as for the original, and computes the same outputs."""
    _runtime_output(biased_projection(), tmp_path)
    feed = {"x": np.random.default_rng(0).uniform(-1.0, 1.0, (4, 8192, 64)).astype(np.float32)}
    original, ours = _same_outputs(tmp_path, feed)

    def post_ops(run: PluginRun) -> list[str]:
        names = next(layer.original_names for layer in run.layers if layer.layer_type == "FullyConnected")
        return [name.split("/")[-1] for name in names if "/Dequantization" in name or name == "bias"]

    assert post_ops(ours) == post_ops(original) and post_ops(ours)[-1] == "bias"


def residual_projection() -> ov.Model:
    """u8 activations with a zero point -> MatMul(i8 weights) -> residual Add of a float input."""
    x = ops.parameter([-1, -1, 64], np.float32, name="x")
    residual = ops.parameter([-1, -1, 32], np.float32, name="r")
    weights = _weights(32, 64)
    y = ops.add(residual, ops.matmul(_fake_quantize(x, -0.84100354, 0.8476256), weights, False, True))
    return ov.Model([y], [x, residual], "residual_projection")


def test_zero_point_survives_the_residual_add_of_a_mat_mul(tmp_path: Path) -> None:
    """AddTransformation rebuilds the MatMul branch's `z @ B` Subtract (same values, the residual
    has no zero point); it stays one the runtime dialect writes before the MatMul. Left after the
    MatMul, the plugin computed other sums (wav2vec2's attention residual: 5.9e-8 of max)."""
    written = _runtime_output(residual_projection(), tmp_path)
    matmul = next(n for n in read_ir(written) if n.type == "MatMul")
    assert not any(use.node.type == "Subtract" for use in matmul.outputs[0].uses)
    rng = np.random.default_rng(0)
    feed = {"x": rng.uniform(-1.0, 1.0, (4, 1024, 64)).astype(np.float32),
            "r": rng.uniform(-1.0, 1.0, (4, 1024, 32)).astype(np.float32)}
    _same_outputs(tmp_path, feed)


def heads_projection() -> ov.Model:
    """ALBERT's attention output: u8 with a zero point -> Reshape -> Transpose -> Reshape -> MatMul(i8)."""
    x = ops.parameter([1, 4, 64, 16], np.float32, name="x")
    heads = ops.reshape(ops.transpose(_fake_quantize(x, -0.48891082, 0.4927605), ops.constant(np.array([0, 2, 1, 3]))),
                        ops.constant(np.array([0, 0, 64], np.int64)), True)
    weights = _weights(64, 64)
    return ov.Model([ops.matmul(heads, weights, False, True)], [x], "heads_projection")


def test_zero_point_behind_a_reshape_chain_goes_to_its_head(tmp_path: Path) -> None:
    """With the activations' `1.0` at the head of the Reshape/Transpose chain, the zero point goes
    there too, where the plugin's own FakeQuantize decomposition puts it; left after the MatMul as
    `z @ B`, the plugin summed otherwise (ALBERT: 1.8e-7 of max)."""
    written = _runtime_output(heads_projection(), tmp_path)
    matmul = next(n for n in read_ir(written) if n.type == "MatMul")
    assert not any(use.node.type == "Subtract" for use in matmul.outputs[0].uses)
    for seed in range(3):
        feed = {"x": np.random.default_rng(seed).uniform(-0.5, 0.5, (1, 4, 64, 16)).astype(np.float32)}
        _same_outputs(tmp_path, feed)


def split_projection() -> ov.Model:
    """GPT-2's c_attn: u8 with a zero point -> MatMul(i8) -> VariadicSplit into q, k, v."""
    x = ops.parameter([1, 256, 64], np.float32, name="x")
    weights = _weights(96, 64)
    product = ops.matmul(_fake_quantize(x, -0.94699335, 0.95445), weights, False, True)
    parts = ops.variadic_split(product, ops.constant(np.int64(2)), ops.constant(np.array([32, 32, -1], np.int64)))
    return ov.Model([ops.relu(parts.output(i)) for i in range(3)], [x], "split_projection")


def test_zero_point_of_a_split_mat_mul_goes_before_the_mat_mul(tmp_path: Path) -> None:
    """SplitTransformation leaves a slice of `z @ B` behind every output; the runtime dialect writes
    the one zero point before the MatMul instead (GPT-2's c_attn: 1.0e-7 of max left behind)."""
    written = _runtime_output(split_projection(), tmp_path)
    split = next(n for n in read_ir(written) if n.type == "VariadicSplit")
    assert not any(use.node.type == "Subtract" for out in split.outputs for use in out.uses)
    assert split.input_node(0).type == "MatMul"
    for seed in range(3):
        feed = {"x": np.random.default_rng(seed).uniform(-1.0, 1.0, (1, 256, 64)).astype(np.float32)}
        _same_outputs(tmp_path, feed)
