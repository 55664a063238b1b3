"""timm ghostnet_100: outputs differ 2.5e-4 of max (cut after the first divergence: 1.3e-3, i.e. single
quantization steps of the FakeQuantize after a residual Add flip).

The pattern (ghostnet block 6.4, constants as NNCF wrote them, weights random):
    a -> FakeQuantize(+-0.0017, one consumer: the Add)          (ghost2's Slice output)
    b -> FakeQuantize(+-0.0207, two consumers: the Add and a Convolution)   (the previous block's Add)
    Add -> FakeQuantize(+-0.0208) -> Convolution(i8 weights) -> Relu
The plugin's LPT and lpt's both run every Convolution u8/i8 (same kernels), but the interval lpt folds
into the FakeQuantize after the Add differs from the plugin's in the last bits, so some values round to
the neighbouring level.

    python repros/ghostnet_residual_add/repro.py   # prints lpt's error relative to the plugin's LPT
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

C, K, HW = 112, 336, 14
RNG = np.random.default_rng(0)


def fq(x: ov.Output, low: float, high: float) -> ov.Node:
    limits = [ops.constant(np.float32(v)) for v in (low, high, low, high)]
    return ops.fake_quantize(x, *limits, 256)


def conv(x: ov.Node, k: int) -> ov.Node:
    w = ops.multiply(ops.convert(ops.constant(RNG.integers(-127, 128, (k, C, 1, 1)).astype(np.int8)), np.float32),
                     ops.constant(RNG.uniform(4e-4, 8e-4, (k, 1, 1, 1)).astype(np.float32)))
    return ops.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1])


def model() -> ov.Model:
    a = ops.parameter([1, C, HW, HW], np.float32, name="a")
    b = ops.parameter([1, C, HW, HW], np.float32, name="b")
    qa, qb = fq(a, -0.00171913, 0.0017057), fq(b, -0.02071663, 0.02055478)
    summed = fq(ops.add(qa, qb), -0.02084719, 0.02068432)
    main = ops.relu(conv(summed, K))
    other = conv(qb, K)  # b's quantizer has a second consumer, as in ghostnet
    return ov.Model([ops.concat([main, other], 1)], [a, b], "repro")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "m.xml", Path(tmp) / "m_lpt.xml"
        ov.save_model(model(), src, compress_to_fp16=False)
        subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(src), "-o", str(out), "-q"], check=True)
        feed = {"a": RNG.uniform(-0.0018, 0.0018, (1, C, HW, HW)).astype(np.float32),
                "b": RNG.uniform(-0.021, 0.021, (1, C, HW, HW)).astype(np.float32)}
        core = ov.Core()
        config = {"INFERENCE_PRECISION_HINT": "f32"}
        expected = core.compile_model(str(src), "CPU", config)(feed)[0]
        actual = core.compile_model(str(out), "CPU", config)(feed)[0]
        print(f"max |lpt - plugin| / max |plugin| = {np.abs(actual - expected).max() / np.abs(expected).max():.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
