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
from lpt_cli.lpt.config import load_config
from lpt_cli.lpt.pipeline import run_pipeline
from lpt_cli.runtime.oracle import plugin_run
from lpt_cli.runtime.parity import WEIGHTABLE_KERNELS

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
