"""Moving only a dequantization scale behind an op that is not linear in its input
(MVN, NormalizeL2): the op reads the integer data, and the scale after it is whatever the
op leaves of the original one (its sign, or the scale itself)."""
from __future__ import annotations

import numpy as np

from ....ir import Graph, Node, Output
from ....ir.eltypes import ElementType
from ....ir.shapes import broadcast_shapes
from ...engine.layer_checks import Refusal, can_be_transformed
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.constants import remove_unused
from ...surgery.moving import rename_for_result, separate_in_standalone_branch
from ...engine.transformation import Transformation


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
    node.set_input(0, dq.source)
    out.element_type = compute_type
    multiply = node.graph.add_node("Multiply", [out, scale],
                                   outputs=[(result_type, broadcast_shapes(out.shape, scale.shape))])
    for use in consumers:
        use.set_source(multiply.output())
    remove_unused(old_input.node)
    rename_for_result(node, multiply)
    return multiply


class ScaleAfterTransformation(Transformation):
    """Base of MVN and NormalizeL2: they keep only (a function of) the scale behind them, so
    they need a per-tensor or per-channel dequantization that is a scale without a zero point.
    A subclass says when else it declines (`check`) and what scale follows it (`new_scale`)."""

    def transform(self, node: Node) -> bool:
        refusal = self._refusal(node)
        if refusal is not None:
            return self.reject(node, *refusal)
        precisions = self.config.default_precisions
        separate_in_standalone_branch(node, precisions)
        dq = get_dequantization(node, precisions)
        rescale_after(node, dq, self.new_scale(node, dq), self.config.deq_precision)
        return True

    def _refusal(self, node: Node) -> Refusal | None:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return "not_per_channel", "dynamic rank or per-spatial dequantization"
        dq = get_dequantization(node, precisions)
        if dq.subtract is not None or dq.multiply_constant is None:
            return "no_scale_only_dequantization", "needs a dequantization with a scale and no zero point"
        return self.check(node, dq)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        """None when the op can take the scale-only `dq`, else (code, detail)."""
        raise NotImplementedError

    def new_scale(self, node: Node, dq: Dequantization) -> Output:
        """The scale that follows the op once it reads the integer data."""
        raise NotImplementedError
