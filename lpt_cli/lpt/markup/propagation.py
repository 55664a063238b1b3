"""The three generic markup rewrites OpenVINO instantiates per attribute type.

- `propagate_through_precision_preserved`: a precision-preserved node takes (and merges) the
  attributes of its producers, so a Concat shares one value with every FQ feeding it.
- `propagate_to_input`: each input takes (and merges) its producer's attribute.
- `update_shared_precision_preserved`: a quantizable consumer flips its producers' shared
  boolean to true (how AvgPool and QuantizationAlignment learn they matter).

Each returns True when it "matched" (GraphRewrite semantics: later rewrites skip the node).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ...ir import Input, Node, Output
from ...ir.eltypes import ElementType
from ..dequantization.attributes import PRECISIONS, SharedAttribute, is_precision_preserved
from ..dequantization.chain import get_dequantization


def _qdq_source_input(node: Node, index: int, default_precisions: Iterable[ElementType]) -> Input:
    """The explicit Q/DQ pattern FQ -> Convert(int) -> DQ: look through to the FQ's consumer slot."""
    if node.input_node(index).type not in ("Multiply", "Subtract"):
        return node.inputs[index]  # no dequantization ends here (asked of every input of the graph)
    dq = get_dequantization(node, default_precisions, index)
    data = dq.data
    if (not dq.empty and data is not None and data.node.type == "Convert" and len(data.node.inputs) == 1
            and data.node.input_node(0).type == "FakeQuantize"):
        return data.node.inputs[0]
    return node.inputs[index]


def source_attribute(slot: Input, key: str) -> SharedAttribute | None:
    """The attribute on the producing output port, else on the producing node."""
    output: Output = slot.source
    found = output.annotations.get(key)
    return found if found is not None else output.node.annotations.get(key)


def propagate_through_precision_preserved(node: Node, key: str, default_precisions: Iterable[ElementType]) -> bool:
    if not is_precision_preserved(node):
        return False
    parents = []
    for index in range(len(node.inputs)):
        found = source_attribute(_qdq_source_input(node, index, default_precisions), key)
        if found is not None:
            parents.append(found)
    if not parents:
        return False
    result = parents[0]
    result.merge(parents[1:])
    for other in parents[1:]:
        other.share_into(result)
    node.annotations[key] = result
    return True


def _groups(node: Node, key: str) -> list[list[int]] | None:
    """Inputs grouped by shared value (None: some input holds an empty shared value)."""
    groups: list[list[int]] = []
    index = 0
    count = len(node.inputs)
    while index < count:
        group = [index]
        groups.append(group)
        first = node.inputs[index].annotations.get(key)
        if first is not None:
            if not first.value:
                return None
            for other_index in range(index + 1, count):
                other = node.inputs[other_index].annotations.get(key)
                if other is None:
                    continue
                if not other.value:
                    return None
                if other.shared is first.shared:
                    group.append(other_index)
            index += len(group) - 1
        index += 1
    return groups


def propagate_to_input(node: Node, key: str, default_precisions: Iterable[ElementType]) -> bool:
    groups = _groups(node, key)
    if groups is None:
        return False
    for group in groups:
        result = node.inputs[group[0]].annotations.get(key)
        for index in group:
            parent = source_attribute(_qdq_source_input(node, index, default_precisions), key)
            if parent is None:
                continue
            if result is None:
                result = parent
            else:
                result.merge([parent])
                parent.share_into(result)
        if result is not None:
            for index in group:
                node.inputs[index].annotations[key] = result
    return True


def _update_source_input(slot: Input, default_precisions: Iterable[ElementType]) -> Input:
    if slot.source.node.type not in ("Multiply", "Subtract"):
        return slot  # no dequantization ends here
    dq = get_dequantization(slot.node, default_precisions, slot.index)
    data = dq.data
    if (not dq.empty and data is not None and data.node.type == "Convert"
            and data.node.input_node(0).type == "FakeQuantize" and data.uses):
        return data.uses[0]
    return slot


def update_shared_precision_preserved(node: Node, key: str, default_precisions: Iterable[ElementType],
                                      requirement: Callable[[Input], bool] | None = None) -> bool:
    """Sets the producers' shared `key` to True. With a `requirement`, every input must meet it;
    the first that does not stops the walk (earlier updates stay, as in OpenVINO)."""
    if requirement is None and node.type in ("Result", "FakeQuantize"):
        return False
    if is_precision_preserved(node) or node.type == "FakeQuantize":
        return False
    for slot in node.inputs:
        precisions = slot.annotations.get(PRECISIONS)
        if precisions is not None and not precisions.value:
            return False
    for slot in node.inputs:
        if requirement is not None and not requirement(slot):
            return False
        source = _update_source_input(slot, default_precisions).source.node
        found = source.annotations.get(key)
        if found is not None:
            found.value = True
    return True
