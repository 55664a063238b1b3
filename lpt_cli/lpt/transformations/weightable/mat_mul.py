"""MatMulTransformation: a quantized MatMul multiplies u8/i8 data by i8 weights.

`(s_a * (A - z)) @ (s_b * B) = s_a * s_b * (A @ B - z @ B)` when s_a does not vary along
the columns of A and s_b not along the rows of B (the reduction axis). The zero point of A
becomes a constant `z @ B` subtracted after the MatMul (B must be constant; it is summed as
OpenVINO folds it, reading B once: in_order_dot.py, and only when the value is first read: the
runtime dialect drops it unread); the weights must be symmetric.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.constant import ConstantData
from ....ir.eltypes import element_type, f32
from ....ir.legalize import MAT_MUL_ZERO_POINT, MatMulZeroPoint
from ...dequantization.attributes import precisions_of
from ...engine.layer_checks import is_constant_path
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.rewrites import optimize_subtract
from ...dequantization.fake_quantize_math import decompose_fake_quantize
from ...surgery.constants import cast, constant, is_scalar_like, remove_unused, round_half_away, to_scalar_if_possible
from ...surgery.moving import redirect_consumers, rename_for_result, separate_in_standalone_branch
from ...dequantization.precision import constant_intervals, get_data_precision, get_details
from ...engine.transformation import Transformation
from .in_order_dot import dot_in_order, leading_pair
from .weights_input import output_precisions


def swap_last_axes(value: np.ndarray) -> np.ndarray:
    """The constant with its last two dims transposed (a transposed MatMul operand)."""
    return np.swapaxes(value, -1, -2) if np.ndim(value) >= 2 else value


def _varies_along(scale: np.ndarray, rank: int, axis: int) -> bool:
    """A same-rank, non scalar-like scale with more than one value along `axis`."""
    return not is_scalar_like(scale) and np.ndim(scale) == rank and np.shape(scale)[axis] != 1


class MatMulTransformation(Transformation):
    name = "MatMulTransformation"

    def applies_to(self, node: Node) -> bool:
        return node.input_node(0).type == "Multiply" and node.input_node(1).type in ("Multiply", "FakeQuantize")

    @property
    def defaults(self) -> tuple:
        return tuple(self.config.default_precisions)

    def transform(self, node: Node) -> bool:
        reason = self.cannot_transform(node)
        if reason is not None:
            return self.reject(node, "not_supported", reason)
        separate_in_standalone_branch(node, self.defaults)
        dq_a = get_dequantization(node, self.defaults, 0)
        dq_b = self.quantized_weights(node)
        if dq_b is None:
            return self.reject(node, "weights_not_quantized", "the weights FakeQuantize has no integer precision")
        self.rebuild(node, dq_a, dq_b)
        return True

    def cannot_transform(self, node: Node) -> str | None:
        """MatMulTransformation::canBeTransformed, as the reason it fails (None: it can)."""
        if any(out.rank is None for out in node.outputs):
            return "dynamic output rank"
        transpose_a, transpose_b = node.attr_bool("transpose_a"), node.attr_bool("transpose_b")
        dq_a = get_dequantization(node, self.defaults, 0)
        update = self.config.update_precisions
        if dq_a.empty or (update and not dq_a.is_low_precision):
            return "no low-precision dequantization on input 0"
        if dq_a.multiply is None:
            return "no dequantization scale on input 0"
        rank_a = len(dq_a.multiply.output().dims)
        if _varies_along(dq_a.scale, rank_a, rank_a - 2 if transpose_a else rank_a - 1):
            return "input 0 scale varies along the reduction axis"
        self.fold_converted_scale(node)
        dq_b = get_dequantization(node, self.defaults, 1)
        if not dq_b.empty:
            if update and not dq_b.is_low_precision:
                return "weights dequantization is not low precision"
            if dq_b.subtract is not None and np.any(cast(round_half_away(dq_b.shift), dq_b.source.element_type) != 0):
                return "weights zero point"
            if dq_b.multiply is None:
                return "weights dequantization has no scale"
            rank_b = len(dq_b.multiply.output().dims)
            if _varies_along(dq_b.scale, rank_b, rank_b - 1 if transpose_b else rank_b - 2):
                return "weights scale varies along the reduction axis"
        fq = node.input_node(1)
        if fq.type == "FakeQuantize":
            reason = self.weights_fake_quantize_problem(node, fq, transpose_b)
            if reason is not None:
                return reason
        elif dq_b.empty:
            return "weights are not quantized"
        if dq_a.subtract is not None and not is_constant_path(node.input_node(1)):
            return "zero point on input 0 with non-constant weights"
        return None

    def fold_converted_scale(self, node: Node) -> None:
        """A weights scale behind a Convert (kept by weights decompression) becomes a Constant."""
        multiply = node.input_node(1)
        if multiply.type != "Multiply" or multiply.input_node(1).type != "Convert":
            return
        convert = multiply.input_node(1)
        if convert.input_node(0).type == "Constant":
            out = convert.output()
            multiply.set_input(1, constant(self.graph, convert.input_node(0).value, out.element_type))
            remove_unused(convert)

    def weights_fake_quantize_problem(self, node: Node, fq: Node, transpose_b: bool) -> str | None:
        if not constant_intervals(fq):
            return "weights FakeQuantize intervals are not constant"
        required = precisions_of(node.inputs[1])
        details = get_details(fq)
        assert details is not None, "constant_intervals checked"
        precision = get_data_precision(details, list(self.defaults) if required is None else required)
        if precision is None or precision.has_zero_point:
            return "weights FakeQuantize needs a zero point"
        rank = len(fq.output().dims)
        rows = rank - 1 if transpose_b else rank - 2
        for index in (3, 4):
            shape = fq.input_value(index).dims
            if len(shape) == rank and shape[rows] != 1:
                return "weights FakeQuantize varies along the reduction axis"
        return None

    def quantized_weights(self, node: Node) -> Dequantization | None:
        """The weights dequantization, after decomposing a weights FQ and dropping a zero
        point that rounds to 0; None when the FQ has no integer precision."""
        dq = get_dequantization(node, self.defaults, 1)
        fq = dq.data.node if dq.empty and dq.data is not None else None
        if fq is not None and fq.type == "FakeQuantize":
            details = get_details(fq)
            precision = None if details is None else get_data_precision(details, output_precisions(fq, self.defaults))
            if precision is None:
                return None
            decompose_fake_quantize(fq, precision.precision, precision.min, precision.max,
                                    precision.has_zero_point, self.config.update_precisions)
            remove_unused(fq)
            dq = get_dequantization(node, self.defaults, 1)
        if dq.subtract is not None:
            optimize_subtract(dq.subtract)
            dq = get_dequantization(node, self.defaults, 1)
        return dq

    def rebuild(self, node: Node, dq_a: Dequantization, dq_b: Dequantization) -> None:
        """MatMul(A, B) on the integer data, then [- z @ B], then * (s_a * s_b)."""
        graph = self.graph
        transpose_a, transpose_b = node.attr_bool("transpose_a"), node.attr_bool("transpose_b")
        assert dq_a.multiply is not None, "can_be_transformed required a scale on input 0"
        out_type = dq_a.multiply.output().element_type
        scale = self.output_scale(node, dq_a, dq_b, transpose_a, transpose_b)
        old_inputs = [node.input_node(0), node.input_node(1)]
        node.set_input(0, dq_a.source)
        node.set_input(1, dq_b.source)
        for old in old_inputs:
            remove_unused(old)
        out = node.output()
        out.element_type = self.config.deq_precision
        consumers = out.consumers()
        parent: Output = out
        if dq_a.subtract is not None:
            shift = self.zero_point_after(node, dq_a, transpose_a, transpose_b)
            parent = graph.add_node("Subtract", [out, shift], outputs=[(out.element_type, out.shape)]).output()
            if shift.node.type == "Constant":
                parent.node.annotations[MAT_MUL_ZERO_POINT] = MatMulZeroPoint(np.asarray(dq_a.shift, np.float32),
                                                                              shift.node.constant_data)
        scale_const = graph.add_constant(cast(scale, f32), f32).output()
        multiply = graph.add_node("Multiply", [parent, scale_const], outputs=[(out_type, out.shape)],
                                  name=graph.unique_name(f"{node.name}/DequantizationMultiply"))
        redirect_consumers(consumers, multiply.output(), out)
        rename_for_result(node, multiply)

    def output_scale(self, node: Node, dq_a: Dequantization, dq_b: Dequantization,
                     transpose_a: bool, transpose_b: bool) -> np.ndarray:
        """s_a * s_b with both scales laid out like the MatMul output."""
        scale_a = swap_last_axes(dq_a.scale) if transpose_a else dq_a.scale
        scale_b = swap_last_axes(dq_b.scale) if transpose_b else dq_b.scale
        if is_scalar_like(scale_b):
            scale_b = to_scalar_if_possible(scale_b)
        else:
            rank = len(node.input_value(0).dims)
            scale_b = np.reshape(scale_b, (1,) * max(0, rank - np.ndim(scale_b)) + np.shape(scale_b))
        product = np.multiply(scale_a.astype(np.float32), scale_b.astype(np.float32))
        return to_scalar_if_possible(product)

    def zero_point_after(self, node: Node, dq_a: Dequantization, transpose_a: bool, transpose_b: bool) -> Output:
        """`z @ B`: the zero point of A broadcast over the reduction axis, multiplied by B."""
        shift = dq_a.shift
        assert dq_a.subtract is not None, "called for a zero point only"
        subtract_rank = len(dq_a.subtract.output().dims)
        shape = [1] * subtract_rank if is_scalar_like(shift) else list(np.shape(shift))
        weights = node.input_value(1)
        k = weights.dims[-1] if transpose_b else weights.dims[-2]
        shape[-2 if transpose_a else -1] = k
        zero_points = np.broadcast_to(np.asarray(shift, dtype=np.float32).reshape(
            (1,) * (len(shape) - np.ndim(shift)) + np.shape(shift)), shape)
        if weights.node.type != "Constant":  # a constant path LPT cannot fold: keep the MatMul
            return self.zero_point_mat_mul(node, zero_points, weights)
        lhs = np.array(swap_last_axes(zero_points) if transpose_a else zero_points)
        data = weights.node.constant_data
        pair = leading_pair(lhs, data, transpose_b)
        if pair is not None and pair[0] != pair[1]:  # not one value repeated, so not a scalar
            out_shape = (*lhs.shape[:-1], data.shape[0] if transpose_b else data.shape[1])
            later = ConstantData.deferred(element_type(self.config.deq_precision), out_shape,
                                          lambda: dot_in_order(lhs, data, transpose_b))
            return self.graph.add_constant_data(later).output()
        value = to_scalar_if_possible(dot_in_order(lhs, data, transpose_b))
        return self.graph.add_constant(value, self.config.deq_precision).output()

    def zero_point_mat_mul(self, node: Node, zero_points: np.ndarray, weights: Output) -> Output:
        """`z @ B` as a MatMul node when B is computed from constants by ops lpt does not fold."""
        graph = self.graph
        lhs = graph.add_constant(np.array(zero_points), f32).output()
        rhs = weights if weights.element_type == f32 else graph.add_node(
            "Convert", [weights], outputs=[(f32, weights.shape)], attrs={"destination_type": "f32"}).output()
        out_shape = None
        if weights.is_static:
            a = np.zeros(zero_points.shape)
            b = np.zeros(weights.dims)
            a = swap_last_axes(a) if node.attr_bool("transpose_a") else a
            b = swap_last_axes(b) if node.attr_bool("transpose_b") else b
            out_shape = np.matmul(a, b).shape
        return graph.add_node("MatMul", [lhs, rhs], outputs=[(f32, out_shape)], attrs=dict(node.attrs)).output()
