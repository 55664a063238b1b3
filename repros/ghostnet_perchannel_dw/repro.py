"""timm ghostnet_100: outputs differ 2.5e-4 of max (the cut at the first diverging op: 4.9e-3).

    python repros/ghostnet_perchannel_dw/repro.py [--per-tensor]

FakeQuantize(u8) -> Convolution(i8 weights) -> Relu -> FakeQuantize(u8, PER-CHANNEL input/output
limits, as NNCF writes after a BN+ReLU) -> depthwise GroupConvolution(i8 weights). Built here with
the opset API; prints lpt's runtime output's error relative to the plugin's own LPT.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

C_IN, C = 16, 32
RNG = np.random.default_rng(0)


def const(value: np.ndarray | float) -> ov.Node:
    return ops.constant(np.asarray(value, np.float32))


def weights(shape: tuple[int, ...], scale_shape: tuple[int, ...]) -> ov.Node:
    q = ops.constant(RNG.integers(-127, 128, shape).astype(np.int8))
    return ops.multiply(ops.convert(q, np.float32), const(RNG.uniform(5e-4, 3e-3, scale_shape)))


def model(per_tensor: bool) -> ov.Model:
    x = ops.parameter([1, C_IN, 14, 14], np.float32, name="x")
    a = ops.fake_quantize(x, const(-3.0), const(2.98), const(-3.0), const(2.98), 256)
    conv = ops.convolution(a, weights((C, C_IN, 1, 1), (C, 1, 1, 1)), [1, 1], [0, 0], [0, 0], [1, 1])
    high = RNG.uniform(0.05, 0.4, (1, C, 1, 1)) if not per_tensor else np.full((1, C, 1, 1), 0.3)
    fq = ops.fake_quantize(ops.relu(conv), const(np.zeros((1, C, 1, 1))), const(high), const(np.zeros((1, C, 1, 1))),
                           const(high), 256)
    dw = ops.group_convolution(fq, weights((C, 1, 1, 3, 3), (C, 1, 1, 1, 1)), [1, 1], [1, 1], [1, 1], [1, 1])
    return ov.Model([dw], [x], "repro")


def main() -> int:
    per_tensor = "--per-tensor" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "m.xml", Path(tmp) / "m_lpt.xml"
        ov.save_model(model(per_tensor), src, compress_to_fp16=False)
        subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(src), "-o", str(out), "-q"], check=True)
        feed = {"x": RNG.standard_normal((1, C_IN, 14, 14)).astype(np.float32)}
        core = ov.Core()
        config = {"INFERENCE_PRECISION_HINT": "f32"}
        expected = core.compile_model(str(src), "CPU", config)(feed)[0]
        actual = core.compile_model(str(out), "CPU", config)(feed)[0]
        print(f"max |lpt - plugin| / max |plugin| = {np.abs(actual - expected).max() / np.abs(expected).max():.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
