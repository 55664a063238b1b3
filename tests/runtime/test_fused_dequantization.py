"""A dequantization that LPT's cleanup folded into a FakeQuantize's output interval is written
back unfused in the runtime dialect, so the plugin rounds a residual Add as it does on the
original model. Compiled in a child process (lpt_cli.runtime.oracle)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.api import transform_file
from lpt_cli.ir.graph import Graph, Node
from lpt_cli.ir.reader import read_ir
from lpt_cli.runtime.oracle import plugin_run
from lpt_cli.runtime.parity import bit_exact

C, HW = 32, 56


def _fake_quantize(x: ov.Output, low: float, high: float) -> ov.Node:
    return ops.fake_quantize(x, np.float32(low), np.float32(high), np.float32(low), np.float32(high), 256)


def _convolution(x: ov.Node, kernel: int, rng: np.random.Generator, name: str) -> ov.Node:
    weights = rng.integers(-127, 128, (C, C, kernel, kernel)).astype(np.int8)
    scales = rng.uniform(0.002, 0.01, (C, 1, 1, 1)).astype(np.float32)
    dequantized = ops.multiply(ops.convert(ops.constant(weights), np.float32), ops.constant(scales))
    pad = [kernel // 2] * 2
    return ops.convolution(x, dequantized, [1, 1], pad, pad, [1, 1], name=name)


def residual_block(folder: Path, seed: int = 9) -> Path:
    """FakeQuantize -> Convolution -> FakeQuantize -> Add(residual) -> FakeQuantize -> Convolution.
    With seed 9 one value of the Add lands on the other side of a rounding step of the last
    FakeQuantize when the plugin gets the fused interval (openvino 2026.4, AVX2)."""
    rng = np.random.default_rng(seed)

    def bound(low: float, high: float) -> float:
        return float(np.float32(rng.uniform(low, high)))

    x = ops.parameter([1, C, HW, HW], np.float32, name="x")
    skip = _fake_quantize(x, bound(-3, -1), bound(1, 3))
    branch = _fake_quantize(_convolution(skip, 3, rng, "conv1"), bound(-3, -1), bound(1, 3))
    added = ops.add(branch, skip, name="add")
    y = _convolution(_fake_quantize(added, bound(-5, -2), bound(2, 5)), 1, rng, "conv2")
    path = folder / "residual.xml"
    ov.save_model(ov.Model([y], [x], "residual"), path, compress_to_fp16=False)
    return path


def _add(graph: Graph) -> Node:
    return next(node for node in graph if node.type == "Add" and node.name == "add")


def _full_branch(graph: Graph) -> list[Node]:
    """The ops from the Add's first input up to the FakeQuantize it comes from."""
    chain = [_add(graph).input_node(0)]
    while chain[-1].type != "FakeQuantize":
        chain.append(chain[-1].input_node(0))
    return chain


def _bounds(fake_quantize: Node) -> tuple[float, float]:
    return float(fake_quantize.input_node(3).value.reshape(-1)[0]), float(fake_quantize.input_node(4).value.reshape(-1)[0])


def test_the_runtime_dialect_writes_the_folded_dequantization_back(tmp_path: Path) -> None:
    source = residual_block(tmp_path)
    lowp = read_ir(transform_file(source, tmp_path / "lowp.xml", "cpu-vnni", "lowp").output)
    runtime = read_ir(transform_file(source, tmp_path / "runtime.xml", "cpu-vnni", "runtime").output)
    [fused] = _full_branch(lowp)
    assert fused.outputs[0].element_type.name == "f32"
    multiply, subtract, to_float, to_u8, fake_quantize = _full_branch(runtime)
    assert [n.type for n in (multiply, subtract, to_float, to_u8)] == ["Multiply", "Subtract", "Convert", "Convert"]
    assert _bounds(fake_quantize) == (0.0, 255.0)
    scale = multiply.input_node(1).value.astype(np.float32)
    shift = subtract.input_node(1).value.astype(np.float32)
    low, high = ((np.float32(q) - shift) * scale for q in _bounds(fake_quantize))
    assert (float(low), float(high)) == _bounds(fused)


@pytest.mark.slow
def test_the_plugin_computes_the_original_residual_add_bit_exactly(tmp_path: Path) -> None:
    source = residual_block(tmp_path)
    written = transform_file(source, tmp_path / "runtime.xml", "cpu-vnni", "runtime").output
    feed = {"x": np.random.default_rng(0).standard_normal((1, C, HW, HW)).astype(np.float32)}
    original, ours = plugin_run(source, feed), plugin_run(written, feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    assert bit_exact(original.outputs, ours.outputs)
