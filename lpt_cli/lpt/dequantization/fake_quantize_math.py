"""FakeQuantize arithmetic shared by every transformation that rewrites an FQ.

OpenVINO keeps this in NetworkHelper; here it is one module with one job: the FakeQuantize
formulas over our graph. Used by FakeQuantizeDecompositionTransformation (activations),
the weightable layers (an FQ on a weights Constant becomes an integer Constant + DQ),
FoldFakeQuantize and the cleanup fusions.

- `evaluate_fake_quantize(x, il, ih, ol, oh, levels, *, round_values)`: numpy FakeQuantize-1.
- `fold_fake_quantize(fq, *, round_values)`: a Constant output with the FQ's value (FQ on a
  Constant, or equal output bounds), or None when the FQ cannot be folded.
- `decompose_fake_quantize(fq, precision, min, max, has_zero_point, update_precision)`:
  NetworkHelper::decomposeFakeQuantize (core spec §4.2): FQ -> FQ'(precision)/Constant +
  Convert + [Subtract] + Multiply, replacing the FQ's uses. Returns the new nodes.
- `calculate_levels(...)`: interval-aligned requantization (§4.3).
- `compose_fake_quantize(fq, default_precisions)`: fold the dequantization below an integer FQ
  back into its output interval (§4.5).
- `insert_dequantization_after(original, last, new_quantize)`: rewire the consumers.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.eltypes import ElementType, f32
from .chain import get_dequantization
from ..surgery.constants import cast, is_scalar_like, remove_unused, round_half_away, to_scalar_if_possible
from ..surgery.moving import redirect_consumers

_MIN_SCALE = np.float32(1e-32)
_MAX_SCALE = np.float32(1e32)


def evaluate_fake_quantize(x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray,
                           levels: int) -> np.ndarray:
    """FakeQuantize-1 in float32 with numpy broadcasting (rounding half to even, as nearbyint)."""
    x, il, ih, ol, oh = (np.asarray(v, dtype=np.float32) for v in (x, il, ih, ol, oh))
    steps = np.float32(levels - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.round((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol
    q = np.where(x <= np.minimum(il, ih), ol, q)
    return np.where(x > np.maximum(il, ih), oh, q).astype(np.float32)


def fold_fake_quantize(fq: Node, *, round_values: bool) -> Output | None:
    """NetworkHelper::foldFakeQuantize: a new Constant with the FQ's value (in its output type),
    or None when input 0 is not constant and the output bounds differ."""
    graph = fq.graph
    out = fq.output()
    low, high = (fq.input_node(i) for i in (3, 4))
    if low.type == "Constant" and high.type == "Constant" and np.array_equal(low.value.reshape(-1), high.value.reshape(-1)):
        if not out.is_static:
            return None
        value = np.broadcast_to(cast(low.value, out.element_type), out.dims)
        return graph.add_constant(np.array(value), out.element_type).output()
    if any(fq.input_node(i).type != "Constant" for i in range(5)):
        return None
    x, il, ih, ol, oh = (fq.input_node(i).value for i in range(5))
    value = evaluate_fake_quantize(x, il, ih, ol, oh, levels=fq.attr_int("levels", 256))
    if round_values:
        value = np.round(value)
    return graph.add_constant(cast(value, out.element_type), out.element_type).output()


@dataclass(frozen=True)
class LevelsUpdate:
    """calculateLevels' results: the requantized interval of one FQ inside a combined interval."""

    levels: int
    dequantization_mul: float
    dequantization_sub: float
    updated_low: float
    updated_high: float


def calculate_levels(min_: float, max_: float, combined_low: float, combined_high: float,
                     low: float, high: float) -> LevelsUpdate:
    """NetworkHelper::calculateLevels (float32): where [low, high] falls once [combined] maps to [min, max]."""
    f = np.float32
    min_, max_, c_low, c_high, low, high = map(f, (min_, max_, combined_low, combined_high, low, high))
    if c_high == c_low:
        return LevelsUpdate(1, 1.0, 0.0, float(c_low), float(c_high))
    q_mul = (max_ - min_) / (c_high - c_low)
    deq_mul = (c_high - c_low) / (max_ - min_)
    q_sub = c_low - min_ * deq_mul
    deq_sub = float(round_half_away(float(f(-q_sub * q_mul))))
    updated_low = f((low - q_sub) * q_mul)
    updated_high = f((high - q_sub) * q_mul)
    if not (np.isfinite(updated_low) and np.isfinite(updated_high)):  # a denormal-wide interval:
        return LevelsUpdate(0, float(deq_mul), 0.0, float(updated_low), float(updated_high))  # no levels
    levels = int(abs(round_half_away(float(updated_high)) - round_half_away(float(updated_low)))) + 1
    return LevelsUpdate(levels, float(deq_mul), deq_sub, float(updated_low), float(updated_high))


@dataclass(frozen=True)
class Decomposition:
    """What decompose_fake_quantize built: the quantizing node (an FQ or a folded Constant) and
    the dequantization below it (`subtract` is None without a zero point)."""

    quantize: Node
    convert: Node | None
    subtract: Node | None
    multiply: Node


def _dequantization_values(low: np.ndarray, high: np.ndarray, precision: ElementType, min_: float,
                           max_: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per channel: (scale, shift, new output low, new output high), float32 like OpenVINO
    (float64 for 32-bit integer targets)."""
    wide = precision.name in ("i32", "u32")
    dt = np.float64 if wide else np.float32
    lo, hi = low.astype(dt), high.astype(dt)
    mn, mx = dt(min_), dt(max_)
    same = lo == hi
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.where(same, 0.0, (mn * hi - mx * lo) / (hi - lo)).astype(np.float32)
        scale = np.where(same, 1.0, (hi - lo) / (mx - mn)).astype(np.float32)
    shift[shift == 0] = 0.0  # no -0.0
    new_low = np.where(same, high, np.float32(min_)).astype(np.float32)
    new_high = np.where(same, high, np.float32(max_)).astype(np.float32)
    return scale, shift, new_low, new_high


def _one_value_dequantization(low: np.float32, high: np.float32, precision: ElementType, min_: float,
                              max_: float) -> tuple[np.float32, np.float32, np.float32, np.float32]:
    """_dequantization_values for a one-value interval with numpy scalars: the same float32
    (float64) operations, rounded at the same steps, without the cost of array calls (most
    activation FQs are per tensor). The scale comes back clamped."""
    dt = np.float64 if precision.name in ("i32", "u32") else np.float32
    lo, hi = dt(low), dt(high)
    if lo == hi:
        return np.float32(1.0), np.float32(0.0), high, high
    mn, mx = dt(min_), dt(max_)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.float32((mn * hi - mx * lo) / (hi - lo))
        scale = np.float32((hi - lo) / (mx - mn))
    if shift == 0:
        shift = np.float32(0.0)  # no -0.0
    if abs(scale) < _MIN_SCALE:
        scale = _MIN_SCALE
    elif abs(scale) > _MAX_SCALE:
        scale = _MAX_SCALE if scale > 0 else -_MAX_SCALE
    return scale, shift, np.float32(min_), np.float32(max_)


def _clamp_scale(scale: np.ndarray) -> np.ndarray:
    out = scale.copy()
    tiny = np.abs(out) < _MIN_SCALE
    out[tiny] = _MIN_SCALE
    big = np.abs(out) > _MAX_SCALE
    out[big] = np.where(out[big] > 0, _MAX_SCALE, -_MAX_SCALE)
    return out


def decompose_fake_quantize(fq: Node, precision: ElementType, min_: float, max_: float, has_zero_point: bool,
                            update_precision: bool, deq_precision: ElementType = f32) -> Decomposition | None:
    """NetworkHelper::decomposeFakeQuantize: FQ -> FQ'[min, max] -> Convert(f32) -> [Subtract] -> Multiply.

    The FQ's consumers are moved to the Multiply. An FQ on a Constant folds (rounded) to a
    Constant of `precision`. Returns None when there is nothing to do (no type change and an
    identity dequantization)."""
    graph = fq.graph
    out_low = fq.input_node(3)
    low = np.asarray(out_low.value, dtype=np.float32)
    high = np.asarray(fq.input_node(4).value, dtype=np.float32)
    if low.size == 1 and high.size == 1:
        common = low.shape if low.ndim >= high.ndim else high.shape  # (every dim is 1)
        scale, shift, new_low, new_high = (np.full(common, v, np.float32) for v in _one_value_dequantization(
            low.reshape(-1)[0], high.reshape(-1)[0], precision, min_, max_))
    else:
        common = np.broadcast_shapes(low.shape, high.shape)  # e.g. a scalar low and a [1] high
        low, high = np.broadcast_to(low, common), np.broadcast_to(high, common)
        scale, shift, new_low, new_high = (v.reshape(common) for v in _dequantization_values(
            low.reshape(-1), np.ascontiguousarray(high).reshape(-1), precision, min_, max_))
        scale = _clamp_scale(scale)
    if not update_precision and np.all(scale == 1) and np.all(shift == 0):
        return None
    interval_type = out_low.output().element_type
    new_fq = graph.add_node(
        "FakeQuantize",
        [fq.input_value(0), fq.input_value(1), fq.input_value(2),
         _interval_constant(graph, new_low, interval_type), _interval_constant(graph, new_high, interval_type)],
        outputs=[(fq.output().element_type, fq.output().shape)], attrs=dict(fq.attrs), version=fq.version,
        name=graph.unique_name(fq.name))
    copy_info(fq, new_fq)
    quantize = _fold_or_keep(new_fq)
    convert = None
    if update_precision:
        if quantize.type == "FakeQuantize":
            quantize.output().element_type = precision
        else:
            quantize = graph.add_constant(cast(quantize.value, precision), precision)
        convert = _convert(graph, quantize.output(), f32)
    elif quantize.output().element_type != f32:
        convert = _convert(graph, quantize.output(), f32)
    parent = (convert or quantize).output()
    subtract = None
    if has_zero_point and np.any(np.abs(shift) >= _MIN_SCALE):
        shift_const = graph.add_constant(shift, deq_precision).output()
        subtract = graph.add_node("Subtract", [parent, shift_const], outputs=[(f32, parent.shape)])
        parent = subtract.output()
    scale_const = graph.add_constant(scale, f32).output()
    multiply = graph.add_node("Multiply", [parent, scale_const], outputs=[(fq.output().element_type, fq.output().shape)])
    insert_dequantization_after(fq, multiply, quantize)
    return Decomposition(quantize, convert, subtract, multiply)


def copy_info(source: Node, target: Node) -> None:
    """NetworkHelper::copyInfo: node annotations, and port annotations when the ops are of one type."""
    target.annotations.update(source.annotations)
    if source.type != target.type:
        return
    for src, dst in zip(source.inputs, target.inputs):
        dst.annotations.update(src.annotations)
    for src_out, dst_out in zip(source.outputs, target.outputs):
        dst_out.annotations.update(src_out.annotations)


def _interval_constant(graph: Graph, values: np.ndarray, etype: ElementType) -> Output:
    """A Constant of the interval, a scalar when it is one value (asked first: the common case)."""
    if values.size == 1:
        value = values.reshape(())
    else:
        value = to_scalar_if_possible(values) if is_scalar_like(values) else values
    return graph.add_constant(cast(value, etype), etype).output()


def _convert(graph: Graph, value: Output, etype: ElementType) -> Node:
    return graph.add_node("Convert", [value], outputs=[(etype, value.shape)], attrs={"destination_type": etype.name})


def _fold_or_keep(fq: Node) -> Node:
    folded = fold_fake_quantize(fq, round_values=True)
    if folded is None:
        return fq
    remove_unused(fq)
    return folded.node


def insert_dequantization_after(original: Node, last: Node, new_quantize: Node) -> None:
    """Consumers of `original` read `last`; ShapeOf consumers read the new quantizing node."""
    redirect_consumers([use for use in original.output().uses if use.node is not last], last.output(),
                       new_quantize.output())
    if original.alive and not original.output().uses:
        remove_unused(original)
    if not original.alive:
        _name_decomposition(original.name, last, new_quantize)


_DEQUANTIZATION_NAMES = {"Subtract": "DequantizationSubtract", "Multiply": "DequantizationMultiply"}


def _name_decomposition(name: str, last: Node, new_quantize: Node) -> None:
    """The names NetworkHelper::decomposeFakeQuantize gives: the new quantizer keeps the
    FakeQuantize's name, its dequantization is `{name}/DequantizationSubtract|Multiply`. Users
    (and the plugin's performance counters) find their layer under its own name. A model
    output is left alone: there the dequantization takes the name (updateOutput)."""
    graph = last.graph
    if any(use.node.type == "Result" for use in last.output().uses):
        return
    if new_quantize.type == "FakeQuantize" and graph.unique_name(name) == name:
        graph.rename(new_quantize, name)
    node = last
    while node is not new_quantize and node.type in ("Subtract", "Multiply", "Convert"):
        if node.type in _DEQUANTIZATION_NAMES:
            graph.rename(node, graph.unique_name(f"{name}/{_DEQUANTIZATION_NAMES[node.type]}"))
        node = node.input_node(0)


def _single_consumer_step(current: Node, op_type: str) -> Node | None:
    """Follows `current`'s only consumer if it is `op_type`; None when `current` has several."""
    uses = current.output().uses
    if len(uses) != 1:
        return None
    return uses[0].node if uses[0].node.type == op_type else current


def _replacement_fq(fq: Node, low: Output, high: Output, replaced: Node, out_type: ElementType) -> Node:
    graph = fq.graph
    new = graph.add_node("FakeQuantize", [fq.input_value(0), fq.input_value(1), fq.input_value(2), low, high],
                         outputs=[(out_type, fq.output().shape)], attrs=dict(fq.attrs), version=fq.version,
                         name=graph.unique_name(fq.name))
    copy_info(fq, new)
    replaced.output().replace_all_uses_with(new.output())
    remove_unused(replaced)
    if not fq.alive and graph.unique_name(fq.name) == fq.name:
        graph.rename(new, fq.name)  # the fused FakeQuantize is still the user's layer
    return new


def compose_fake_quantize(fq: Node, default_precisions: Iterable[ElementType]) -> Node | None:
    """NetworkHelper::composeFakeQuantize: fold the Convert/Subtract/Multiply below an FQ back
    into its output interval. None when the chain is shared or is not a dequantization."""
    current = fq
    for op_type in ("Convert", "Subtract", "Multiply"):
        step = _single_consumer_step(current, op_type)
        if step is None:
            return None
        current = step
    if not current.output().uses:
        return None
    use = current.output().uses[0]
    dq = get_dequantization(use.node, default_precisions, use.index)
    if dq.empty:
        return None
    graph = fq.graph
    composed = fq
    if dq.convert is not None:
        composed = _replacement_fq(composed, composed.input_value(3), composed.input_value(4), dq.convert,
                                   dq.convert.output().element_type)
    if dq.subtract is not None and dq.subtract_constant is not None:  # (set together)
        shift = dq.subtract_constant.value
        if dq.subtract_convert is not None:
            shift = cast(shift, dq.subtract_convert.output().element_type)
        low, high = (_fold_interval(graph, composed.input_node(i), lambda v: v - shift) for i in (3, 4))
        composed = _replacement_fq(composed, low, high, dq.subtract, composed.input_value(0).element_type)
    if dq.multiply is not None and dq.multiply_constant is not None:  # (set together)
        scale = dq.multiply_constant.value
        low, high = (_fold_interval(graph, composed.input_node(i), lambda v: v * scale) for i in (3, 4))
        composed = _replacement_fq(composed, low, high, dq.multiply, composed.input_value(0).element_type)
    return composed


def _fold_interval(graph: Graph, bound: Node, op: Callable[[np.ndarray], np.ndarray]) -> Output:
    """A new interval constant op(bound) in the bound's own element type."""
    etype = bound.output().element_type
    return graph.add_constant(cast(op(np.asarray(bound.value, np.float64)), etype), etype).output()
