"""AlignQuantizationIntervals and AlignQuantizationParameters (only for models with a Concat).

Intervals: every FakeQuantize gets its output interval; precision-preserved ops merge their
producers' intervals into one combined interval (and the smallest interval's level count).
Parameters: precision-preserved ops fed only by FakeQuantizes get a QuantizationAlignment
flag, set to true when a consumer requires per-tensor quantization on every input.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node
from ...ir.eltypes import ElementType, f32, i8, u8
from ..dequantization.attributes import (INTERVALS_ALIGNMENT, QUANTIZATION_ALIGNMENT, IntervalsAlignment,
                          IntervalsAlignmentAttribute, QuantizationAlignmentAttribute, is_precision_preserved,
                          requires_per_tensor)
from ..dequantization.chain import get_dequantization, get_dequantization_below
from ..surgery.constants import cast, is_scalar_like
from ..dequantization.precision import fq_levels, get_precision_details, is_quantize_supported
from .propagation import propagate_through_precision_preserved, update_shared_precision_preserved
from .rewrite import run_matchers

# AlignQuantizationParameters does not forward its precisions: its passes use the library default.
_LIBRARY_DEFAULT = (u8, i8)


def _interval(fq: Node, deq_precision: ElementType) -> tuple[float, float] | None:
    low, high = fq.input_node(3).value, fq.input_node(4).value
    if not is_scalar_like(low) or not is_scalar_like(high):
        return None
    dq = get_dequantization_below(fq, True) if len(fq.output().uses) == 1 else None
    if dq is not None and not dq.empty and dq.multiply_constant is not None:
        scale = dq.multiply_constant.value
        low = cast(low, deq_precision) * scale
        high = cast(high, deq_precision) * scale
    lo, hi = float(np.min(np.asarray(low, np.float32))), float(np.max(np.asarray(high, np.float32)))
    if np.isinf(lo) or np.isinf(hi):
        return None
    return lo, hi


def _create_intervals(node: Node) -> bool:
    if node.type != "FakeQuantize" or not is_quantize_supported(node):
        return False
    interval = _interval(node, f32)
    if interval is None:
        return False
    levels = fq_levels(node)
    value = IntervalsAlignment(interval, interval, levels)
    natural = get_precision_details(levels, node.input_node(3).value, node.input_node(4).value).precision
    if natural is not None:
        value.preferable_precisions.add(natural)
    node.annotations[INTERVALS_ALIGNMENT] = IntervalsAlignmentAttribute(value, levels)
    return True


def align_quantization_intervals(graph: Graph, default_precisions: tuple[ElementType, ...]) -> None:
    run_matchers(graph, (
        _create_intervals,
        lambda node: propagate_through_precision_preserved(node, INTERVALS_ALIGNMENT, default_precisions),
    ))


def _producer(node: Node, index: int) -> Node:
    """The input's producer, looking through an explicit FQ -> Convert -> DQ chain."""
    dq = get_dequantization(node, _LIBRARY_DEFAULT, index)
    data = dq.data
    if not dq.empty and data is not None and data.node.type == "Convert" and data.node.input_node(0).type == "FakeQuantize":
        return data.node.input_node(0)
    return node.input_node(index)


def _create_alignment(node: Node) -> bool:
    if QUANTIZATION_ALIGNMENT in node.annotations or not is_precision_preserved(node):
        return False
    producers = [_producer(node, i) for i in range(len(node.inputs))]
    producers = [p for p in producers if p.type != "Constant"]
    if not producers or any(p.type != "FakeQuantize" for p in producers):
        return False
    node.annotations[QUANTIZATION_ALIGNMENT] = QuantizationAlignmentAttribute(False)
    return True


def align_quantization_parameters(graph: Graph) -> None:
    run_matchers(graph, (
        _create_alignment,
        lambda node: propagate_through_precision_preserved(node, QUANTIZATION_ALIGNMENT, _LIBRARY_DEFAULT),
        lambda node: update_shared_precision_preserved(node, QUANTIZATION_ALIGNMENT, _LIBRARY_DEFAULT,
                                                       requirement=requires_per_tensor),
    ))
