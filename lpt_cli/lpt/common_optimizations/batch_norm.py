"""BatchNormDecomposition (CommonOptimizations, which the CPU plugin runs before LPT).

A BatchNormInference left in the IR (a model built from opset ops, or quantized before MOC
fused it into a convolution) reaches LPT as `((x + -mean) * gamma / sqrt(var + eps)) + beta`:
three eltwise ops with constants that LPT moves a dequantization through and then folds into
the next FakeQuantize. Left whole, the BatchNormInference stops the dequantization in lpt, and
the plugin, decomposing it on lpt's output, ends with other constants than on the original
(6e-2 of max on a YOLO-style Conv-BN-SiLU detector). The constants are computed in the input's
type in the order of OpenVINO's batch_norm_decomposition.cpp, so they carry the same bits; the
last Add takes the BatchNormInference's name.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ..surgery.constants import replace_output


def _operands(node: Node) -> tuple[Output, int, list[np.ndarray]] | None:
    """The data input, its rank and (gamma, beta, mean, variance) when all four are constants."""
    if node.version == "opset1":  # BatchNormInference-1: gamma, beta, data, mean, variance
        data, params = node.inputs[2].source, [node.inputs[i].source for i in (0, 1, 3, 4)]
    else:  # BatchNormInference-5: data, gamma, beta, mean, variance
        data, params = node.inputs[0].source, [slot.source for slot in node.inputs[1:]]
    if data.rank is None or data.rank < 2 or any(p.node.type != "Constant" for p in params):
        return None
    return data, data.rank, [np.asarray(p.node.value) for p in params]


def _decompose(graph: Graph, node: Node) -> bool:
    found = _operands(node)
    if found is None:
        return False
    data, rank, (gamma, beta, mean, variance) = found
    dtype = data.element_type.dtype
    eps = np.asarray(node.attr_float("epsilon", 0.0), dtype=dtype)
    aligned = (1, -1) + (1,) * (rank - 2)  # [1, C, 1, ...] as the decomposition reshapes them
    scale = (gamma.astype(dtype) / np.sqrt(variance.astype(dtype) + eps)).reshape(aligned)
    shift = mean.astype(dtype).reshape(aligned) * np.asarray(-1, dtype=dtype)
    out = node.output()
    value = data
    for op, constant in (("Add", shift), ("Multiply", scale), ("Add", beta.astype(dtype).reshape(aligned))):
        operand = graph.add_constant(constant, data.element_type).output()
        value = graph.add_node(op, [value, operand], outputs=[(data.element_type, out.shape)],
                               attrs={"auto_broadcast": "numpy"}).output()
    replace_output(node, value)
    return True


def decompose_batch_norm(graph: Graph) -> int:
    """Replaces every BatchNormInference on constant parameters by its eltwise form; returns how many."""
    return sum(_decompose(graph, node) for node in list(graph) if node.type == "BatchNormInference" and node.alive)
