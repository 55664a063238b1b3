"""EliminateFakeQuantizeTransformation: a FakeQuantize that maps a low-precision tensor onto
itself (u8 -> u8 over [0, 255] -> [0, 255]) changes nothing and is removed.

Input bounds may be off by less than one quantization step as long as quantizing the bound
itself still lands on the type's limit; output bounds must match exactly.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ....ir.eltypes import ElementType
from ...dequantization import attributes
from ...dequantization.fake_quantize_math import evaluate_fake_quantize
from ...surgery.constants import cast, remove_unused
from ...dequantization.precision import fq_levels, max_value, min_value
from ...engine.transformation import Transformation

_EPSILON = np.float32(np.finfo(np.float32).eps)


def _close(values: np.ndarray, target: np.float32) -> np.ndarray:
    return np.abs(values - target) <= _EPSILON


def _bound_matches(fq: Node, index: int, target: np.float32, max_diff: np.float32, exact: bool) -> bool:
    """Interval input `index` equals `target`, or (inexact mode) quantizes onto it."""
    values = np.asarray(fq.input_node(index).value, dtype=np.float32)
    if bool(np.all(_close(values, target))):
        return True
    if exact or bool(np.any(np.abs(values - target) > max_diff)):
        return False
    il, ih, ol, oh = (fq.input_node(i).value for i in range(1, 5))
    quantized = evaluate_fake_quantize(values, il, ih, ol, oh, levels=fq_levels(fq))
    out_type = fq.output().element_type
    folded = np.asarray(cast(quantized, out_type), dtype=np.float32)
    return bool(np.all(_close(folded, target)))


def is_identity(fq: Node) -> bool:
    """check_intervals: the FQ's bounds are the limits of its own (output) type."""
    out_type: ElementType = fq.output().element_type
    levels = fq_levels(fq)
    if levels == 0:
        return False
    try:
        low, high = np.float32(min_value(out_type, levels)), np.float32(max_value(out_type, levels))
    except ValueError:
        return False
    max_diff = np.float32(high / np.float32(levels) - low / np.float32(levels))
    inexact = out_type.is_integral
    return (_bound_matches(fq, 1, low, max_diff, not inexact) and _bound_matches(fq, 2, high, max_diff, not inexact)
            and _bound_matches(fq, 3, low, max_diff, True) and _bound_matches(fq, 4, high, max_diff, True))


class EliminateFakeQuantizeTransformation(Transformation):
    name = "EliminateFakeQuantizeTransformation"

    def applies_to(self, node: Node) -> bool:
        return len(node.inputs) == 5 and all(node.input_node(i).type == "Constant" for i in range(1, 5))

    def transform(self, node: Node) -> bool:
        if attributes.is_cleanup_disabled(node):
            return self.reject(node, "cleanup_disabled", "marked DisableCleanup by an earlier transformation")
        if node.input_value(0).element_type != node.output().element_type:
            return self.reject(node, "changes_type", "input and output types differ")
        if not is_identity(node):
            return self.reject(node, "not_identity", "the intervals are not the limits of the type")
        source = node.input_value(0)
        feeds_result = any(use.node.type == "Result" for use in node.output().uses)
        name = node.name
        node.output().replace_all_uses_with(source)
        remove_unused(node)
        if feeds_result and source.node.type not in ("Parameter", "Constant"):
            self.graph.rename(source.node, name)
        return True
