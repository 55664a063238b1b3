"""A 2,000-layer quantized model (500 FakeQuantize/Convolution/Relu/Add blocks) built with
openvino.opset13: the size the HTML page must still open quickly at."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

CHANNELS = 8


def _fake_quantize(x: ov.Output, low: float, high: float) -> ov.Output:
    limits = [ops.constant(np.float32(v)) for v in (low, high, low, high)]
    return ops.fake_quantize(x, *limits, 256).output(0)


def residual_chain(path: Path, blocks: int = 500) -> Path:
    """Writes the model to `path` (.xml and .bin): each block quantizes the activation and the
    weights, convolves, applies Relu and adds the block's input back (four layers a block: the weights' FakeQuantize folds into a Constant)."""
    rng = np.random.default_rng(0)
    x = ops.parameter([1, CHANNELS, 8, 8], np.float32, name="input").output(0)
    model_input = x.get_node()
    for _ in range(blocks):
        weights = ops.constant(rng.uniform(-1, 1, (CHANNELS, CHANNELS, 3, 3)).astype(np.float32))
        conv = ops.convolution(_fake_quantize(x, 0.0, 2.55), _fake_quantize(weights.output(0), -1.28, 1.27),
                               [1, 1], [1, 1], [1, 1], [1, 1])
        x = ops.add(ops.relu(conv), x).output(0)
    ov.save_model(ov.Model([x], [model_input], "residual_chain"), str(path), compress_to_fp16=False)
    return path
