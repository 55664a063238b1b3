"""A Concat of float branches feeding an asymmetric FakeQuantize: the CPU plugin refuses lpt's runtime
output. Found by the settings sweep, where NNCF's SmoothQuant on Convolutions (`smooth_quant_alphas`
convolution >= 0, with TRANSFORMER) makes this pattern: it puts a per-channel Multiply after a Concat
and the next Convolution's FakeQuantize after the Multiply (lpt folds the Multiply into it):

    python benchmarks/settings_sweep.py --only yolo_swish-mixed-tr1-s10-sq2-fbc1-ign1-f32 --reduce
    # first diverging Convolution conv_38 (inf): the plugin refuses the cut lpt wrote

Reduced (no SmoothQuant needed):

    Concat(Convolution, Convolution) -> FakeQuantize(-0.3..1.0: u8 with a zero point) -> Convolution

lpt writes the activation as `FakeQuantize -> Convert(u8) -> Convert -> Subtract(u8 zero point,
[1,16,1,1]) -> Multiply(1.0)`. The plugin's own LPT runs MoveFakeQuantize on that FakeQuantize (a
Concat is right above it) and throws while splitting it into the Concat's branches:

    [MoveFakeQuantize] END: node: opset1::FakeQuantize ... CALLBACK HAS THROWN: ...
    While validating node 'opset1::Subtract ... (Convert FakeQuantize_34/DequantizationSubtract/to_f32_1
    f32[1,12,16,16], Convert FakeQuantize_34/DequantizationSubtract/to_f32_1 f32[1,16,1,1])':
    Argument shapes are inconsistent.

The plugin compiles the original (there the FakeQuantize is not decomposed yet), and lpt's output
of a symmetric FakeQuantize (0..1, no zero point) at the same place is bit-exact.

The same setting on densenet121 (`densenet121-perf-tr1-s10-sq2-fbc1-ign0-f32`: Concat -> BN Multiply ->
ReLU -> SmoothQuant Multiply -> FakeQuantize) compiles but differs by 2.5e-1 of max; its first
diverging cut is the Concat `__module.features.denseblock1.denselayer5/aten::cat/Concat` (6.4e-1),
where on lpt's output the plugin moved lpt's `ReLU -> FakeQuantize(per-channel input intervals, the
Multiplies folded in)` above the previous dense Concat, and not on the original. A synthetic Concat ->
Multiply -> ReLU -> Multiply -> FakeQuantize graph is bit-exact, so that one is not reduced further.

    python repros/concat_asymmetric_fq/repro.py   # "refused: [MoveFakeQuantize] ..." (exit 1) until fixed
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

RNG = np.random.default_rng(0)


def fq(x: ov.Output, low: float, high: float) -> ov.Node:
    return ops.fake_quantize(x, *[ops.constant(np.float32(v)) for v in (low, high, low, high)], 256)


def conv(x: ov.Output, cin: int, cout: int) -> ov.Node:
    """A 1x1 Convolution with per-channel i8 weights, as NNCF writes them."""
    weights = ops.multiply(ops.convert(ops.constant(RNG.integers(-127, 128, (cout, cin, 1, 1)).astype(np.int8)),
                                       np.float32),
                           ops.constant(RNG.uniform(2e-3, 4e-3, (cout, 1, 1, 1)).astype(np.float32)))
    return ops.convolution(x, weights, [1, 1], [0, 0], [0, 0], [1, 1])


def model() -> ov.Model:
    x = ops.parameter([1, 8, 16, 16], np.float32, name="x")
    quantized = fq(x, -3.0, 3.0)
    cat = ops.concat([conv(quantized, 8, 12), conv(quantized, 8, 4)], 1)
    return ov.Model([conv(fq(cat, -0.3, 1.0), 16, 4)], [x], "repro")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "m.xml", Path(tmp) / "m_lpt.xml"
        ov.save_model(model(), src, compress_to_fp16=False)
        subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(src), "-o", str(out), "-q"], check=True)
        core, config = ov.Core(), {"INFERENCE_PRECISION_HINT": "f32"}
        feed = {"x": RNG.standard_normal((1, 8, 16, 16)).astype(np.float32)}
        expected = core.compile_model(str(src), "CPU", config)(feed)[0]
        try:
            actual = core.compile_model(str(out), "CPU", config)(feed)[0]
        except RuntimeError as exc:
            lines = [line for line in str(exc).splitlines() if line.strip() and not line.startswith("Exception from")]
            print(f"refused: {lines[0][:200] if lines else exc}")
            return 1
        print(f"max |lpt - plugin| / max |plugin| = {np.abs(actual - expected).max() / np.abs(expected).max():.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
