"""MultiplyPartialTransformation: `(s1*(x1 - z1)) * (s2*x2) = (s1*s2*(x1 - z1)) * x2`.

The "empty" branch is multiplied in low precision as it is (it must have no zero point);
its scale joins the "full" branch's scale. With a constant operand, the constant is folded
into the dequantization scale instead.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType, f32
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.fold_dequantization import empty_values, fold_dequantization, is_zero_constant
from .eltwise_base import (binary, eltwise_can_be_transformed, full_branch_index, multiply_const_branch,
                       replace_node)
from ...dequantization.fake_quantize_math import fold_fake_quantize
from ...surgery.constants import fold_convert, remove_unused, value_of
from ...surgery.moving import separate_in_standalone_branch
from ...engine.transformation import Transformation


def _fold_fake_quantize_inputs(multiply: Node) -> None:
    """An FQ on a constant feeding the Multiply becomes that constant's quantized value."""
    for slot in multiply.inputs:
        fq = slot.source.node
        if fq.type != "FakeQuantize":
            continue
        folded = fold_fake_quantize(fq, round_values=not fq.output().element_type.is_real)
        if folded is not None:
            fq.output().replace_all_uses_with(folded)
            remove_unused(fq)


def _optimal_precision(empty: Dequantization, full: Dequantization, deq: ElementType) -> ElementType:
    """The data's own float type when both branches are alike and real, else deq_precision."""
    if empty.empty or full.empty:
        return deq
    data_type = empty.source.element_type
    alike = empty.precision == full.precision and data_type == full.source.element_type
    return data_type if alike and data_type.is_real else deq


class MultiplyPartialTransformation(Transformation):
    name = "MultiplyPartialTransformation"
    revisits_created = False

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        dqs = [get_dequantization(node, precisions, i) for i in (0, 1)]
        if any(dq.data is None for dq in dqs):
            return self.reject(node, "no_data", "an input is not a dequantizable value")
        constant_operand = any(dq.source.node.type == "Constant" for dq in dqs)
        if any(dq.empty for dq in dqs) and not constant_operand:
            return self.reject(node, "not_quantized", "both inputs need a dequantization")
        if not eltwise_can_be_transformed(node, precisions):
            return self.reject(node, "not_quantized", "no usable dequantization on either input")
        stale_inputs = separate_in_standalone_branch(node, precisions)
        _fold_fake_quantize_inputs(node)
        full = full_branch_index(node, self.config, stale_inputs)
        if full == -1:
            return self._with_constant(node)
        return self._with_two_branches(node, full)

    def _with_constant(self, multiply: Node) -> bool:
        precisions, graph = self.config.default_precisions, multiply.graph
        branch, data_index = multiply_const_branch(multiply, precisions)
        if branch != -1:
            fold_dequantization(multiply, 1 - branch, precisions)
        if branch == -1 or data_index == -1:
            fold_dequantization(multiply, 0, precisions)
            fold_dequantization(multiply, 1, precisions)
            return self.reject(multiply, "no_scale", "no dequantization Multiply next to the constant")
        inner = multiply.input_node(branch)
        scale = self._product(fold_convert(graph, inner.input_value(1 - data_index), f32),
                              fold_convert(graph, multiply.input_value(1 - branch), f32))
        new = binary(graph, "Multiply", inner.input_value(data_index), scale, multiply.output().element_type)
        replace_node(multiply, new)
        return True

    @staticmethod
    def _product(a: Output, b: Output) -> Output:
        """a*b folded to a Constant when both are constant, else a Multiply node."""
        va, vb = value_of(a), value_of(b)
        if a.node.type == "Constant" and b.node.type == "Constant" and va is not None and vb is not None:
            return a.node.graph.add_constant(np.multiply(va, vb), a.element_type).output()
        return binary(a.node.graph, "Multiply", a, b, a.element_type).output()

    def _with_two_branches(self, multiply: Node, full: int) -> bool:
        precisions, graph = self.config.default_precisions, multiply.graph
        empty = 1 - full
        dq_empty = get_dequantization(multiply, precisions, empty)
        if self.config.update_precisions and not dq_empty.empty and not dq_empty.is_low_precision:
            return self.reject(multiply, "not_low_precision", "the low-precision branch is not integral")
        dq_empty = fold_dequantization(multiply, empty, precisions)
        dq_full = fold_dequantization(multiply, full, precisions)
        precision = _optimal_precision(dq_empty, dq_full, self.config.deq_precision)
        shift_e, scale_e = empty_values(dq_empty, precision)
        if not is_zero_constant(shift_e):
            return self.reject(multiply, "zero_point", "the low-precision branch has a zero point")
        _, scale_f = empty_values(dq_full, precision)
        scale = graph.add_constant(np.multiply(scale_e, scale_f), precision).output()
        head = dq_full.subtract or dq_full.convert
        parent0 = head.output() if head is not None else dq_full.source
        out_type = parent0.element_type if parent0.element_type == scale.element_type else f32
        scaled = binary(graph, "Multiply", parent0, scale, out_type).output()
        inputs = [scaled, dq_empty.source] if full == 0 else [dq_empty.source, scaled]
        new = binary(graph, "Multiply", inputs[0], inputs[1], multiply.output().element_type)
        replace_node(multiply, new)
        fold_dequantization(new, full, precisions)
        return True
