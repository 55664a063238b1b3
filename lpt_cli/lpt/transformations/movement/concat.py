"""ConcatTransformation: concatenate the integer data, then one dequantization for the result.

Each input's scale/zero point becomes the slice of a constant concatenated along the concat
axis, so dequantizations may differ only along that axis. Markup has already aligned the
FakeQuantize intervals feeding a Concat so the integer data share one meaning.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType, from_dtype
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.constants import cast, remove_unused, to_scalar_if_possible
from ...surgery.moving import redirect_consumers, rename_for_result, separate_in_standalone_branch
from ...engine.transformation import Transformation


def concat_axis(concat: Node) -> int | None:
    rank = concat.output().rank
    if rank is None:
        return None
    axis = concat.attr_int("axis", 0)
    return axis + rank if axis < 0 else axis


def _values(constant: Node | None) -> list[float]:
    return [] if constant is None else np.asarray(constant.value, np.float32).reshape(-1).tolist()


def _only_along_axis(shape: tuple[int, ...], rank: int, axis: int) -> bool:
    """A DQ constant may vary along the concat axis alone."""
    padded = (1,) * (rank - len(shape)) + tuple(shape)
    varying = [i for i, dim in enumerate(padded) if dim > 1]
    return not varying or (len(varying) == 1 and padded[axis] != 1)


class ConcatTransformation(Transformation):
    name = "ConcatTransformation"
    revisits_created = False

    def _dq_ok(self, dq: Dequantization) -> bool:
        return not dq.empty and (not self.config.update_precisions or dq.is_low_precision)

    def can_be_transformed(self, concat: Node) -> bool:
        axis = concat_axis(concat)
        if axis is None:
            return False
        precisions = self.config.default_precisions
        dqs = [get_dequantization(concat, precisions, i) for i in range(len(concat.inputs))]
        if concat.output().dims[axis] < 0:
            return self._equal_per_tensor(dqs)
        rank = len(concat.output().dims)
        data_types, const_types = set(), set()
        for dq in dqs:
            if not self._dq_ok(dq):
                return False
            for constant in (dq.subtract_constant, dq.multiply_constant):
                if constant is not None and not _only_along_axis(constant.constant_data.shape, rank, axis):
                    return False
            data_types.add(dq.source.element_type)
            if dq.subtract_convert is not None:
                const_types.add(dq.subtract_convert.output().element_type)
            elif dq.subtract_constant is not None:
                const_types.add(dq.subtract_constant.output().element_type)
            if dq.multiply_constant is not None:
                const_types.add(dq.multiply_constant.output().element_type)
        return len(data_types) == 1 and len(const_types) <= 1

    def _equal_per_tensor(self, dqs: list[Dequantization]) -> bool:
        """A dynamic concat dimension allows only one scalar dequantization shared by all inputs."""
        ref = dqs[0]
        if not self._dq_ok(ref) or ref.multiply_constant is None or not ref.is_per_tensor():
            return False
        shifts, scales = _values(ref.subtract_constant), _values(ref.multiply_constant)
        return all(_values(dq.subtract_constant) == shifts and _values(dq.multiply_constant) == scales
                   for dq in dqs[1:])

    def transform(self, node: Node) -> bool:
        if not self.can_be_transformed(node):
            return self.reject(node, "not_aligned", "input dequantizations differ off the concat axis")
        precisions = self.config.default_precisions
        separate_in_standalone_branch(node, precisions)
        dqs = [get_dequantization(node, precisions, i) for i in range(len(node.inputs))]
        if any(dq.empty for dq in dqs):
            return self.reject(node, "no_dequantization", "an input has no dequantization")
        axis = concat_axis(node)
        assert axis is not None, "can_be_transformed found the axis"
        dynamic = node.output().dims[axis] < 0
        shifts, subtract_convert = self._shift_constants(node, dqs, axis, dynamic)
        scales = self._scale_constants(node, dqs, axis, dynamic)
        mixed = any(dq.is_low_precision for dq in dqs) and not all(dq.is_low_precision for dq in dqs)
        self._rewire(node, dqs, mixed)
        self._insert_dequantization(node, dqs, shifts, subtract_convert, scales, axis)
        return True

    def _target_shape(self, concat: Node, index: int, axis: int, dynamic: bool) -> tuple[int, ...]:
        if dynamic:
            return ()
        shape = [1] * len(concat.input_value(index).dims)
        shape[axis] = concat.input_value(index).dims[axis]
        return tuple(shape)

    @staticmethod
    def _adapt(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """The constant broadcast to the input's slice shape (its first value for a dynamic axis)."""
        value = np.asarray(value)
        if not shape:
            return value.reshape(-1)[:1].reshape(())
        while value.ndim > len(shape) and value.shape[0] == 1:
            value = value.reshape(value.shape[1:])
        return np.array(np.broadcast_to(value, shape))

    def _shift_constants(self, concat: Node, dqs: list[Dequantization], axis: int,
                         dynamic: bool) -> tuple[list[np.ndarray] | None, Node | None]:
        """Per-input zero points (0 where absent) and the Convert to reuse when all had one."""
        with_shift = [dq for dq in dqs if dq.subtract is not None]
        if not with_shift:
            return None, None
        all_convert = all(dq.subtract_convert is not None for dq in with_shift)
        last_shift = with_shift[-1].subtract_constant
        filler: ElementType = (last_shift.constant_data.element_type if all_convert and last_shift is not None
                               else self.config.deq_precision)
        values = []
        for i, dq in enumerate(dqs):
            shape = self._target_shape(concat, i, axis, dynamic)
            if dq.subtract_constant is None:
                values.append(cast(np.zeros(shape), filler))
                continue
            value = self._adapt(dq.subtract_constant.value, shape)
            if not all_convert and dq.subtract_convert is not None:
                value = cast(value, dq.subtract_convert.output().element_type)
            values.append(np.asarray(value))
        convert = next((dq.subtract_convert for dq in with_shift), None) if all_convert else None
        return values, convert

    def _scale_constants(self, concat: Node, dqs: list[Dequantization], axis: int,
                         dynamic: bool) -> list[np.ndarray] | None:
        if all(dq.multiply is None for dq in dqs):
            return None
        values = []
        for i, dq in enumerate(dqs):
            shape = self._target_shape(concat, i, axis, dynamic)
            values.append(self._adapt(dq.multiply_constant.value, shape) if dq.multiply_constant is not None
                          else cast(np.ones(shape), self.config.deq_precision))
        return values

    @staticmethod
    def _rewire(concat: Node, dqs: list[Dequantization], mixed: bool) -> None:
        """The Concat reads each input's integer data (its Convert output when types are mixed)."""
        old = [slot.source.node for slot in concat.inputs]
        for slot, dq in zip(concat.inputs, dqs):
            slot.set_source(dq.convert.output() if mixed and dq.is_low_precision and dq.convert is not None
                            else dq.source)
        for node in old:
            remove_unused(node)
        concat.output().element_type = concat.input_value(0).element_type

    def _insert_dequantization(self, concat: Node, dqs: list[Dequantization], shifts: list[np.ndarray] | None,
                               subtract_convert: Node | None, scales: list[np.ndarray] | None, axis: int) -> None:
        graph, out = concat.graph, concat.output()
        consumers = out.consumers()
        parent: Output = out
        convert = next((dq.convert for dq in dqs if dq.convert is not None), None)
        if convert is not None:
            target = convert.output().element_type
            parent = graph.add_node("Convert", [parent], outputs=[(target, out.shape)],
                                    attrs={"destination_type": target.name}).output()
        if shifts is not None:
            value = self._joined(shifts, axis)
            shift = graph.add_constant(to_scalar_if_possible(value), from_dtype(value.dtype))
            shift_out = shift.output()
            if subtract_convert is not None:
                target = subtract_convert.output().element_type
                shift_out = graph.add_node("Convert", [shift_out], outputs=[(target, shift_out.shape)],
                                           attrs={"destination_type": target.name}).output()
            parent = graph.add_node("Subtract", [parent, shift_out],
                                    outputs=[(parent.element_type, out.shape)]).output()
        if scales is not None:
            value = self._joined(scales, axis)
            scale = graph.add_constant(to_scalar_if_possible(value), from_dtype(value.dtype))
            out_type = next(dq.multiply for dq in dqs if dq.multiply is not None).output().element_type
            parent = graph.add_node("Multiply", [parent, scale.output()], outputs=[(out_type, out.shape)]).output()
        redirect_consumers(consumers, parent, out)
        rename_for_result(concat, parent.node)

    @staticmethod
    def _joined(values: list[np.ndarray], axis: int) -> np.ndarray:
        if len(values) == 1 or values[0].ndim == 0:
            return values[0]
        return np.concatenate([np.asarray(v, dtype=values[0].dtype) for v in values], axis=axis)
