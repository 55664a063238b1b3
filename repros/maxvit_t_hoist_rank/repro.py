"""maxvit_t: lpt's runtime output fails at inference ("reshape: the shape of input data (1.1.64.49.64)
conflicts with the reshape pattern (0.0.0.2.32)").

FakeQuantize(i8) -> Reshape(special_zero, rank 4 -> 5) -> Transpose -> Multiply(q scale, a [1,1,1,1,1]
constant) -> Einsum (Q x K^T). LPT moves the dequantization behind the Transpose and fuses it into the
q-scale Multiply; the runtime dialect then hoists that Multiply back to the chain's head (rank 4) with
its rank-5 constant: the Multiply broadcasts to rank 5 and the Reshape's `0` (copy) dims read the wrong
axes.

    python repros/maxvit_t_hoist_rank/repro.py   # prints the plugin's verdict on lpt's output
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def model() -> ov.Model:
    x = ops.parameter([-1, -1, -1, 64], np.float32, name="x")

    def branch(scale: float | None) -> ov.Node:
        lim = [ops.constant(np.float32(v)) for v in (-0.3, 0.3, -0.3, 0.3)]
        fq = ops.fake_quantize(x, *lim, 256)
        heads = ops.reshape(fq, ops.constant(np.array([0, 0, 0, 2, 32], np.int64)), special_zero=True)
        heads = ops.transpose(heads, ops.constant(np.array([0, 1, 3, 2, 4], np.int64)))
        return heads if scale is None else ops.multiply(heads, ops.constant(np.full((1, 1, 1, 1, 1), scale, np.float32)))

    scores = ops.einsum([branch(0.125), branch(None)], "bhwnd,bhwmd->bhwnm")
    return ov.Model([ops.softmax(scores, -1)], [x], "repro")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "m.xml", Path(tmp) / "m_lpt.xml"
        ov.save_model(model(), src, compress_to_fp16=False)
        subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(src), "-o", str(out), "-q"], check=True)
        feed = {"x": np.random.default_rng(0).uniform(-0.3, 0.3, (1, 1, 49, 64)).astype(np.float32)}
        core = ov.Core()
        expected = core.compile_model(str(src), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feed)[0]
        try:
            actual = core.compile_model(str(out), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feed)[0]
        except RuntimeError as exc:
            print("lpt's output fails:", [l for l in str(exc).splitlines() if "reshape" in l][:1])
            return 1
        print(f"lpt's output runs; max |diff| / max = {np.abs(actual - expected).max() / np.abs(expected).max():.1e}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
