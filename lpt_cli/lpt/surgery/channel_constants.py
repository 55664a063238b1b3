"""Rewriting the constants of a dequantization chain before it moves across an op.

When an op moves, splits, merges or drops axes, a per-channel scale or zero point must be
reshaped (or sliced, gathered, padded, ...) the same way before it can follow the data.
These helpers do the graph side of that: the numpy side is each transformation's job.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir import Node
from ...ir.eltypes import ElementType
from ..dequantization.chain import Dequantization
from .constants import cast, remove_unused


def to_scalar(value: np.ndarray) -> np.ndarray:
    """The first element as a rank-0 array (for one-element or all-equal constants)."""
    return np.asarray(value).reshape(-1)[:1].reshape(())


def one_element_to_scalar(value: np.ndarray) -> np.ndarray:
    """OpenVINO's `shape_size == 1 -> toScalar` step most transformations start with."""
    return to_scalar(value) if np.size(value) == 1 else np.asarray(value)


def with_leading_ones(value: np.ndarray, rank: int) -> np.ndarray:
    """`value` reshaped to `rank` dims by prepending 1s (a scalar stays a scalar)."""
    array = np.asarray(value)
    if array.ndim == 0 or array.ndim >= rank:
        return array
    return array.reshape((1,) * (rank - array.ndim) + array.shape)


def set_constant(dq: Dequantization, part: str, value: np.ndarray) -> Node:
    """Replaces the subtract or multiply constant of `dq` (its own use only) by a Constant of
    the same element type holding `value`; a Convert between them follows the new shape."""
    if part == "multiply":
        old, consumer = dq.multiply_constant, dq.multiply
    elif part == "subtract":
        old, consumer = dq.subtract_constant, dq.subtract_convert or dq.subtract
    else:
        raise ValueError(f"unknown dequantization part {part!r}")
    assert old is not None and consumer is not None and old.data is not None
    graph = old.graph
    new = graph.add_constant(np.asarray(value), old.data.element_type)
    for use in list(old.output().uses):
        if use.node is consumer:
            use.set_source(new.output())
    if consumer.type == "Convert":
        consumer.output().shape = new.output().shape
    remove_unused(old)
    if part == "multiply":
        dq.multiply_constant = new
    else:
        dq.subtract_constant = new
    return new


def set_zero_point(dq: Dequantization, value: np.ndarray, etype: ElementType) -> Node:
    """Replaces the zero point of `dq` (and its Convert, if any) by a plain `etype` Constant."""
    assert dq.subtract is not None and dq.subtract_constant is not None
    graph = dq.subtract.graph
    old = dq.subtract_convert or dq.subtract_constant
    new = graph.add_constant(cast(np.asarray(value), etype), etype)
    for slot in dq.subtract.inputs:
        if slot.source.node is old:
            slot.set_source(new.output())
    remove_unused(old)
    dq.subtract_convert, dq.subtract_constant = None, new
    return new


def constants(dq: Dequantization) -> list[tuple[str, Node]]:
    """The (part, constant) pairs present in `dq`, subtract first."""
    found = []
    if dq.subtract is not None and dq.subtract_constant is not None:
        found.append(("subtract", dq.subtract_constant))
    if dq.multiply is not None and dq.multiply_constant is not None:
        found.append(("multiply", dq.multiply_constant))
    return found


def adapt_constants(dq: Dequantization, adapt: Callable[[np.ndarray], np.ndarray | None]) -> None:
    """Rewrites every constant of `dq` for the op it moves across: a one-element constant
    becomes a scalar (OpenVINO's toScalar step, valid for any axis change), any other becomes
    `adapt(value)`, or stays as it is when `adapt` returns None."""
    for part, constant in constants(dq):
        value = constant.value
        if value.size == 1:
            set_constant(dq, part, one_element_to_scalar(value))
            continue
        adapted = adapt(value)
        if adapted is not None:
            set_constant(dq, part, adapted)
