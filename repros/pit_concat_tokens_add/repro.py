"""timm pit_ti_224: outputs differ 2.6e-1 of max; the first diverging cut is the first residual Add
of stage 2 (7.4e-2). `pit_block.xml` is that subgraph cut out of the NNCF model (69 ops, inputs
at the stage-1 class token, the attention's SDPA output and the stage-1 tokens; real weights):

    cls:    FakeQuantize -> MatMul(pool.fc) -> bias -> FakeQuantize(-0.539..0.535)   [?, 1, 128]
    tokens: FakeQuantize -> depthwise pooling conv -> FakeQuantize(-2.018..2.002)
            -> Reshape -> Transpose                                                [?, 196, 128]
    x = Concat(cls, tokens, axis 1)         (dequantization scale per TOKEN: [1, 197, 1])
    y = x + FakeQuantize(-0.559..0.555)(MatMul(attn.proj) + bias)

lpt's graph is the same math (as float ops, both models agree to 3e-7: repros/fq_reference.py),
but the plugin ran it otherwise: on lpt's output the attn.proj FullyConnected fused `MatMul, Add,
DequantizationMultiply`, on the original `DequantizationMultiply` and the bias apart (7.8e-2).

Root cause (fixed on branch addfam): the plugin marks a bias only on an Add right behind the MatMul
(LPT's MarkupBias), and on CPU its AddTransformation leaves marked Adds alone. lpt's runtime dialect
wrote `MatMul -> Multiply(scale) -> Add(bias)`: no bias for the plugin, which regrouped `x*a + b`
into `(x + b/a)*a`, and the FakeQuantize behind it moved by whole steps. The runtime dialect now
puts the scale on the weights' dequantization (`MatMul(x, W*a) -> Add(bias)`): 0.0.

    python repros/pit_concat_tokens_add/repro.py   # lpt vs plugin on random inputs
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov

HERE = Path(__file__).resolve().parent


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = HERE / "pit_block.xml", Path(tmp) / "lpt.xml"
        subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(src), "-o", str(out), "-q"], check=True)
        core = ov.Core()
        rng = np.random.default_rng(0)
        feed = {p.get_friendly_name(): rng.uniform(-1, 1, [d.get_length() if d.is_static else 1
                                                          for d in p.get_partial_shape()]).astype(np.float32)
                for p in core.read_model(src).get_parameters()}
        config = {"INFERENCE_PRECISION_HINT": "f32"}
        plugin = core.compile_model(str(src), "CPU", config)(feed)[0]
        ours = core.compile_model(str(out), "CPU", config)(feed)[0]
        print(f"max |lpt - plugin| / max |plugin| = {np.abs(ours - plugin).max() / np.abs(plugin).max():.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
