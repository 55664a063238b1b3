"""ConvertDivide and ConvertSubtract (CommonDecompositions, which the CPU plugin runs before LPT).

LPT has no transformation for Divide, and the CPU plugin's LPT never sees one on real numbers:
`a / b` reaches it as `a * Power(b, -1)`, with a constant `b` folded into `a * (1 / b)`, and
`1 / b` as `Power(b, -1)` alone; `a - b` reaches it as `a + b * -1` (`a + (-b)` for a constant).
Measured on the 2026.4 CPU plugin by serialize tracing (convert_divide.cpp, convert_subtract.cpp).
Left as it was, a Divide stops a dequantization in lpt where the plugin's MultiplyPartial moves
it, so a FakeQuantize around it takes another precision in lpt's report (EdgeNeXt's positional
encoding and its L2-normalized attention).

Kept as they are: a Divide of integers, a Divide on a path that computes a shape
(MarkDividesInShapeSubgraphs: upstream of an input shape inference reads as a value, up to the
ShapeOf it starts from), a Subtract whose second input is unsigned, and a dequantization's
Subtract (MarkDequantization: `Convert(u8/i8/u4/i4/nf4 data) -> Subtract -> Multiply`, weights
and activations alike). The new ops take the replaced op's name.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.eltypes import COMPRESSED_WEIGHT_TYPES
from ..surgery.constants import cast, replace_output
from .nop_elimination import neutral_operand
from .shape_folding import shape_path


def _dequantization_subtract(node: Node) -> bool:
    convert = node.input_node(0)
    return (convert.type == "Convert" and len(convert.output().uses) == 1
            and convert.input_value(0).element_type in COMPRESSED_WEIGHT_TYPES
            and any(use.node.type == "Multiply" and use.index == 0 for use in node.output().uses))


def _binary(graph: Graph, op_type: str, a: Output, b: Output, like: Output) -> Output:
    return graph.add_node(op_type, [a, b], outputs=[(like.element_type, like.shape)],
                          attrs={"auto_broadcast": "numpy"}).output()


def _with_constant(graph: Graph, op_type: str, value: Output, operand: float) -> Output:
    """`value op operand`, folded when `value` is a Constant (in its type, as OpenVINO evaluates it)."""
    etype = value.element_type
    if value.node.type == "Constant":
        array = np.asarray(value.node.value).astype(etype.dtype)
        folded = np.power(array, cast(np.asarray(operand), etype)) if op_type == "Power" \
            else array * cast(np.asarray(operand), etype)
        return graph.add_constant(folded, etype).output()
    scalar = graph.add_constant(cast(np.asarray(operand), etype), etype).output()
    return _binary(graph, op_type, value, scalar, value)


def convert_divide(graph: Graph) -> int:
    """Every Divide of real numbers off the shape paths becomes `a * Power(b, -1)`; returns how many."""
    kept = shape_path(graph)  # MarkDividesInShapeSubgraphs
    converted = 0
    for node in list(graph.topological_order()):
        if node.type != "Divide" or not node.alive or id(node) in kept or not node.input_value(0).element_type.is_real:
            continue
        dividend = node.input_value(0)
        inverse = _with_constant(graph, "Power", node.input_value(1), -1.0)
        if neutral_operand("Multiply", dividend, inverse):  # 1 / b: the Power alone
            replace_output(node, inverse)
        else:
            replace_output(node, _binary(graph, "Multiply", dividend, inverse, node.output()))
        converted += 1
    return converted


def convert_subtract(graph: Graph) -> int:
    """Every Subtract but a dequantization's becomes `a + b * -1`; returns how many."""
    converted = 0
    for node in list(graph.topological_order()):
        if node.type != "Subtract" or not node.alive or _dequantization_subtract(node) \
                or not node.input_value(1).element_type.is_signed:
            continue
        negated = _with_constant(graph, "Multiply", node.input_value(1), -1.0)
        replace_output(node, _binary(graph, "Add", node.input_value(0), negated, node.output()))
        converted += 1
    return converted
