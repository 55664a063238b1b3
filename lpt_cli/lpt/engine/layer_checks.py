"""LayerTransformation's generic "can this layer be transformed" checks.

Most transformations first ask whether the dequantization on input 0 is per-tensor or
per-channel along the channel axis (a per-batch or per-spatial scale cannot follow the data
through arbitrary ops), and whether every output has a static rank.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...ir import Node
from ...ir.eltypes import ElementType
from ...ir.graph import Shape
from ...ir.shapes import element_count
from ..dequantization.chain import get_dequantization

#: why a transformation declines a layer: (code, detail)
Refusal = tuple[str, str]


def static_output_ranks(node: Node) -> bool:
    return all(out.rank is not None for out in node.outputs)


def per_channel_or_tensor(data_shape: Shape, const_shape: Sequence[int], channel_dim: int) -> bool:
    """A constant of `const_shape` scaling data of `data_shape` varies along the channel at most."""
    dims = list(const_shape)
    if element_count(dims) == 1:
        return True
    if data_shape is None:
        return False
    if len(data_shape) - len(dims) == 1:
        dims.insert(0, 1)
    if len(dims) == 1:
        return True  # a 1-D constant is taken to be per-channel
    if dims[0] != 1:
        return False
    return all(d == 1 or i == channel_dim for i, d in enumerate(dims))


def can_be_transformed(node: Node, precisions: Iterable[ElementType]) -> bool:
    """LayerTransformation::canBeTransformed: static output ranks and a per-tensor or
    per-channel dequantization on input 0."""
    if not static_output_ranks(node):
        return False
    dq = get_dequantization(node, tuple(precisions))
    if dq.empty:
        return True
    for op, constant in ((dq.subtract, dq.subtract_constant), (dq.multiply, dq.multiply_constant)):
        if (op is not None and constant is not None
                and not per_channel_or_tensor(op.output().shape, constant.constant_data.shape, dq.channel_dim)):
            return False
    return True


_NOT_CONSTANT = frozenset({"Parameter", "Convolution", "GroupConvolution", "MatMul",
                           "ConvolutionBackpropData", "ReadValue"})


def is_constant_path(node: Node) -> bool:
    """No Parameter, ReadValue or weighted layer feeds `node`: it computes weights, not data.

    The graph remembers which nodes have such a producer upstream, so the check stays cheap
    in a long chain without weighted layers (walking back to the model input each time made
    a 32,000-layer chain quadratic).
    """
    return not node.graph.has_upstream(node, _NOT_CONSTANT)
