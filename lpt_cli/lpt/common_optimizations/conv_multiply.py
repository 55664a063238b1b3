"""ConvolutionMultiplyFusion and GroupConvolutionMultiplyFusion (MOC's `multiply_fusions`, which
the CPU plugin runs before LPT).

`Convolution(x, W) * c`, with c one value or one per output channel ([1, C, 1, ...]) and the
Convolution used only there, becomes `Convolution(x, W * c')` with c reshaped to the weights'
layout (conv_mul_fusion.cpp). OpenVINO names the new Convolution after the Multiply and lists the
Convolution's name among its fused names; lpt's IR keeps the user's name on the Convolution. A BatchNorm after an unquantized-output
convolution ends this way once decomposed: on NNCF's int8 weights `W * c'` is
`(Convert(i8) * s) * c'`, which LPT's LinOpSequenceFusion then merges into one scale `s * c'`.
Left to LPT's MultiplyTransformation, lpt multiplied the same factors in another order (1 ulp
after the BatchNorm, a level after the next FakeQuantize: a YOLO-style detector, NNCF MIXED).
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node
from ..surgery.constants import remove_unused


def _per_channel(shape: tuple[int, ...], channels: int) -> bool:
    """conv_mul_fusion.cpp's const_shape_compatible: a scalar, or ones but for C (or 1) at axis 1."""
    return all(dim == 1 or (axis == 1 and dim == channels) for axis, dim in enumerate(shape))


def _weights_layout(conv: Node, weights_shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape c takes beside the weights: [C, 1, ...] (Convolution), [G, O, 1, ...] (GroupConvolution)."""
    if conv.type == "Convolution":
        return (weights_shape[0],) + (1,) * (len(weights_shape) - 1)
    return (weights_shape[0], weights_shape[1]) + (1,) * (len(weights_shape) - 2)


def _fuse(graph: Graph, multiply: Node) -> bool:
    slots = [i for i in (0, 1) if multiply.input_node(i).type in ("Convolution", "GroupConvolution")
             and multiply.input_node(1 - i).type == "Constant"]
    if len(multiply.inputs) != 2 or not slots:
        return False
    conv, constant = multiply.input_node(slots[0]), multiply.input_node(1 - slots[0])
    weights = conv.inputs[1].source
    shape = weights.shape
    if len(conv.output().uses) != 1 or shape is None or any(d < 0 for d in shape[:2]):
        return False
    value = np.asarray(constant.value)
    channels = shape[0] if conv.type == "Convolution" else shape[0] * shape[1]
    if not _per_channel(value.shape, channels):
        return False
    layout = _weights_layout(conv, shape)
    factor = value if value.size == 1 else value.reshape(layout)
    scale = graph.add_constant(factor, constant.output().element_type).output()
    scaled = graph.add_node("Multiply", [weights, scale], outputs=[(weights.element_type, weights.shape)],
                            attrs={"auto_broadcast": "numpy"}).output()
    conv.set_input(1, scaled)
    out = multiply.output()
    names, out.names = out.names, None
    out.replace_all_uses_with(conv.output())
    conv.output().names = names or conv.output().names
    remove_unused(multiply)
    return True


def fuse_convolution_multiply(graph: Graph) -> int:
    """Moves every per-output-channel constant Multiply after a single-use (Group)Convolution into
    its weights; returns how many."""
    return sum(_fuse(graph, node) for node in list(graph.topological_order())
               if node.alive and node.type == "Multiply")
