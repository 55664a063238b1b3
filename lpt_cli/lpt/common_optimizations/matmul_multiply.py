"""MatMulMultiplyFusion (CommonOptimizations, which the CPU plugin runs before LPT).

`MatMul(A, B) * c` becomes `MatMul(A, B * c)` when c fits B's output columns, also for a B that
is not a constant (attention's K). LPT then folds c into B's dequantization scale before the
MatMul's (`s_a * (s_b * c)`) rather than after it (`(s_a * s_b) * c`): the last bit of that
scale decides FakeQuantize levels further on (Swin-V2's logit scale: 2.2e-2 of max). The shape
rules are those of OpenVINO's fuse_const_to_weights (matmul_multiply_fusion.cpp).

Not done for dequantized constant weights (`Convert(i8) -> Multiply`): what the plugin's later
passes make of `Multiply(dequantized B, c)` has not been checked against it; lpt leaves them as
before.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.graph import Shape
from ...ir.legalize import FUSED_MULTIPLY_NAME
from ...ir.shapes import broadcast_shapes
from ..engine.layer_checks import is_constant_path


def _fits(matmul: Node, weights: Output, const: tuple[int, ...]) -> bool:
    """Whether a constant of shape `const` multiplies B's columns without changing the MatMul."""
    rank, w_rank = len(const), weights.rank or 0
    if rank == 0:
        return True
    out_rank = matmul.output().rank
    if (rank > w_rank) if out_rank is None else (out_rank < rank):
        return False
    if rank > 1 and const[-2] != 1:
        return False
    if rank > w_rank and weights.node.type != "Constant":
        return False
    if int(np.prod(const)) == 1:
        return True
    w_shape = weights.shape or ()
    if const[-1] > 1:
        column = w_shape[-2] if matmul.attr_bool("transpose_b") else w_shape[-1]
        if column < 0 or const[-1] != column:
            return False
    if rank > 2:
        return not (_broadcasts(const, w_shape) and _broadcasts(const, matmul.input_value(0).shape))
    return True


def _broadcasts(const: tuple[int, ...], shape: Shape) -> bool:
    """The constant widens a batch dim of `shape` (any dim when the rank is unknown)."""
    if shape is None:
        return True
    rank = len(const)
    widens = len(shape) < rank
    for i in range(3, rank + 1):
        if const[rank - i] != 1:
            widens = widens or (len(shape) - i >= 0 and shape[len(shape) - i] != const[rank - i])
    return widens


def _for_weights(value: np.ndarray, transpose_b: bool) -> np.ndarray:
    """The constant laid out like B: its last two dims swapped for a transposed B."""
    if not transpose_b or value.size == 1 or (value.ndim > 1 and value.shape[-2:] == (1, 1)):
        return value
    value = value.reshape(1, -1) if value.ndim == 1 else value
    return np.swapaxes(value, -1, -2)


def fuse_matmul_multiply(graph: Graph) -> int:
    """Moves a constant Multiply after a single-consumer MatMul onto its input B; returns how many."""
    fused = 0
    for node in list(graph.topological_order()):
        if not node.alive or node.type != "Multiply" or len(node.inputs) != 2:
            continue
        slots = [i for i in (0, 1) if node.input_node(i).type == "MatMul"
                 and node.input_node(1 - i).type == "Constant"]
        if not slots:
            continue
        matmul, const = node.input_node(slots[0]), node.input_node(1 - slots[0])
        weights = matmul.inputs[1].source
        if len(matmul.output().uses) != 1 or weights.rank is None or not _fits(matmul, weights, const.constant_data.shape):
            continue
        if weights.node.type == "Constant" and not weights.element_type.is_real:
            continue
        if weights.node.type != "Constant" and is_constant_path(weights.node):
            continue
        value = _for_weights(const.value, matmul.attr_bool("transpose_b"))
        if weights.node.type == "Constant":
            product = np.multiply(weights.node.value, value).astype(weights.element_type.dtype)
            scaled = graph.add_constant(product, weights.element_type).output()
        else:
            factor = graph.add_constant(value, const.output().element_type).output()
            shape = broadcast_shapes(weights.shape, value.shape)
            scaled = graph.add_node("Multiply", [weights, factor], outputs=[(weights.element_type, shape)],
                                    attrs={"auto_broadcast": "numpy"}).output()
        matmul.set_input(1, scaled)
        out = node.output()
        matmul.output().shape = out.shape
        names, out.names = out.names, None
        out.replace_all_uses_with(matmul.output())
        matmul.output().names = names or matmul.output().names
        matmul.annotations[FUSED_MULTIPLY_NAME] = node.name  # OpenVINO's name for it: see legalize
        graph.remove(node)
        if not const.output().uses:
            graph.remove(const)
        fused += 1
    return fused
