"""Small OpenVINO models built with the opset API, for tests that compile and run them.

`conv` mirrors what NNCF writes: FakeQuantize on the activation, weights stored as
`i8 Constant -> Convert -> Multiply(scale)`; the CPU plugin runs its Convolution in INT8.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def _const(value: np.ndarray | float) -> ov.Node:
    return ops.constant(np.asarray(value, dtype=np.float32))


def _save(model: ov.Model, path: Path) -> Path:
    ov.save_model(model, path, compress_to_fp16=False)
    return path


def conv(folder: Path, *, fp32: bool = False, seed: int = 0, name: str = "conv", scale: float = 0.01) -> Path:
    """input -> [fq_in] -> conv (3x3, 8 channels; weights i8 * `scale`) -> relu -> softmax -> Result."""
    rng = np.random.default_rng(seed)
    x = ops.parameter([1, 3, 16, 16], np.float32, name="input")
    data = x.output(0)
    if not fp32:
        fq = ops.fake_quantize(x, _const(0.0), _const(2.55), _const(0.0), _const(2.55), 256)
        fq.set_friendly_name("fq_in")
        data = fq.output(0)
    w_int = rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8)
    scales = np.full((8, 1, 1, 1), scale, np.float32)
    if fp32:
        weights = _const(w_int.astype(np.float32) * scales)
    else:
        weights = ops.multiply(ops.convert(ops.constant(w_int), np.float32), _const(scales))
    c = ops.convolution(data, weights, [1, 1], [1, 1], [1, 1], [1, 1])
    c.set_friendly_name("conv")
    r = ops.relu(c)
    r.set_friendly_name("relu")
    s = ops.softmax(r, 1)
    s.set_friendly_name("softmax")
    s.output(0).set_names({"probs"})
    return _save(ov.Model([s], [x], "tiny_conv"), folder / f"{name}.xml")


def dynamic_relu(folder: Path) -> Path:
    """input [?, 4] -> relu -> Result: the batch dimension is dynamic."""
    x = ops.parameter(ov.PartialShape([-1, 4]), np.float32, name="x")
    r = ops.relu(x)
    return _save(ov.Model([r], [x], "dyn"), folder / "dyn.xml")
