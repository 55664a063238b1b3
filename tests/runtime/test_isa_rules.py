"""The ISA rules lpt_cli/isa.py takes from the CPU plugin, against the plugin on this machine:
`cpu` resolves to this CPU's profile, so the report must say what the plugin runs here, and
lpt's output must run the plugin's kernels. Compiled in child processes (runtime/oracle.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.api import transform_file
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.analyze import analyze
from lpt_cli.reports.model import LOW
from lpt_cli.runtime.oracle import plugin_run
from lpt_cli.runtime.parity import bit_exact, on_int8_kernel, weightable_kernels


def _const(value: float | np.ndarray) -> ov.Node:
    return ops.constant(np.asarray(value, dtype=np.float32))


def _save(result: ov.Node, x: ov.Node, path: Path) -> Path:
    ov.save_model(ov.Model([result], [x], path.stem), path, compress_to_fp16=False)
    return path


def signed_group_convolution(folder: Path, rank: int) -> Path:
    """A depthwise GroupConvolution on a signed (i8) FakeQuantize, `rank`-D."""
    rng = np.random.default_rng(rank)
    x = ops.parameter([1, 8, *[6] * (rank - 2)], np.float32, name="input")
    fq = ops.fake_quantize(x, _const(-1.28), _const(1.27), _const(-1.28), _const(1.27), 256)
    w = rng.integers(-127, 128, (8, 1, 1, *[3] * (rank - 2))).astype(np.int8)
    weights = ops.multiply(ops.convert(ops.constant(w), np.float32), _const(np.full((8, 1, 1) + (1,) * (rank - 2), 0.01)))
    conv = ops.group_convolution(fq, weights, *([[1] * (rank - 2)] * 4))
    conv.set_friendly_name("gconv")
    return _save(ops.relu(conv), x, folder / f"gconv{rank}d.xml")


def deconvolution(folder: Path, size: int) -> Path:
    """A 2x2/2 ConvolutionBackpropData on 64 u8 channels of size x size."""
    rng = np.random.default_rng(size)
    x = ops.parameter([1, 64, size, size], np.float32, name="input")
    fq = ops.fake_quantize(x, _const(0.0), _const(2.55), _const(0.0), _const(2.55), 256)
    w = rng.integers(-127, 128, (64, 8, 2, 2)).astype(np.int8)
    deconv = ops.convolution_backprop_data(fq, ops.multiply(ops.convert(ops.constant(w), np.float32), _const(0.01)),
                                           [2, 2])
    deconv.set_friendly_name("deconv")
    return _save(ops.relu(deconv), x, folder / f"deconv{size}.xml")


def _feed(xml: Path) -> dict[str, np.ndarray]:
    shape = ov.Core().read_model(xml).inputs[0].get_shape()
    return {"input": np.random.default_rng(1).standard_normal(list(shape)).astype(np.float32)}


@pytest.mark.slow
@pytest.mark.parametrize("rank", [4, 5])
def test_group_convolution_takes_signed_activations_in_5d_as_the_plugin_does(tmp_path: Path, rank: int) -> None:
    """transformation_pipeline.cpp, Transformations::Lpt (rule signed_group_conv_5d): lpt's output
    runs the original's kernel, bit-exactly; a 5-D one on i8 activations on every ISA."""
    source = signed_group_convolution(tmp_path, rank)
    written = transform_file(source, tmp_path / "out.xml", "cpu").output
    feed = _feed(source)
    original, ours = plugin_run(source, feed), plugin_run(written, feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    assert weightable_kernels(ours.layers) == weightable_kernels(original.layers)
    assert bit_exact(original.outputs, ours.outputs)
    [kernel] = [layer for layer in original.layers if "gconv" in layer.original_names]
    row = next(r for r in analyze(source, load_config("cpu")).report.layers if r.name == "gconv")
    assert on_int8_kernel(kernel) and row.status == LOW and row.input_precisions[0] == kernel.runtime_precision
    if rank == 5:
        assert kernel.runtime_precision == "i8"


@pytest.mark.slow
@pytest.mark.parametrize("size", [32, 65])
def test_the_report_says_which_deconvolution_the_plugin_runs_in_int8_here(tmp_path: Path, size: int) -> None:
    """nodes/deconv.cpp, Deconvolution::canBeExecutedInInt8 (rule deconvolution_avx512): without
    AVX-512, 64^2 x 130^2 output positions is above 2^26 and runs in f32; with it, INT8."""
    source = deconvolution(tmp_path, size)
    original = plugin_run(source, _feed(source))
    assert original.ok, original.error
    [kernel] = [layer for layer in original.layers if "deconv" in layer.original_names]
    row = next(r for r in analyze(source, load_config("cpu")).report.layers if r.name == "deconv")
    assert (row.status == LOW) == on_int8_kernel(kernel), (row, kernel)
    assert row.status == LOW or (row.reason is not None and row.reason.code == "kernel_not_int8")
