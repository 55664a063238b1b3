"""AddTransformation: `s1*(x1 - z1) + s2*(x2 - z2) = s2 * (s1/s2 * (x1 - z1') + x2)`.

One input (the "empty" branch) is added in low precision as it is; the other ("full") branch
gets a recomputed dequantization and one Multiply by s2 follows the Add. With a constant
input, `x*a + b` becomes `(x + b/a) * a`, and the Add is then folded into the zero point.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import f32
from ....ir.legalize import MAT_MUL_ZERO_POINT, SWAPPED_ADD, MatMulZeroPoint, SwappedAdd
from ...dequantization.attributes import is_bias
from ...dequantization.chain import get_dequantization
from ...surgery.fold_dequantization import empty_values, fold_dequantization, is_zero_constant
from .eltwise_base import (binary, eltwise_can_be_transformed, full_branch_index, multiply_const_branch,
                       name_after_original, replace_node, swap_multiply_and_add)
from ...surgery.constants import fold_convert
from ...surgery.moving import separate_in_standalone_branch
from ...engine.transformation import Transformation


def _fuse_with_subtract(add: Node) -> Node | None:
    """Add(Subtract(x, c), b) -> Subtract(x, c - b)."""
    sub = add.input_node(0)
    if sub.type != "Subtract" or sub.input_node(1).type != "Constant" or add.input_node(1).type != "Constant":
        return None
    value = sub.input_node(1).value.astype(np.float32) - add.input_node(1).value.astype(np.float32)
    shift = add.graph.add_constant(value, sub.input_value(1).element_type)
    new = binary(add.graph, "Subtract", sub.input_value(0), shift.output(), add.output().element_type)
    replace_node(add, new)
    return new


def _replace_to_subtract(add: Node) -> Node | None:
    """Add(x, c) that is not a bias -> Subtract(x, -c)."""
    if add.type != "Add" or is_bias(add):
        return None
    const_index = next((i for i in (0, 1) if add.input_node(i).type == "Constant"), None)
    if const_index is None:
        return None
    constant = add.input_node(const_index)
    negated = add.graph.add_constant(-constant.value, constant.constant_data.element_type)
    new = binary(add.graph, "Subtract", add.input_value(1 - const_index), negated.output(),
                 add.output().element_type)
    replace_node(add, new)
    return new


def _keep_mat_mul_zero_point(old: Node | None, new: Node, old_shift: np.ndarray) -> None:
    """The full branch's `z @ B` Subtract after a MatMul, rebuilt with the same values (the other
    branch has no zero point), stays one the runtime dialect writes back before the MatMul."""
    record = old.annotations.get(MAT_MUL_ZERO_POINT) if old is not None else None
    shift = new.input_node(1)
    if record is not None and np.array_equal(shift.value, np.broadcast_to(old_shift, shift.value.shape)):
        new.annotations[MAT_MUL_ZERO_POINT] = MatMulZeroPoint(record.zero_point, shift.constant_data)


class AddTransformation(Transformation):
    name = "AddTransformation"
    revisits_created = False

    def transform(self, node: Node) -> bool:
        if self.config.param("skip_bias_add", False) and is_bias(node):
            return self.reject(node, "bias", "a bias Add: the plugin config keeps it for its kernels")
        precisions = self.config.default_precisions
        if any(get_dequantization(node, precisions, i).multiply_has_zero_or_denormal() for i in (0, 1)):
            return self.reject(node, "zero_scale", "a dequantization scale is zero or denormal")
        if not eltwise_can_be_transformed(node, precisions):
            return self.reject(node, "not_quantized", "no usable dequantization on either input")
        stale_inputs = separate_in_standalone_branch(node, precisions)
        full = full_branch_index(node, self.config, stale_inputs)
        if full == -1:
            return self._with_constant(node)
        return self._with_two_branches(node, full)

    def _with_constant(self, add: Node) -> bool:
        precisions = self.config.default_precisions
        multiply_branch, _ = multiply_const_branch(add, precisions)
        if multiply_branch == -1:
            fold_dequantization(add, 0, precisions)
            fold_dequantization(add, 1, precisions)
            return self.reject(add, "no_scale", "no dequantization Multiply next to the constant")
        fold_dequantization(add, 1 - multiply_branch, precisions)
        name = add.name
        constant = add.input_node(1 - multiply_branch)
        original = SwappedAdd(constant.constant_data, name) if constant.type == "Constant" else None
        multiply = swap_multiply_and_add(add, multiply_branch)
        if multiply is add:
            return self.reject(add, "no_scale", "the dequantization Multiply has no constant")
        inner = multiply.input_node(0)
        if inner.type == "Add":
            fused = _fuse_with_subtract(inner)
            if fused is None and original is not None:  # the runtime dialect may write x*a + b back
                multiply.annotations[SWAPPED_ADD] = original
            inner = fused or _replace_to_subtract(inner) or inner
        if any(use.node.type == "Result" for use in multiply.output().uses):  # updateOutput
            graph = add.graph
            graph.rename(inner, graph.unique_name(f"{name}_original"))
            graph.rename(multiply, graph.unique_name(name))
        return True

    def _with_two_branches(self, add: Node, full: int) -> bool:
        precisions, graph = self.config.default_precisions, add.graph
        empty = 1 - full
        dq_empty = get_dequantization(add, precisions, empty)
        if self.config.update_precisions and not dq_empty.empty and not dq_empty.is_low_precision:
            return self.reject(add, "not_low_precision", "the low-precision branch is not integral")
        deq = self.config.deq_precision
        dq_empty = fold_dequantization(add, empty, precisions)
        shift_e, scale_e = empty_values(dq_empty, deq)
        dq_full = fold_dequantization(add, full, precisions)
        shift_f, scale_f = empty_values(dq_full, deq)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            new_shift = (shift_f + (shift_e * scale_e) / scale_f).astype(deq.dtype)
            new_scale = (scale_f / scale_e).astype(deq.dtype)
        if not (np.all(np.isfinite(new_shift)) and np.all(np.isfinite(new_scale))):
            return self.reject(add, "infinite_scale", "the recomputed dequantization overflows")
        full_input: Output = dq_full.convert.output() if dq_full.convert is not None else dq_full.source
        parent = fold_convert(graph, full_input, deq)
        if not is_zero_constant(new_shift):
            shift = graph.add_constant(new_shift, deq)
            parent = binary(graph, "Subtract", parent, shift.output(), deq).output()
            _keep_mat_mul_zero_point(dq_full.subtract, parent.node, shift_f)
        parent = binary(graph, "Multiply", parent, graph.add_constant(new_scale, deq).output(), deq).output()
        inputs = [parent, dq_empty.source] if full == 0 else [dq_empty.source, parent]
        new_add = binary(graph, "Add", inputs[0], inputs[1], f32)
        scale = graph.add_constant(scale_e, deq)
        new_multiply = binary(graph, "Multiply", new_add.output(), scale.output(), add.output().element_type)
        name = add.name
        replace_node(add, new_multiply)
        name_after_original(name, new_add, new_multiply)
        return True
