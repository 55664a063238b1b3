"""Collapsing a dequantization that sits on a constant, and reading a chain's values.

Eltwise transformations first fold any Convert/Subtract/Multiply whose inputs are all
constants (NetworkHelper::foldDequantization), then work with the (shift, scale) values of
each branch, a missing shift being 0 and a missing scale 1 (createEmptyValues).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ...ir import Node
from ...ir.eltypes import ElementType
from ..dequantization.chain import Dequantization, get_dequantization
from .constants import cast, evaluate, remove_unused


def _fold_node(node: Node) -> bool:
    """Replaces `node` by a Constant when all its inputs are Constants and numpy can evaluate it."""
    if any(slot.source.node.type != "Constant" for slot in node.inputs):
        return False
    value = evaluate(node, [slot.source.node.value for slot in node.inputs])
    if value is None:
        return False
    constant = node.graph.add_constant(value, node.output().element_type)
    node.output().replace_all_uses_with(constant.output())
    remove_unused(node)
    return True


def fold_dequantization(node: Node, branch: int, precisions: Iterable[ElementType]) -> Dequantization:
    """Folds the constant part of the DQ on input `branch` of `node`; returns the DQ left over."""
    precisions = tuple(precisions)
    dq = get_dequantization(node, precisions, branch)
    if dq.empty or dq.multiply is None:
        return dq
    if dq.convert is not None and _fold_node(dq.convert):
        dq = get_dequantization(node, precisions, branch)
    if dq.subtract is not None:
        sub = dq.subtract
        if sub.input_value(0).element_type != sub.input_value(1).element_type:
            return dq
        if dq.subtract_convert is not None and _fold_node(dq.subtract_convert):
            dq = get_dequantization(node, precisions, branch)
        if dq.subtract is None or not _fold_node(dq.subtract):
            return dq
        dq = get_dequantization(node, precisions, branch)
    if dq.multiply is not None:
        mul = dq.multiply
        if mul.input_value(0).element_type != mul.input_value(1).element_type:
            return dq
        if _fold_node(mul):
            dq = get_dequantization(node, precisions, branch)
    return dq


def empty_values(dq: Dequantization, etype: ElementType) -> tuple[np.ndarray, np.ndarray]:
    """(shift, scale) of `dq` as `etype` arrays: 0 and 1 (scalars) where the chain has none."""
    shift = (cast(dq.subtract_constant.value, etype) if dq.subtract_constant is not None
             else np.zeros((), dtype=etype.dtype))
    scale = (cast(dq.multiply_constant.value, etype) if dq.multiply_constant is not None
             else np.ones((), dtype=etype.dtype))
    return shift, scale


def is_zero_constant(value: np.ndarray) -> bool:
    """NetworkHelper::isZeroConst: a scalar-like value equal to 0."""
    flat = np.asarray(value).reshape(-1)
    return flat.size > 0 and bool(np.all(flat == 0))
