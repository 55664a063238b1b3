"""TransposeMatMul (matmul_sr.cpp), which the GPU plugin runs before its LPT.

A Transpose that only swaps the last two axes (a constant order `0, 1, .., r-1, r-2`, rank >= 2)
in front of a MatMul input becomes the MatMul's `transpose_a` / `transpose_b` flag: LPT then sees
the dequantization (or the weights' FakeQuantize) directly on the MatMul. The Transpose goes when
nothing else reads it; the MatMul keeps its name.
"""
from __future__ import annotations

from ...ir import Graph, Node
from ..surgery.constants import remove_unused


def _fusable(node: Node) -> bool:
    rank = node.output().rank
    if node.type != "Transpose" or rank is None or rank < 2 or node.input_node(1).type != "Constant":
        return False
    order = list(range(rank))
    order[-1], order[-2] = order[-2], order[-1]
    return [int(v) for v in node.input_node(1).value.reshape(-1)] == order


def fuse_transpose_matmul(graph: Graph) -> int:
    """Folds every last-two-axes Transpose in front of a MatMul into its flags; returns how many."""
    fused = 0
    for matmul in [n for n in graph.topological_order() if n.type == "MatMul"]:
        for index, flag in ((0, "transpose_a"), (1, "transpose_b")):
            transpose = matmul.input_node(index)
            if not _fusable(transpose):
                continue
            matmul.set_input(index, transpose.input_value(0))
            matmul.attrs[flag] = "false" if matmul.attr_bool(flag) else "true"
            remove_unused(transpose)
            fused += 1
    return fused
