"""Moving only a dequantization scale behind an op that is not linear in its input
(MVN, NormalizeL2): the op reads the integer data, and the scale after it is whatever the
op leaves of the original one (its sign, or the scale itself)."""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Output
from ..ir.eltypes import ElementType
from ..ir.shapes import broadcast_shapes
from .dequantization import Dequantization
from .folding import remove_unused
from .moving import rename_for_result


def sign_constant(graph: Graph, scale: np.ndarray, etype: ElementType) -> Output:
    """-1 where the scale is negative, else 1, as `etype` in the scale's shape."""
    return graph.add_constant(np.where(np.asarray(scale) < 0, -1.0, 1.0), etype).output()


def rescale_after(node: Node, dq: Dequantization, scale: Output, compute_type: ElementType) -> Node:
    """`node` reads `dq.data` and yields `compute_type`; a Multiply by `scale`, with the node's
    former output type, takes over its consumers. Returns that Multiply."""
    out = node.output()
    consumers = out.consumers()
    old_input = node.input_value(0)
    result_type = out.element_type
    node.set_input(0, dq.data)
    out.element_type = compute_type
    multiply = node.graph.add_node("Multiply", [out, scale],
                                   outputs=[(result_type, broadcast_shapes(out.shape, scale.shape))])
    for use in consumers:
        use.set_source(multiply.output())
    remove_unused(old_input.node)
    rename_for_result(node, multiply)
    return multiply
