"""Multiply-accumulate counts of weightable layers, from the original model's shapes.

The low-precision share is MAC-weighted because one big Convolution left in f32 costs more
than ten small ones in INT8. Dynamic dimensions count as 1 (MACs per output position, which
the report says) unless the caller gives static shapes (`lpt report --shape`).
"""
from __future__ import annotations

from ..ir import Node
from ..ir.graph import Shape


def _prod(dims: Shape) -> int:
    total = 1
    for dim in dims or ():
        total *= max(dim, 1)
    return total


LayerShapes = tuple[Shape, Shape, Shape]  # data input, weights input, output


def low_precision_share(macs_low: int, macs: int, low: int, weightable: int) -> float:
    """The MAC-weighted share in percent (by count when no MACs are known), floored to hundredths
    in integer arithmetic: 100.00 only when every weightable layer is low precision (15 of 16
    layers is 99.99 at most, never a rounded 100.00 that passes `--fail-under 100`)."""
    part, whole = (macs_low, macs) if macs else (low, weightable)
    return (10000 * part // whole) / 100 if whole else 0.0


def layer_macs(node: Node, static: LayerShapes | None = None) -> int | None:
    """MACs of one inference of a weightable layer (with `static` shapes when given); None for
    other ops or unknown ranks."""
    if len(node.inputs) < 2 or not node.outputs:
        return None
    data, weights, out = static or (node.inputs[0].source.shape, node.inputs[1].source.shape, node.outputs[0].shape)
    if data is None or weights is None or out is None:
        return None
    if node.type == "Convolution":
        return _prod(out) * _prod(weights[1:])
    if node.type == "GroupConvolution":
        return _prod(out) * _prod(weights[2:])
    if node.type == "ConvolutionBackpropData":
        return _prod(data) * _prod(weights[1:])
    if node.type == "MatMul":
        return _prod(out) * _reduced_dim(node, data)
    return None


def _reduced_dim(node: Node, a_shape: tuple[int, ...]) -> int:
    if len(a_shape) == 1:
        return max(a_shape[0], 1)
    axis = -2 if node.attr_bool("transpose_a") else -1
    return max(a_shape[axis], 1)
