"""Hand-built before/after graphs: the report's input without running any transformation."""
from __future__ import annotations

import numpy as np

from lpt_cli.ir import Graph, Output

ACT = (1, 3, 8, 8)
OUT = (1, 4, 8, 8)


def fake_quantize(g: Graph, x: Output, name: str, out_type: str = "f32") -> Output:
    limits = [g.add_constant(np.float32(v)).outputs[0] for v in (0.0, 2.55, 0.0, 2.55)]
    fq = g.add_node("FakeQuantize", [x, *limits], outputs=[(out_type, x.shape)], attrs={"levels": "256"},
                    name=name)
    return fq.outputs[0]


def dequantize(g: Graph, x: Output, *, scale: np.ndarray | float = 0.01, zero_point: float | None = None,
               name: str = "dq") -> Output:
    """Convert(x) [- zero_point] * scale, as LPT leaves it in front of a declined layer."""
    value = g.add_node("Convert", [x], outputs=[("f32", x.shape)], attrs={"destination_type": "f32"},
                       name=f"{name}/convert").outputs[0]
    if zero_point is not None:
        zp = g.add_constant(np.float32(zero_point)).outputs[0]
        value = g.add_node("Subtract", [value, zp], outputs=[("f32", x.shape)], name=f"{name}/sub").outputs[0]
    s = g.add_constant(np.asarray(scale, np.float32)).outputs[0]
    return g.add_node("Multiply", [value, s], outputs=[("f32", x.shape)], name=f"{name}/mul").outputs[0]


def weights(g: Graph, *, low: bool, zero_point: float | None = None) -> Output:
    w = g.add_constant(np.ones((4, 3, 3, 3), np.int8)).outputs[0]
    return w if low else dequantize(g, w, zero_point=zero_point, name="w")


def conv(g: Graph, x: Output, w: Output, name: str = "conv") -> Output:
    attrs = {"strides": "1, 1", "pads_begin": "1, 1", "pads_end": "1, 1", "dilations": "1, 1"}
    return g.add_node("Convolution", [x, w], outputs=[("f32", OUT)], attrs=attrs, name=name).outputs[0]


def finish(g: Graph, x: Output) -> Graph:
    sm = g.add_node("Softmax", [x], outputs=[("f32", x.shape)], attrs={"axis": "1"}, name="softmax")
    g.add_node("Result", [sm.outputs[0]], name="result")
    return g


def original() -> Graph:
    """input -> fq -> conv(i8 weights dequantized) -> softmax."""
    g = Graph("before")
    x = g.add_node("Parameter", outputs=[("f32", ACT)], name="input").outputs[0]
    return finish(g, conv(g, fake_quantize(g, x, "fq"), weights(g, low=False)))


def lowered() -> Graph:
    """What LPT makes of `original` when the Convolution goes INT8."""
    g = Graph("after")
    x = g.add_node("Parameter", outputs=[("f32", ACT)], name="input").outputs[0]
    c = conv(g, fake_quantize(g, x, "fq", "u8"), weights(g, low=True))
    return finish(g, c)


def declined(*, fq_type: str = "u8", scale: np.ndarray | float = 0.01, zero_point: float | None = None,
             weights_zero_point: float | None = None) -> Graph:
    """LPT decomposed the FakeQuantize but left the Convolution in f32 behind the dequantization."""
    g = Graph("after")
    x = g.add_node("Parameter", outputs=[("f32", ACT)], name="input").outputs[0]
    q = fake_quantize(g, x, "fq", fq_type)
    w = weights(g, low=False, zero_point=weights_zero_point)
    return finish(g, conv(g, dequantize(g, q, scale=scale, zero_point=zero_point), w))


def untouched() -> Graph:
    """LPT did nothing."""
    g = original()
    g.name = "after"
    return g
