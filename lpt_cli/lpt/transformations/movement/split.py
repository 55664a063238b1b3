"""Split: the dequantization is rebuilt behind every output, its constants split like the data.

Split has several outputs, so it cannot use the one-output `move_dequantization_after`; a
dequantization along any axis can follow (no per-channel check, as in OpenVINO).
"""
from __future__ import annotations

import numpy as np

from ....ir import Graph, Node, Output
from ....ir.eltypes import ElementType
from ....ir.legalize import MAT_MUL_ZERO_POINT, MatMulZeroPoint
from ....ir.shapes import broadcast_shapes
from ...surgery.channel_constants import constants, with_leading_ones
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.constants import remove_unused, to_scalar_if_possible
from ...surgery.moving import redirect_consumers, separate_in_standalone_branch
from ...engine.transformation import Transformation


class SplitTransformation(Transformation):
    name = "SplitTransformation"

    def applies_to(self, node: Node) -> bool:
        return (super().applies_to(node) and node.input_node(0).type == "Multiply"
                and node.input_node(1).type == "Constant")

    def section_sizes(self, node: Node, length: int) -> list[int]:
        """Sizes of the pieces an axis of `length` is split into."""
        parts = node.attr_int("num_splits", len(node.outputs)) or 1
        return [length // parts] * parts

    def transform(self, node: Node) -> bool:
        precisions = tuple(self.config.default_precisions)
        dq = get_dequantization(node, precisions)
        if dq.empty or dq.multiply is None:
            return self.reject(node, "no_dequantization", "input 0 has no dequantization Multiply")
        if node.input_value(0).rank is None:
            return self.reject(node, "dynamic_rank", "the input rank is dynamic")
        separate_in_standalone_branch(node, precisions)
        dq = get_dequantization(node, precisions)
        assert dq.multiply is not None, "separating the branch keeps its scale"
        pieces = {part: self._split_constant(node, dq, part, const) for part, const in constants(dq)}
        node.set_input(0, dq.source)
        for out in node.outputs:
            out.element_type = dq.source.element_type
        for index, out in enumerate(node.outputs):
            consumers = out.consumers()
            last = _dequantize(self.graph, out, dq, {p: v[index] for p, v in pieces.items()})
            redirect_consumers(consumers, last.output(), out)
            _rename_for_result(node, last, index)
        remove_unused(dq.multiply)
        return True

    def _split_constant(self, node: Node, dq: Dequantization, part: str, constant: Node) -> list[np.ndarray]:
        owner = dq.subtract if part == "subtract" else dq.multiply
        assert owner is not None, "constants() yields the parts present"
        value = with_leading_ones(constant.value, owner.output().rank or 0)
        count = len(node.outputs)
        axis = node.axis(int(node.input_node(1).value.reshape(-1)[0]), node.input_value(0).rank or 0)
        if value.size == 1 or value.shape[axis] == 1:
            return [to_scalar_if_possible(value)] * count
        sizes = self.section_sizes(node, value.shape[axis])
        bounds = np.cumsum(sizes)[:-1]
        return [to_scalar_if_possible(piece) for piece in np.split(value, bounds, axis=axis)]


def _dequantize(graph: Graph, out: Output, dq: Dequantization, values: dict[str, np.ndarray]) -> Node:
    """Convert -> Subtract -> Multiply behind one output of the split, like the original chain."""
    parent = out
    if dq.convert is not None:
        target = dq.convert.output().element_type
        parent = graph.add_node("Convert", [parent], outputs=[(target, out.shape)],
                                attrs={"destination_type": target.name}).output()
    if dq.subtract_constant is not None:  # (set together with dq.subtract)
        zero_point = graph.add_constant(values["subtract"], dq.subtract_constant.constant_data.element_type).output()
        if zero_point.element_type != parent.element_type:
            zero_point = graph.add_node("Convert", [zero_point], outputs=[(parent.element_type, zero_point.shape)],
                                        attrs={"destination_type": parent.element_type.name}).output()
        parent = _binary(graph, "Subtract", parent, zero_point, parent.element_type)
        record = dq.subtract.annotations.get(MAT_MUL_ZERO_POINT) if dq.subtract is not None else None
        if record is not None and zero_point.node.type == "Constant":  # a MatMul's `z @ B`, now a slice of it
            parent.node.annotations[MAT_MUL_ZERO_POINT] = MatMulZeroPoint(record.zero_point, zero_point.node.constant_data)
    assert dq.multiply is not None and dq.multiply_constant is not None, "a split moves only chains with a scale"
    scale = graph.add_constant(values["multiply"], dq.multiply_constant.constant_data.element_type).output()
    return _binary(graph, "Multiply", parent, scale, dq.multiply.output().element_type).node


def _binary(graph: Graph, op: str, left: Output, right: Output, etype: ElementType) -> Output:
    shape = broadcast_shapes(left.shape, right.shape)
    return graph.add_node(op, [left, right], outputs=[(etype, shape)]).output()


def _rename_for_result(split: Node, last: Node, index: int) -> None:
    """An output that feeds a Result is named `<split>.<index>`, as OpenVINO names it."""
    if not any(use.node.type == "Result" for use in last.output().uses):
        return
    graph = split.graph
    base = split.name.removesuffix("_original")
    if not split.name.endswith("_original"):
        graph.rename(split, graph.unique_name(f"{base}_original"))
    graph.rename(last, graph.unique_name(f"{base}.{index}"))
