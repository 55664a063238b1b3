"""MarkDequantization / KeepConstsPrecision: weights stay compressed.

The plugin marks `Constant(u8/i8/u4/i4/nf4) -> Convert -> [Subtract(zero point)] -> Multiply`
on constants (compressed weights, embedding tables, NNCF's int8 weights) so that neither
constant folding nor LPT's FoldConvert/FuseConvert unpack them: its compressed kernels read
them as they are. The mark is the `DisableConstantFolding` annotation on the Converts, which
`fold_constant_subgraphs` and the cleanup passes honour.
"""
from __future__ import annotations

from ...ir import Graph, Node
from ...ir.eltypes import COMPRESSED_WEIGHT_TYPES
from ..surgery.constants import DISABLE_CONSTANT_FOLDING

# FullyConnected's compressed weight types plus LPT's default precisions.


def _converted_constant(node: Node) -> bool:
    return (node.type == "Convert" and node.input_node(0).type == "Constant"
            and node.input_value(0).element_type in COMPRESSED_WEIGHT_TYPES
            and node.output().element_type.is_real)


def mark_dequantization(graph: Graph) -> int:
    """Marks the Converts of every weights decompression subgraph; returns how many were new."""
    marked = 0
    for convert in list(graph):
        if not _converted_constant(convert) or convert.annotations.get(DISABLE_CONSTANT_FOLDING):
            continue
        users = convert.consumers()
        if not users or any(u.type not in ("Subtract", "Multiply") or u.input_node(0) is not convert
                            for u in users):
            continue
        to_mark = [convert]
        for user in users:
            if user.type == "Subtract":
                zero_point = user.input_node(1)
                if _converted_constant(zero_point):
                    to_mark.append(zero_point)
                if not any(c.type == "Multiply" for c in user.consumers()):
                    to_mark = []
                    break
        for node in to_mark:
            if not node.annotations.get(DISABLE_CONSTANT_FOLDING):
                node.annotations[DISABLE_CONSTANT_FOLDING] = True
                marked += 1
    return marked
