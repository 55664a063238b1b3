"""Folding a Subtract or Multiply by a constant into the output interval of the FakeQuantize
before it (OpenVINO's FuseElementwiseToFakeQuantizeTransformation and checkElementwise).

After decomposition a FakeQuantize whose integer output nobody consumed in low precision
is left as `FQ(u8) -> Convert -> Subtract -> Multiply`; moving the Subtract/Multiply into the
FQ's output bounds gives back one float FakeQuantize with the same values.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ....ir import Node
from ....ir.constant import ConstantData
from ....ir.legalize import FUSED_DEQUANTIZATION, FusedDequantization, FusedStep
from ....ir.shapes import broadcast_shapes
from ...dequantization import attributes
from ...surgery.constants import cast, fold_convert, remove_unused, value_of
from ...engine.transformation import Transformation

Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]


def elementwise_constant(eltwise: Node) -> Node | None:
    """The Constant input of a binary op (input 1 preferred), else None."""
    if len(eltwise.inputs) != 2:
        return None
    for index in (1, 0):
        if eltwise.input_node(index).type == "Constant":
            return eltwise.input_node(index)
    return None


def fusable_into_fake_quantize(eltwise: Node) -> bool:
    """FakeQuantizeTransformation::checkElementwise: the constant is one value, or it does not
    broadcast the data and varies at most along the batch and channel axes."""
    constant = elementwise_constant(eltwise)
    if constant is None:
        return False
    shape = list(constant.constant_data.shape)
    if math.prod(shape) != 1:
        data_shape = eltwise.input_value(0).shape
        out_shape = eltwise.output().shape
        if data_shape is None or out_shape is None or data_shape != out_shape:
            return False
        shape = [1] * (len(out_shape) - len(shape)) + shape
        if any(dim != 1 for dim in shape[2:]):
            return False
    return any(eltwise.input_node(i).type != "Constant" for i in (0, 1))


def fake_quantize_before(op: Node) -> Node | None:
    """The FakeQuantize feeding `op` directly or through one Convert."""
    parent = op.input_node(0)
    if parent.type == "Convert":
        parent = parent.input_node(0)
    return parent if parent.type == "FakeQuantize" else None


class FuseElementwiseToFakeQuantize(Transformation):
    """Base of FuseSubtract/FuseMultiplyToFakeQuantize: subclasses give the bound arithmetic."""

    combine: Combine

    def levels(self, fq: Node) -> int:
        return fq.attr_int("levels", 0) or 0

    def transform(self, node: Node) -> bool:
        fq = self._fusable_fake_quantize(node)
        if fq is None:
            return False
        deq = self.config.deq_precision
        bounds = [b for b in (value_of(fq.input_value(i)) for i in (3, 4)) if b is not None]
        if len(bounds) != 2:
            return self.reject(node, "non_constant_interval", "the FakeQuantize output interval is not constant")
        operand = cast(node.input_node(1).value, deq).astype(np.float64)
        low, high = (cast(self.combine(cast(b, deq).astype(np.float64), operand), deq) for b in bounds)
        # Intervals past an f16 deq precision's range become inf, the FakeQuantize NaN, and the CPU
        # plugin refuses the fused kernel: not fused, as FakeQuantizeTransformation does (checkConstantNotInf).
        intervals = [cast(v, deq) for v in (value_of(fq.input_value(i)) for i in (1, 2)) if v is not None]
        if not all(np.isfinite(v).all() for v in (*intervals, low, high)):
            return self.reject(node, "infinite_interval", f"a FakeQuantize interval is infinite in {deq.name}")
        graph = self.graph
        inputs = [fq.input_value(0), fold_convert(graph, fq.input_value(1), deq),
                  fold_convert(graph, fq.input_value(2), deq),
                  graph.add_constant(low, deq).output(), graph.add_constant(high, deq).output()]
        attrs = dict(fq.attrs, levels=str(self.levels(fq)))
        shape = broadcast_shapes(*(source.shape for source in inputs))
        fused = graph.add_node("FakeQuantize", inputs, outputs=[(node.output().element_type, shape)],
                               attrs=attrs, version=fq.version)
        fused.annotations.update(fq.annotations)
        fused.annotations[FUSED_DEQUANTIZATION] = self._record(fq, bounds).then(FusedStep(
            node.type, node.input_node(1).constant_data, node.name, node.output().element_type,
            node.input_node(0).output().element_type if node.input_node(0).type == "Convert" else None))
        feeds_result = any(use.node.type == "Result" for use in node.output().uses)
        node.output().replace_all_uses_with(fused.output())
        remove_unused(node)
        _take_name(fused, node if feeds_result else fq)
        return True

    @staticmethod
    def _record(fq: Node, bounds: list[np.ndarray]) -> FusedDequantization:
        """What the runtime dialect needs to write the fusion back (see FusedDequantization)."""
        earlier: FusedDequantization | None = fq.annotations.get(FUSED_DEQUANTIZATION)
        if earlier is not None:
            return earlier
        low, high = (ConstantData.from_array(np.asarray(b), fq.input_value(i).element_type)
                     for b, i in zip(bounds, (3, 4)))
        return FusedDequantization(fq.output().element_type, low, high, fq.attrs.get("levels"), fq.name)

    def _fusable_fake_quantize(self, node: Node) -> Node | None:
        """FuseElementwiseToFakeQuantizeTransformation::canBeTransformed; the FQ or None."""
        if attributes.is_cleanup_disabled(node):
            self.reject(node, "cleanup_disabled", "marked DisableCleanup by an earlier transformation")
            return None
        if node.input_node(1).type != "Constant" or not fusable_into_fake_quantize(node):
            self.reject(node, "not_elementwise_constant", "input 1 is not a per-channel Constant")
            return None
        fq = fake_quantize_before(node)
        if fq is None:
            self.reject(node, "no_fake_quantize", "input 0 is not a FakeQuantize (or Convert of one)")
            return None
        if len(fq.output().uses) != 1:
            self.reject(node, "shared_fake_quantize", "the FakeQuantize has other consumers")
            return None
        return fq


def _take_name(node: Node, old: Node) -> None:
    """`node` replaces `old`: it takes `old`'s name once `old` is gone (a model output keeps
    its name, an inner FQ keeps the FQ's)."""
    if not old.alive:
        node.graph.rename(node, old.name)
