"""The movement family: every "move the dequantization after me" transformation.

One algorithm, four phases: match (`applies_to`: the op, a Multiply on input 0, constant
parameters), check (the generic refusals, then the op's own `check`), prepare (give the op a
private dequantization chain, then `prepare` rewrites its constants for the op's axis
semantics), move (rebuild the chain behind the op). A member module declares only what
differs: class attributes for the generic parts, `check`/`prepare`/`move` for the rest.
"""
from __future__ import annotations

from ....ir import Node
from ....ir.eltypes import ElementType
from ...engine.layer_checks import Refusal, can_be_transformed
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...engine.transformation import Transformation


class MoveDequantizationTransformation(Transformation):
    """Base of the movement and reduction transformations (one output, input 0 carries
    the dequantization)."""

    #: the op's output keeps the low-precision type (False: the op computes in deq precision)
    update_precision: bool = True
    #: OpenVINO's pattern wants input 0 to be produced by a Multiply
    needs_multiply_input: bool = True
    #: inputs (besides 0) the pattern wants to be Constants
    constant_inputs: tuple[int, ...] = ()
    #: refuse a dequantization that is neither per-tensor nor per-channel (canBeTransformed)
    needs_per_channel: bool = False
    #: LayerTransformation's order (pooling, activations, Interpolate): canBeTransformed
    #: first, then, with `needs_dequantization`, any non-empty dequantization. Otherwise (the
    #: data-movement ops): a dequantization Multiply first, then `needs_per_channel`.
    layer_checks_first: bool = False
    needs_dequantization: bool = True

    @property
    def precisions(self) -> tuple[ElementType, ...]:
        return tuple(self.config.default_precisions)

    def applies_to(self, node: Node) -> bool:
        if not super().applies_to(node) or not node.inputs:
            return False
        if self.op_versions is not None and node.version not in self.op_versions:
            return False
        if self.needs_multiply_input and node.input_node(0).type != "Multiply":
            return False
        return all(i < len(node.inputs) and node.input_node(i).type == "Constant"
                   for i in self.constant_inputs)

    def transform(self, node: Node) -> bool:
        dq = get_dequantization(node, self.precisions)
        refusal = self._generic_refusal(node, dq) or self.check(node, dq)
        if refusal is not None:
            return self.reject(node, *refusal)
        separate_in_standalone_branch(node, self.precisions)
        refusal = self.prepare(node, get_dequantization(node, self.precisions))
        if refusal is not None:
            return self.reject(node, *refusal)
        self.move(node, get_dequantization(node, self.precisions))
        return True

    def _generic_refusal(self, node: Node, dq: Dequantization) -> Refusal | None:
        if self.layer_checks_first:
            if not can_be_transformed(node, self.precisions):
                return "not_per_channel", "dynamic rank or per-spatial dequantization"
            if self.needs_dequantization and dq.empty:
                return "no_dequantization", "no dequantization on the input"
            return None
        if dq.empty or dq.multiply is None:
            return "no_dequantization", "input 0 has no dequantization Multiply"
        if self.needs_per_channel and not can_be_transformed(node, self.precisions):
            return "not_per_channel", "dequantization is neither per-tensor nor per-channel"
        return None

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        """None when the layer can be transformed, else (code, detail). Changes nothing."""
        return None

    def prepare(self, node: Node, dq: Dequantization) -> Refusal | None:
        """Adapts the (now private) chain's constants to the op (default: they stay as they
        are). A refusal here leaves the separated branch in place, as OpenVINO does."""
        return None

    def move(self, node: Node, dq: Dequantization) -> None:
        """Rebuilds the chain behind the op."""
        move_dequantization_after(node, dq, update_output_precision=self.update_precision)
