"""Step 1's PullReshape/PullTransposeThroughDequantization: walk a Reshape or Transpose up a
weights dequantization (Constant -> Convert -> [Subtract] -> Multiply) into the weights.

The op is moved one node at a time: across an elementwise op it needs that op's constant
rewritten (the subclass says how), across the Convert it just moves, and at the weights
Constant it is folded. The result is a dequantization directly on reshaped weights, the form
the weighted layers' transformations recognise.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import i8, u8
from ....ir.shapes import broadcast_shapes
from ...dequantization.chain import constant_branch
from ...surgery.constants import remove_unused
from ...engine.transformation import Transformation

WEIGHT_TYPES = (i8, u8)


def _is_weights_convert(node: Node) -> bool:
    return (node.type == "Convert" and node.input_node(0).type == "Constant"
            and node.input_value(0).element_type in WEIGHT_TYPES)


def is_weights_dequantization(multiply: Node) -> bool:
    """Multiply(Convert(i8/u8 Constant) [- zero point], Constant), the step-1 pattern."""
    if multiply.type != "Multiply":
        return False
    scale = next((i for i in (1, 0) if multiply.input_node(i).type == "Constant"), None)
    if scale is None:
        return False
    parent = multiply.input_node(1 - scale)
    if parent.type == "Subtract":
        zero_point = parent.input_node(1)
        if not (zero_point.type == "Constant" or
                (zero_point.type == "Convert" and zero_point.input_node(0).type == "Constant")):
            return False
        parent = parent.input_node(0)
    return _is_weights_convert(parent)


class PullThroughDequantization(Transformation):
    """Base of the two pulls: subclasses fold the op into a constant value."""

    def applies_to(self, node: Node) -> bool:
        return (super().applies_to(node) and len(node.inputs) == 2
                and node.input_node(1).type == "Constant" and is_weights_dequantization(node.input_node(0)))

    def fold(self, op: Node, value: np.ndarray) -> np.ndarray:
        """`op` applied to a constant value."""
        raise NotImplementedError

    def eltwise_constant(self, op: Node, eltwise: Node, value: np.ndarray) -> np.ndarray | None:
        """The elementwise op's constant once `op` runs before it, or None to stop here."""
        raise NotImplementedError

    def transform(self, node: Node) -> bool:
        op: Node | None = node
        while op is not None:
            parent = op.input_node(0)
            if parent.type in ("Multiply", "Subtract"):
                op = self._through_eltwise(op, parent)
            elif parent.type == "Convert":
                op = self._through_convert(op, parent)
            elif parent.type == "Constant":
                self._into_constant(op, parent)
                op = None
            else:
                op = None
        return True

    def _clone(self, op: Node, data: Output) -> Node:
        out = op.output()
        return self.graph.add_node(op.type, [data, op.input_value(1)], outputs=[(data.element_type, out.shape)],
                                   attrs=dict(op.attrs), version=op.version)

    def _replace(self, op: Node, new: Node) -> None:
        op.output().replace_all_uses_with(new.output())
        remove_unused(op)

    def _through_eltwise(self, op: Node, eltwise: Node) -> Node | None:
        index = constant_branch(eltwise)
        if index is None:
            return None
        side = eltwise.input_node(index)
        constant = side.input_node(0) if side.type == "Convert" else side
        value = self.eltwise_constant(op, eltwise, constant.value)
        if value is None:
            return None
        new_op = self._clone(op, eltwise.input_value(1 - index))
        new_side = self.graph.add_constant(value, constant.constant_data.element_type).output()
        if side.type == "Convert":
            target = side.output().element_type
            new_side = self.graph.add_node("Convert", [new_side], outputs=[(target, new_side.shape)],
                                           attrs=dict(side.attrs)).output()
        inputs = [new_op.output(), new_side] if index == 1 else [new_side, new_op.output()]
        out_type = eltwise.output().element_type
        shape = broadcast_shapes(new_op.output().shape, new_side.shape)
        new_eltwise = self.graph.add_node(eltwise.type, inputs, attrs=dict(eltwise.attrs), version=eltwise.version,
                                          outputs=[(out_type, shape)])
        self._replace(op, new_eltwise)
        return new_op

    def _through_convert(self, op: Node, convert: Node) -> Node:
        new_op = self._clone(op, convert.input_value(0))
        out = convert.output()
        new_convert = self.graph.add_node("Convert", [new_op.output()],
                                          outputs=[(out.element_type, new_op.output().shape)],
                                          attrs=dict(convert.attrs), version=convert.version)
        self._replace(op, new_convert)
        return new_op

    def _into_constant(self, op: Node, constant: Node) -> None:
        folded = self.graph.add_constant(self.fold(op, constant.value), constant.constant_data.element_type)
        self._replace(op, folded)
