"""ConstantFolding as the plugin runs it before LPT, with its keep rules.

What matters for LPT: the f16 constants of older IRs (`Constant f16 -> Convert f32`, also
as FakeQuantize intervals and dequantization constants) become plain f32 constants, so LPT
sees constants where it needs them. Kept as written: what MarkDequantization marked
(compressed weights), and an f16 decompression feeding a MatMul (KeepConstAndDecompression:
the plugin's FullyConnected reads f16 weights). A Convert from an 8-bit-or-narrower integer
Constant is kept too for the CPU plugin, which marks every dequantization subgraph before its
folding (MarkDequantizationSubgraph with LPT's precisions); the GPU plugin clears such marks
first and marks only weights decompressions (`keep_integer_converts=False`: only what
MarkDequantization marked stays).
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.legalize import DECOMPRESSED_FROM
from ..surgery.constants import DISABLE_CONSTANT_FOLDING, evaluate, remove_unused


def _kept(node: Node, keep_integer_converts: bool) -> bool:
    if node.annotations.get(DISABLE_CONSTANT_FOLDING):
        return True
    if node.type != "Convert":
        return False
    source = node.input_value(0).element_type
    if not source.is_real:
        # low-precision data or zero points: dequantization, kept for LPT
        return keep_integer_converts and source.bits <= 8
    return source.name == "f16" and any(user.type == "MatMul" for user in node.consumers())


def fold_constants(graph: Graph, *, keep_integer_converts: bool = True) -> int:
    """Folds every evaluable node whose inputs are all Constants; returns how many."""
    folded = 0
    for node in graph.topological_order():
        if not node.alive or not node.inputs or len(node.outputs) != 1 or node.type == "Result":
            continue
        if any(slot.source.node.type != "Constant" for slot in node.inputs) or _kept(node, keep_integer_converts):
            continue
        value = evaluate(node, [slot.source.node.value for slot in node.inputs])
        if value is None:
            continue
        source = node.input_node(0)
        decompressed = (node.type == "Convert" and source.output().element_type.name in ("f16", "bf16")
                        and node.output().element_type.name == "f32")
        replacement = replace_by_constant(node, value)
        if decompressed:  # the runtime dialect writes it back compressed if LPT leaves it as it is
            replacement.node.annotations[DECOMPRESSED_FROM] = source.constant_data
        folded += 1
    return folded


def replace_by_constant(node: Node, value: np.ndarray) -> Output:
    """`node` becomes a Constant of its output type holding `value`, under its own name (as
    ConstantFolding names the folded constant after the node it replaces)."""
    graph, out, name = node.graph, node.output(), node.name
    replacement = graph.add_constant(value, out.element_type)
    replacement.output().names = out.names
    out.replace_all_uses_with(replacement.output())
    remove_unused(node)
    if not node.alive:
        graph.rename(replacement, name)
    return replacement.output()
