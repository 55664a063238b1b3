"""Local rewrites of dequantization operations that several transformations apply.

`optimize_subtract` lets a zero point act on the integer data directly (the Convert before
it disappears), `optimize_multiplies_after` merges two scales that end up next to each
other, `disable_constant_folding` marks a Subtract that must survive constant folding (a
weights zero point). They are NetworkHelper::optimizeSubtract / optimizeMultipliesAfter
over our graph.
"""
from __future__ import annotations

import numpy as np

from ...ir import Node, Output
from .constants import DISABLE_CONSTANT_FOLDING, cast, remove_unused, round_half_away, to_scalar_if_possible


def disable_constant_folding(node: Node) -> None:
    """ov::disable_constant_folding: the pipeline's final constant folding keeps `node`."""
    node.annotations[DISABLE_CONSTANT_FOLDING] = True


def _shift_constant(subtract: Node) -> Node | None:
    """The Constant behind the Subtract's input 1 (directly or through one Convert)."""
    node = subtract.input_node(1)
    if node.type == "Convert":
        node = node.input_node(0)
    return node if node.type == "Constant" else None


def optimize_subtract(subtract: Node) -> Node | None:
    """`Convert(x) - c` becomes `x - round(c)` computed on the integer type of x.

    Returns the Subtract (rewired in place, or untouched when it does not apply), or None
    when the rounded zero point is 0 and the Subtract was removed: its consumers then read x.
    """
    convert = subtract.input_node(0)
    if convert.type != "Convert" or not convert.output().element_type.is_real:
        return subtract
    shift = _shift_constant(subtract)
    if shift is None:
        return subtract
    data = convert.input_value(0)
    value = shift.value
    if shift.output().element_type != data.element_type:
        value = cast(round_half_away(value), data.element_type)
    value = to_scalar_if_possible(value)
    old_shift = subtract.input_node(1)
    graph = subtract.graph
    if np.ndim(value) == 0 and float(value) == 0.0:
        subtract.output().replace_all_uses_with(data)
        remove_unused(subtract)
        return None
    rounded = graph.add_constant(np.asarray(value), data.element_type)
    subtract.set_input(0, data)
    subtract.set_input(1, rounded.output())
    remove_unused(convert)
    remove_unused(old_shift)
    return subtract


def _constant_input(node: Node) -> int | None:
    """Index of a direct Constant input (input 0 first, as getConstantInput does)."""
    for index in (0, 1):
        if node.input_node(index).type == "Constant":
            return index
    return None


def optimize_multiplies_after(multiply: Node) -> Node:
    """`Multiply(Multiply(x, c1), c2)` becomes `Multiply(x, c1 * c2)` when nothing else reads
    the inner Multiply or the constants; returns the Multiply that now ends the chain."""
    uses = multiply.output().uses
    if len(uses) != 1:
        return multiply
    first = _constant_input(multiply)
    after = uses[0].node
    if first is None or len(multiply.input_value(first).uses) != 1 or after.type != "Multiply":
        return multiply
    second = _constant_input(after)
    if second is None or len(after.input_value(second).uses) != 1:
        return multiply
    c1, c2 = multiply.input_node(first), after.input_node(second)
    product = np.multiply(c1.value.astype(np.float64), c2.value.astype(np.float64))
    etype = c2.output().element_type
    merged = multiply.graph.add_constant(to_scalar_if_possible(cast(product, etype)), etype)
    data: Output = multiply.input_value(1 - first)
    after.set_input(0, data)
    after.set_input(1, merged.output())
    remove_unused(multiply)
    remove_unused(c2)
    return after
