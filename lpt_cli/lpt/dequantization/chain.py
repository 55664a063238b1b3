"""The dequantization model: `data -> [Convert] -> [Subtract(zp)] -> [Multiply(scale)]`.

Every transformation asks the same question of an input: which Convert/Subtract/Multiply
chain sits in front of it, with which constants. `get_dequantization` answers it once, the
way OpenVINO's LPT does (including its quirks: a Convert alone is "empty", a Multiply that
broadcasts its data is not a dequantization, f16/f32 Converts count as dequantization).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ...ir import GraphError, Node, Output
from ...ir.eltypes import LOW_PRECISION, ElementType, element_type

_EXTRA_CONVERT_INPUTS = frozenset(element_type(n) for n in ("i4", "u4", "f32", "f16"))


@dataclass
class Dequantization:
    """One dequantization chain; absent parts are None. `data` is what the chain dequantizes."""

    data: Output | None = None
    convert: Node | None = None
    subtract: Node | None = None
    subtract_convert: Node | None = None
    subtract_constant: Node | None = None
    multiply: Node | None = None
    multiply_constant: Node | None = None
    channel_dim: int = 1

    @property
    def empty(self) -> bool:
        return self.subtract is None and self.multiply is None

    @property
    def source(self) -> Output:
        """`data` where a caller relies on it being known (a chain was looked for at an
        existing input): a GraphError when it is not, instead of a TypeError on None."""
        if self.data is None:
            raise GraphError("no dequantization data: the chain was not found")
        return self.data

    @property
    def is_low_precision(self) -> bool:
        return self.data is not None and self.data.element_type in LOW_PRECISION

    @property
    def nodes(self) -> list[Node]:
        """The chain's operation nodes, top to bottom."""
        return [n for n in (self.convert, self.subtract, self.multiply) if n is not None]

    @property
    def last(self) -> Node | None:
        """The node whose output the dequantized consumer reads."""
        nodes = self.nodes
        return nodes[-1] if nodes else None

    def is_shared(self) -> bool:
        return any(len(n.output().uses) > 1 for n in self.nodes)

    def is_per_tensor(self) -> bool:
        if self.multiply_constant is None:
            raise ValueError("a per-tensor check needs a multiply constant")
        if self.multiply_constant.constant_data.count != 1:
            return False
        return self.subtract_constant is None or self.subtract_constant.constant_data.count == 1

    def multiply_has_zero_or_denormal(self) -> bool:
        if self.multiply_constant is None:
            return False
        scales = np.abs(self.multiply_constant.value.astype(np.float64))
        return bool(np.any((scales == 0) | (scales < 1e-32)))

    @property
    def precision(self) -> ElementType | None:
        """Type of the non-constant input of the Multiply (else of the Subtract)."""
        for node in (self.multiply, self.subtract):
            if node is not None:
                return node.input_value(data_branch(node)).element_type
        return None

    @property
    def scale(self) -> np.ndarray:
        return self.multiply_constant.value if self.multiply_constant is not None else np.array(1.0, np.float32)

    @property
    def shift(self) -> np.ndarray:
        return self.subtract_constant.value if self.subtract_constant is not None else np.array(0.0, np.float32)


def is_constant(value: Output) -> bool:
    return value.node.type == "Constant"


def is_converted_constant(value: Output) -> bool:
    node = value.node
    return node.type == "Convert" and node.input_node(0).type == "Constant"


def data_branch(eltwise: Node) -> int:
    """Index of the non-constant input of a binary dequantization op."""
    if is_constant(eltwise.input_value(1)) or is_converted_constant(eltwise.input_value(1)):
        return 0
    return 1


def constant_branch(eltwise: Node) -> int | None:
    """Index of the constant input of a binary dequantization op (a Constant or
    Convert(Constant), input 1 first), or None."""
    for index in (1, 0):
        value = eltwise.input_value(index)
        if is_constant(value) or is_converted_constant(value):
            return index
    return None


def constant_is_per_channel(eltwise: Node, constant: Node, channel_dim: int) -> bool:
    """FakeQuantizeDequantization::checkElementwise: `constant` is one value, or varies along
    the whole channel axis of `eltwise`'s output only."""
    shape = constant.constant_data.shape
    if len(shape) > 5:
        return False
    if math.prod(shape) == 1:
        return True
    out = eltwise.output().shape
    if out is None or channel_dim >= len(out) or out[channel_dim] < 0:
        return False
    channels = out[channel_dim]
    if len(shape) == 1:
        return shape[0] == channels
    if len(shape) > len(out):
        return False
    axis = channel_dim - (len(out) - len(shape))
    if axis < 0:
        return False
    return all(dim == 1 or (i == axis and dim == channels) for i, dim in enumerate(shape))


def check_shape(eltwise: Node, data_index: int) -> bool:
    """The data input (`data_index`) must not be broadcast by the constant (same rank, same static dims)."""
    data = eltwise.input_value(data_index).shape
    out = eltwise.output().shape
    if data == out:  # the common case, without the per-dimension walk below
        return True
    if data is None or out is None:
        return False
    if len(data) != len(out):
        return False
    return all(d == o for d, o in zip(data, out) if d >= 0 and o >= 0)


def subtract_constant_branch(eltwise: Node) -> tuple[int, Node | None, Node | None]:
    """(branch, convert, constant) of a Subtract's zero point: a real Constant or Convert(Constant)."""
    for branch in (1, 0):
        node = eltwise.input_node(branch)
        if node.type == "Convert":
            if node.output().element_type.is_real and node.input_node(0).type == "Constant":
                return branch, node, node.input_node(0)
        elif node.type == "Constant" and eltwise.input_value(branch).element_type.is_real:
            return branch, None, node
    return -1, None, None


def channel_dim_of(data: Output) -> int:
    if data.node.type == "MatMul" and data.index == 0 and data.rank is not None:
        return data.rank - 1
    return 0 if data.rank == 1 else 1


def get_dequantization(node: Node, default_precisions: Iterable[ElementType],
                       input_index: int = 0, in_place: bool = False) -> Dequantization:
    """The chain feeding `node.inputs[input_index]` (or ending at `node` when `in_place`)."""
    if in_place:
        current: Output = node.output()
    elif input_index >= len(node.inputs):
        return Dequantization()
    else:
        current = node.input_value(input_index)
    dq = Dequantization(data=current)
    if current.node.type == "Multiply":
        multiply = current.node
        data_index = data_branch(multiply)
        if not check_shape(multiply, data_index):
            return Dequantization()
        for slot in (multiply.inputs[1], multiply.inputs[0]):  # the scale: a real Constant, input 1 first
            if slot.source.node.type == "Constant" and slot.source.element_type.is_real:
                break
        else:
            return Dequantization()
        dq.multiply, dq.multiply_constant = multiply, slot.source.node
        current = multiply.input_value(data_index)
        dq.data = current
    if current.node.type == "Subtract":
        subtract = current.node
        branch, convert, constant = subtract_constant_branch(subtract)
        if branch < 0 or not check_shape(subtract, data_branch(subtract)):
            dq.channel_dim = channel_dim_of(current)
            return dq
        dq.subtract, dq.subtract_convert, dq.subtract_constant = subtract, convert, constant
        current = subtract.input_value(1 - branch)
        dq.data = current
    if current.node.type == "Convert":
        source = current.node.input_value(0).element_type
        if source in default_precisions or source in _EXTRA_CONVERT_INPUTS:
            dq.convert = current.node
            current = current.node.input_value(0)
            dq.data = current
    dq.channel_dim = channel_dim_of(current)
    return dq


def get_dequantization_below(node: Node, convert_is_mandatory: bool = False) -> Dequantization:
    """NetworkHelper::getDequantizationBelow: the Convert -> Subtract -> Multiply chain that
    follows `node`'s output 0 (always through the first consumer)."""
    data = node.output()
    if not data.uses:
        return Dequantization()
    dq = Dequantization(data=data)
    last = data.uses[0].node
    if convert_is_mandatory and last.type != "Convert":
        return Dequantization()
    if last.type == "Convert":
        source = last.input_value(0).element_type.name
        if source not in ("i8", "u8") and last.output().element_type.name != "f32":
            return Dequantization()
        if len(last.output().uses) != 1:
            return Dequantization()
        dq.convert = last
        last = last.output().uses[0].node
    if last.type == "Subtract":
        _, convert, constant = subtract_constant_branch(last)
        if constant is not None and len(last.output().uses) == 1:
            dq.subtract, dq.subtract_convert, dq.subtract_constant = last, convert, constant
            last = last.output().uses[0].node
    if last.type == "Multiply":
        constant = next((last.input_node(i) for i in (1, 0) if last.input_node(i).type == "Constant"
                         and last.input_value(i).element_type.is_real), None)
        if constant is not None:
            dq.multiply, dq.multiply_constant = last, constant
    dq.channel_dim = channel_dim_of(data)
    return dq
