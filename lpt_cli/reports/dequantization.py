"""Recognizes the Convert -> [Subtract] -> Multiply dequantization in front of a layer.

The report needs it to tell "LPT never got a dequantization here" apart from "LPT had
one and declined the layer", and to check that dequantization against the config's
restrictions when no transformation said why it declined.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import Output
from ..ir.eltypes import ElementType
from .topology import is_low


@dataclass(frozen=True)
class DequantizationSummary:
    """What a report needs of a dequantization found in a graph (lpt's own model of the chain,
    with its nodes and constants, is lpt/dequantization/chain.Dequantization)."""

    precision: ElementType  # the integer type being dequantized
    subtract: bool  # has a zero point
    per_channel: bool  # the scale has more than one value
    constant: bool  # the scale (and zero point) are constants


def find_dequantization(value: Output, *, weights: bool = False) -> DequantizationSummary | None:
    """The dequantization producing `value`, if `value` is the output of one.

    As in OpenVINO's FakeQuantizeDequantization every part is optional: a type-relaxed
    Subtract or Multiply may take the integer tensor without a Convert. Only `weights`
    may dequantize a constant: elsewhere Convert(Constant) is just constant folding.
    """
    node = value.node
    if node.type == "Multiply" and len(node.inputs) == 2:
        for data, scale in ((0, 1), (1, 0)):
            found = _integer_source(node.inputs[data].source, weights)
            if found is not None:
                precision, subtract, zp_constant = found
                scale_value = node.inputs[scale].source
                return DequantizationSummary(precision, subtract, _count(scale_value) > 1,
                                      zp_constant and _is_constant(scale_value))
    if node.type in ("Subtract", "Convert"):
        found = _integer_source(value, weights)
        if found is not None:
            return DequantizationSummary(found[0], found[1], False, found[2])
    return None


def _integer_source(value: Output, weights: bool) -> tuple[ElementType, bool, bool] | None:
    """(integer type, has Subtract, zero point constant) when `value` is [Convert](int) [- zp]."""
    subtract, zp_constant = False, True
    if value.node.type == "Subtract" and len(value.node.inputs) == 2:
        subtract, zp_constant = True, _is_constant(value.node.inputs[1].source)
        value = value.node.inputs[0].source
    if value.node.type == "Convert" and value.node.inputs:
        value = value.node.inputs[0].source
    if not is_low(value) or (value.node.type == "Constant" and not weights):
        return None
    return value.element_type, subtract, zp_constant


def _is_constant(value: Output) -> bool:
    node = value.node
    while node.type == "Convert" and node.inputs:
        node = node.inputs[0].source.node
    return node.type == "Constant"


def _count(value: Output) -> int:
    total = 1
    for dim in value.shape or (2,):
        total *= max(dim, 1)
    return total
