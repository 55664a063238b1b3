"""Performance counters of lpt's runtime output name the user's layers, as the original's do.

`benchmark_app -pc` (and `lpt report --runtime`) list the CPU plugin's runtime ops by name; the
plugin names a fused INT8 kernel after the dequantization Multiply fused into it, so the runtime
dialect gives that Multiply the layer's name. Compiled in a child process (lpt_cli.runtime.oracle).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.runtime.oracle import plugin_run
from lpt_cli.runtime.parity import WEIGHTABLE_KERNELS, lost_names

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def _feed(xml: Path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {node.outputs[0].names.split(",")[0] if node.outputs[0].names else node.name:
            rng.standard_normal([d if d > 0 else 1 for d in node.outputs[0].shape]).astype(np.float32)
            for node in read_ir(xml).parameters}


def _kernel_names(xml: Path, types: frozenset[str]) -> list[str]:
    ran = plugin_run(xml, _feed(xml))
    assert ran.ok, ran.error
    return sorted(layer.name for layer in ran.layers if layer.layer_type in types)


CONVOLUTIONS = frozenset({"Convolution", "GroupConvolution", "Deconvolution"})


@pytest.mark.slow
@pytest.mark.parametrize("model", ["resnet", "mobilenet", "detection", "transformer", "decoder"])
def test_convolution_kernels_keep_the_layer_names(tmp_path: Path, model: str) -> None:
    source = MODELS / f"{model}.xml"
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    convolutions = _kernel_names(source, CONVOLUTIONS)
    assert _kernel_names(tmp_path / "lpt.xml", CONVOLUTIONS) == convolutions


@pytest.mark.slow
@pytest.mark.parametrize("model", ["resnet", "transformer"])
def test_matmul_kernels_name_the_same_layers(tmp_path: Path, model: str) -> None:
    """The MatMul kernels name the same layers as the original's, perhaps with other
    `/DequantizationMultiply` suffixes (the plugin's FullyConnected naming follows the graph)."""
    source = MODELS / f"{model}.xml"
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    matmuls = WEIGHTABLE_KERNELS - CONVOLUTIONS
    original = sorted(name.split("/")[0] for name in _kernel_names(source, matmuls))
    assert original and sorted(name.split("/")[0] for name in _kernel_names(tmp_path / "lpt.xml", matmuls)) == original


def attention_with_bias(tmp_path: Path) -> Path:
    """Quantized attention scores plus a constant position bias (Swin's window attention)."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(3)
    shape = [1, 3, 49, 32]
    q, k = (ops.parameter(shape, np.float32, name=name) for name in ("q", "k"))

    def quantized(x: object, limit: float, name: str) -> object:
        node = ops.fake_quantize(x, -limit, limit * 127 / 128, -limit, limit * 127 / 128, 256)
        node.set_friendly_name(name)
        return node

    scores = ops.matmul(quantized(q, 1.28, "fq_q"), quantized(k, 2.56, "fq_k"), False, True)
    scores.set_friendly_name("scores")
    biased = ops.add(scores, ops.constant((rng.standard_normal((1, 3, 49, 49)) * 0.02).astype(np.float32)))
    biased.set_friendly_name("bias_add")
    softmax = ops.softmax(biased, -1)
    softmax.set_friendly_name("softmax")
    path = tmp_path / "attention.xml"
    ov.save_model(ov.Model([softmax], [q, k], "attention"), path, compress_to_fp16=False)
    return path


@pytest.mark.slow
def test_attention_bias_is_written_back_and_the_scores_keep_their_name(tmp_path: Path) -> None:
    """AddTransformation turns `scores*a + bias` into `(scores - c)*a`; the runtime dialect writes
    `scores*a + bias` back, so the plugin runs its own AddTransformation as on the original:
    the i8 MatMul is named `scores` and the outputs are bit-exact."""
    source = attention_with_bias(tmp_path)
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    # LPT's own result, named as OpenVINO's LPT names it: the Subtract keeps the Add's name
    assert [n.type for n in graph if n.name == "bias_add"] == ["Subtract"]
    assert graph.find("bias_add").consumers()[0].name == "scores/DequantizationMultiply"
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    written = read_ir(tmp_path / "lpt.xml")
    add = written.find("bias_add")
    assert add.type == "Add" and add.input_node(0).type == "Multiply"
    feed = {name: np.random.default_rng(4).standard_normal((1, 3, 49, 32)).astype(np.float32) for name in ("q", "k")}
    original, ours = plugin_run(source, feed), plugin_run(tmp_path / "lpt.xml", feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    matmuls = [[layer.name for layer in run.layers if layer.layer_type == "MatMul"] for run in (original, ours)]
    assert matmuls[0] == ["scores"] and matmuls[1] == matmuls[0]
    assert np.array_equal(original.outputs[0], ours.outputs[0])


def residual_encoder(tmp_path: Path) -> Path:
    """A quantized linear layer `embedding` feeding three quantized linear layers and the residual
    Add after them (ALBERT's embedding_hidden_mapping_in): AddTransformation gives the Add its
    own copy of the layer's dequantization Multiply."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(5)

    def linear(x: object, name: str) -> object:
        limit = 4.0 * 127 / 128
        quantized = ops.fake_quantize(x, -4.0, limit, -4.0, limit, 256)
        weights = (rng.standard_normal((32, 32)) * 0.1).astype(np.float32)
        bound = np.abs(weights).max(axis=1, keepdims=True)
        layer = ops.matmul(quantized, ops.fake_quantize(ops.constant(weights), -bound, bound, -bound, bound, 255),
                           False, True)
        layer.set_friendly_name(name)
        return layer

    x = ops.parameter([-1, -1, 32], np.float32, name="x")
    hidden = linear(x, "embedding")
    heads = [linear(hidden, name) for name in ("query", "key", "value")]
    dense = linear(ops.add(ops.add(heads[0], heads[1]), heads[2]), "dense")
    residual = ops.add(hidden, dense)
    residual.set_friendly_name("residual")
    norm = ops.mvn(residual, ops.constant(np.array([-1], np.int64)), True, 1e-5, "inside_sqrt")
    path = tmp_path / "encoder.xml"
    ov.save_model(ov.Model([norm], [x], "encoder"), path, compress_to_fp16=False)
    return path


def _dequantizations_of(xml: Path, layer: str) -> list[str]:
    return sorted(node.name for node in read_ir(xml).find(layer).outputs[0].consumer_nodes()
                  if node.type == "Multiply")


def test_a_separated_dequantization_copy_is_named_after_the_layer(tmp_path: Path) -> None:
    """The Add's private copy of `embedding`'s dequantization Multiply is named after it in the
    runtime dialect (LPT itself leaves the copy unnamed, as OpenVINO does)."""
    source = residual_encoder(tmp_path)
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, tmp_path / "lowp.xml", dialect="lowp")
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    assert len(_dequantizations_of(tmp_path / "lowp.xml", "embedding")) == 2  # the case this is about
    written = _dequantizations_of(tmp_path / "lpt.xml", "embedding")
    assert len(written) == 2 and all(name.startswith("embedding/DequantizationMultiply") for name in written)


@pytest.mark.slow
def test_a_layer_with_a_separated_dequantization_keeps_its_name(tmp_path: Path) -> None:
    """The plugin names `embedding`'s FullyConnected kernels after one of its two dequantization
    Multiplies, the Add's copy here: every layer the original's counters name is still named."""
    source = residual_encoder(tmp_path)
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, tmp_path / "lpt.xml", dialect="runtime")
    feed = {"x": np.random.default_rng(6).standard_normal((1, 8, 32)).astype(np.float32)}
    original, ours = plugin_run(source, feed), plugin_run(tmp_path / "lpt.xml", feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    layers = ["embedding", "query", "key", "value", "dense"]
    named = sorted(set(layers) - set(lost_names(layers, original.layers)))
    assert "embedding" in named
    assert lost_names(named, ours.layers) == []
