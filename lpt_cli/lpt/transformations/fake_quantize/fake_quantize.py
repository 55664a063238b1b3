"""FakeQuantizeTransformation: fold the elementwise ops in front of an FQ into its input interval.

FQ(x * c) with c > 0 equals FQ(x) with the input interval divided by c; likewise x - c and
x + c shift it, and a Convert is transparent. Fusing them leaves the FQ right on the data,
where decomposition and the layers after it can see it.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.constant import ConstantData
from ....ir.legalize import FUSED_INPUT, FusedInput, FusedStep
from ....ir.eltypes import f32, f16, i32
from ...dequantization.attributes import is_bias, is_cleanup_disabled
from ...surgery.constants import cast, fold_convert, remove_unused
from ..cleanup.fuse_to_fake_quantize import elementwise_constant, fusable_into_fake_quantize
from ...dequantization.precision import constant_intervals
from ...engine.transformation import Transformation


def _data_input(eltwise: Node) -> Output | None:
    for index in range(min(2, len(eltwise.inputs))):
        if eltwise.input_node(index).type != "Constant":
            return eltwise.input_value(index)
    return None


def _same_types(eltwise: Node) -> bool:
    types = {slot.source.element_type for slot in eltwise.inputs} | {out.element_type for out in eltwise.outputs}
    return len(types) <= 1


def _fit_rank(value: np.ndarray, rank: int | None) -> np.ndarray:
    """updateShape: one leading 1 for an interval of rank 2..rank-1."""
    if rank is not None and 1 < value.ndim < rank:
        return value[np.newaxis, ...]
    return value


class FakeQuantizeTransformation(Transformation):
    name = "FakeQuantizeTransformation"

    def transform(self, node: Node) -> bool:
        if not constant_intervals(node):
            return self.reject(node, "non_constant_intervals", "FQ intervals are not constants")
        fused = False
        current: Node | None = node
        while current is not None:
            current = fuse_elementwise(current, self.config.update_precisions)
            fused = fused or current is not None
        return fused or self.reject(node, "nothing_to_fuse", "no foldable elementwise op before the FQ")


def _new_input_interval(fq: Node, eltwise: Node) -> tuple[np.ndarray, np.ndarray] | None:
    low = cast(fq.input_node(1).value, f32)
    high = cast(fq.input_node(2).value, f32)
    if eltwise.type == "Convert":
        source, target = eltwise.input_value(0).element_type, eltwise.output().element_type
        if source == i32 and target in (f16, f32):
            return None
        if eltwise.input_node(0).type == "FakeQuantize":
            return None
        return low, high
    if eltwise.type not in ("Multiply", "Subtract", "Add") or not fusable_into_fake_quantize(eltwise):
        return None
    if eltwise.type == "Add" and is_bias(eltwise):
        return None
    constant = elementwise_constant(eltwise)
    assert constant is not None, "check_elementwise found it"
    value = cast(constant.value, f32)
    if eltwise.type == "Multiply":
        if np.any(value <= 0):
            return None
        with np.errstate(divide="ignore", over="ignore"):
            low, high = low / value, high / value
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            return None
    elif eltwise.type == "Subtract":
        low, high = low + value, high + value
    else:
        low, high = low - value, high - value
    rank = fq.output().rank
    return _fit_rank(np.asarray(low, np.float32), rank), _fit_rank(np.asarray(high, np.float32), rank)


def _record(fq: Node) -> FusedInput:
    """What the runtime dialect needs to write the fusion back (see FusedInput)."""
    earlier: FusedInput | None = fq.annotations.get(FUSED_INPUT)
    if earlier is not None:
        return earlier
    return FusedInput(fq.input_node(1).constant_data, fq.input_node(2).constant_data)


def _step_constant(eltwise: Node) -> ConstantData:
    """The op's constant (a Convert has none: an empty placeholder)."""
    constant = elementwise_constant(eltwise) if eltwise.type != "Convert" else None
    return constant.constant_data if constant is not None else ConstantData.from_array(np.zeros(()), f32)


def fuse_elementwise(fq: Node, update_precisions: bool) -> Node | None:
    """FakeQuantizeTransformation::fuseElementwise: the Multiply/Subtract/Add by a constant (or the
    Convert) in front of `fq` folds into its input interval; returns the new FakeQuantize, which
    takes `fq`'s place and name, or None when nothing folds."""
    eltwise = fq.input_node(0)
    if not update_precisions and not _same_types(eltwise):
        return None
    if is_cleanup_disabled(eltwise):
        return None
    interval = _new_input_interval(fq, eltwise)
    if interval is None:
        return None
    data = eltwise.input_value(0) if len(eltwise.inputs) == 1 else _data_input(eltwise)
    if data is None:  # both inputs constant: constant folding's business
        return None
    graph = fq.graph
    inputs = [data, graph.add_constant(interval[0], f32).output(), graph.add_constant(interval[1], f32).output(),
              fold_convert(graph, fq.input_value(3), f32), fold_convert(graph, fq.input_value(4), f32)]
    fused = graph.add_node("FakeQuantize", inputs, outputs=[(fq.output().element_type, fq.output().shape)],
                           attrs=dict(fq.attrs), version=fq.version, name=graph.unique_name(fq.name))
    fused.annotations.update(fq.annotations)
    fused.annotations[FUSED_INPUT] = _record(fq).then(FusedStep(
        eltwise.type, _step_constant(eltwise), eltwise.name, eltwise.output().element_type))
    fq.output().replace_all_uses_with(fused.output())
    name = fq.name
    remove_unused(fq)
    graph.rename(fused, name)
    return fused
