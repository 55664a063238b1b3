"""The shape every "move the dequantization after me" transformation shares.

Check the layer, give it a private dequantization chain, let the subclass rewrite the
chain's constants for the op's axis semantics, then rebuild the chain behind the op. A
subclass only says when it applies (`check`) and how constants change (`rewrite`).
"""
from __future__ import annotations

from ....ir import Node
from ....ir.eltypes import ElementType
from ...engine.layer_checks import Refusal, can_be_transformed
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...engine.transformation import Transformation


class MoveDequantizationTransformation(Transformation):
    """Base of the data-movement and reduction transformations (one output, input 0 carries
    the dequantization)."""

    #: the op's output keeps the low-precision type (False: the op computes in deq precision)
    update_precision: bool = True
    #: OpenVINO's pattern wants input 0 to be produced by a Multiply
    needs_multiply_input: bool = True
    #: inputs (besides 0) the pattern wants to be Constants
    constant_inputs: tuple[int, ...] = ()
    #: refuse a dequantization that is neither per-tensor nor per-channel (canBeTransformed)
    needs_per_channel: bool = False

    @property
    def precisions(self) -> tuple[ElementType, ...]:
        return tuple(self.config.default_precisions)

    def applies_to(self, node: Node) -> bool:
        if not super().applies_to(node) or not node.inputs:
            return False
        if self.needs_multiply_input and node.input_node(0).type != "Multiply":
            return False
        return all(i < len(node.inputs) and node.input_node(i).type == "Constant"
                   for i in self.constant_inputs)

    def transform(self, node: Node) -> bool:
        dq = get_dequantization(node, self.precisions)
        if dq.empty or dq.multiply is None:
            return self.reject(node, "no_dequantization", "input 0 has no dequantization Multiply")
        if self.needs_per_channel and not can_be_transformed(node, self.precisions):
            return self.reject(node, "not_per_channel", "dequantization is neither per-tensor nor per-channel")
        refusal = self.check(node, dq)
        if refusal is not None:
            return self.reject(node, *refusal)
        separate_in_standalone_branch(node, self.precisions)
        dq = get_dequantization(node, self.precisions)
        self.rewrite(node, dq)
        dq = get_dequantization(node, self.precisions)
        move_dequantization_after(node, dq, update_output_precision=self.update_precision)
        return True

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        """None when the layer can be transformed, else (code, detail)."""
        return None

    def rewrite(self, node: Node, dq: Dequantization) -> None:
        """Adapts the chain's constants to the op (default: they stay as they are)."""
