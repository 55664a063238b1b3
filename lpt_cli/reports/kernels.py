"""The CPU plugin's kernel rules on a layer LPT made low precision (lpt_cli/isa.py).

LPT decides the precisions; the plugin's node then decides whether its kernel computes on them
(`canBeExecutedInInt8`). For Convolution, GroupConvolution, FullyConnected and MatMul that is
"u8/i8 activations and i8 weights" on every ISA (rule `int8_kernels`), which LPT's result already
says. The Deconvolution kernel (ConvolutionBackpropData) adds limits of its own that depend on
the ISA and the shapes (rule `deconvolution_avx512`): such a layer keeps u8/i8 inputs and runs in
f32 behind a Reorder. A config without an `isa` (not a CPU profile) gets no kernel rules.
"""
from __future__ import annotations

from ..ir import Node
from ..isa import deconvolution_refusal, implied
from ..lpt.engine.config import Config


def kernel_refusal(node: Node, config: Config) -> str | None:
    """Why the CPU plugin's kernel for `node` (after LPT, u8/i8 operands) computes in f32 under
    `config`'s ISA; None when it computes on the integers."""
    if config.isa is None or node.type != "ConvolutionBackpropData":
        return None
    data, weights = node.inputs[0].source, node.inputs[1].source
    if data.rank is None or weights.shape is None or any(d < 0 for d in weights.shape):
        return None  # the plugin refuses such a layer outright (Deconvolution::isSupportedOperation)
    refusal = deconvolution_refusal(
        implied(config.isa), rank=data.rank, in_channels=weights.shape[0], strides=tuple(node.attr_ints("strides")),
        kernel=tuple(weights.shape[2:]), output_shape=node.outputs[0].shape)
    if refusal is None:
        return None
    return (f"the CPU plugin's Deconvolution kernel runs it in f32 on {config.isa}: {refusal} "
            "(deconv.cpp, Deconvolution::canBeExecutedInInt8)")
