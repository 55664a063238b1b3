"""The FakeQuantize fusions of CommonOptimizations, which the CPU plugin runs before its LPT.

One GraphRewrite in OpenVINO (moc_transformations.cpp, `fq_fusions`), in this order:
- FakeQuantizeMulFusion: `FakeQuantize -> Multiply(C)`, each op with one consumer, becomes one
  FakeQuantize whose output interval is `[out_low * C, out_high * C]` (fq_mul_fusion.cpp), named
  after the Multiply. A BatchNorm after a quantized convolution output ends this way once it is
  decomposed: the plugin's LPT then starts from the scaled interval. Left to LPT's own
  FakeQuantizeTransformation, lpt folded the same factors in another order (1 ulp at the
  BatchNorm's output, a whole level after the next FakeQuantize).
- AddFakeQuantizeFusion / MulFakeQuantizeFusion: a single-use `Add(x, C)` / `Multiply(x, C > 0)`
  before a FakeQuantize goes into its input interval, `[in_low - C, in_high - C]` /
  `[in_low / C, in_high / C]` (add_/mul_fake_quantize_fusion.cpp): a BatchNorm or a per-batch or
  per-channel scale in front of a quantized input.
- ReluFakeQuantizeFusion: a single-use Relu in front of a FakeQuantize whose input low is never
  negative leaves (the FakeQuantize clamps below it anyway); so does a single-use Clamp whose
  bounds hold the FakeQuantize's whole input interval (`min <= input_low`, `max >= input_high`
  everywhere: ReLU6 before an interval [0, 5.7]). The Clamp case is not in the sources stored
  here; OpenVINO 2026.4.1's CPU plugin does it in this GraphRewrite, measured with serialize
  tracing at each bound (tests/runtime/test_other_settings.py). Alone it changes no value; but the
  Multiply or Add in front of the Relu then meets the FakeQuantize and goes into its interval:
  densenet121's `Concat -> BatchNorm scale -> Relu -> FakeQuantize` becomes a per-channel
  interval that MoveFakeQuantize splits over the Concat's inputs. Without it, lpt kept the
  scale and the plugin the interval (NNCF MIXED, a quarter of the convolutions ignored, f16
  layout: 2.2e-3 of max).
(FakeQuantizeReshapeFusion and PullTransposeThroughFQUp, the others of that GraphRewrite, are
not modelled: they change no value LPT computes.)

The CPU plugin skips a fusion whose FakeQuantize its kernel would not run (the callback
`node::FakeQuantize::isSupportedOperation` in transformation_pipeline.cpp): `cpu_runs_fake_quantize`.
The GPU plugin sets no callback on these fusions (transformations_pipeline.cpp): `runs=None`.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...ir import Graph, Node
from ..surgery.constants import remove_unused


def _normalized(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + shape


def cpu_runs_fake_quantize(node: Node, ranges: list[np.ndarray] | None = None) -> bool:
    """node::FakeQuantize::isSupportedOperation (nodes/fake_quantize.cpp): data of rank 2 to 5,
    constant intervals of rank <= 5, each per-tensor or varying along one axis, 1 or 2."""
    rank = node.input_value(0).rank
    if rank is None or not 2 <= rank <= 5 or node.attrs.get("auto_broadcast", "numpy") not in ("numpy", "none"):
        return False
    if ranges is None:
        if any(node.input_node(i).type != "Constant" for i in range(1, 5)):
            return False
        ranges = [np.asarray(node.input_node(i).value) for i in range(1, 5)]
    for value in ranges:
        if value.ndim > 5:
            return False
        shape = _normalized(value.shape, rank) if value.ndim <= rank else value.shape
        if math.prod(shape) != 1:
            varying = [axis for axis, dim in enumerate(shape) if dim > 1]
            if len(varying) > 1 or varying[0] not in (1, 2):
                return False
    return True


def _single_value(value: np.ndarray) -> bool:
    return value.size == 1 or bool(np.all(value == value.reshape(-1)[0]))


FakeQuantizeCheck = Callable[[Node, "list[np.ndarray] | None"], bool]


def _mul_fusion(graph: Graph, multiply: Node, runs: FakeQuantizeCheck | None) -> bool:
    """FakeQuantizeMulFusion on one Multiply; True when it fused."""
    if len(multiply.inputs) != 2 or len(multiply.output().uses) != 1:
        return False
    slots = [i for i in (0, 1) if multiply.input_node(i).type == "FakeQuantize"
             and multiply.input_node(1 - i).type == "Constant"]
    if not slots:
        return False
    fq, constant = multiply.input_node(slots[0]), multiply.input_node(1 - slots[0])
    if len(fq.output().uses) != 1 or any(fq.input_node(i).type != "Constant" for i in (3, 4)):
        return False
    factor = np.asarray(constant.value)
    data = fq.input_value(0)
    if _single_value(factor):
        factor = factor.reshape(-1)[:1]
    elif data.rank is None:
        return False
    else:
        factor = factor.reshape(_normalized(factor.shape, data.rank))
    dtype = fq.input_value(3).element_type.dtype
    bounds = [np.multiply(np.asarray(fq.input_node(i).value, dtype), factor.astype(dtype)) for i in (3, 4)]
    ranges = [np.asarray(fq.input_node(i).value) for i in (1, 2)] + bounds
    on_weights = data.node.type == "Constant"
    if not on_weights and runs is not None and not runs(fq, ranges):
        return False
    if data.shape is None or any(d < 0 for d in data.shape):
        return False  # a numpy-broadcast FakeQuantize must keep the Multiply's static shape
    if np.broadcast_shapes(tuple(data.shape), *(b.shape for b in bounds)) != tuple(multiply.output().shape or ()):
        return False
    for port, bound in zip((3, 4), bounds):
        old = fq.input_node(port)
        fq.set_input(port, graph.add_constant(bound, fq.input_value(port).element_type).output())
        remove_unused(old)
    out = multiply.output()
    names, out.names = out.names, None
    fq.output().shape = out.shape
    out.replace_all_uses_with(fq.output())
    fq.output().names = names or fq.output().names
    name = multiply.name
    remove_unused(multiply)
    graph.rename(fq, name)
    return True


def _fits(data: tuple[int, ...] | None, constant: tuple[int, ...]) -> bool:
    """ov::op::util::check_for_broadcast (openvino 2026): the constant broadcasts onto the data
    without widening it, judged on static dimensions only. Aligned from the right, each of the
    constant's dimensions is 1 or the data's, and neither is dynamic: a [1, C] scale on data of
    shape [?, C] does not fit (the batch is dynamic), so the plugin leaves that Multiply to LPT."""
    if data is None or len(constant) > len(data):
        return False
    return all(d >= 0 and (c == d or c == 1) for c, d in zip(reversed(constant), reversed(data)))


def _input_fusion(graph: Graph, fq: Node, runs: FakeQuantizeCheck | None) -> bool:
    """Add/MulFakeQuantizeFusion on one FakeQuantize; True when it fused."""
    eltwise = fq.input_node(0)
    if eltwise.type not in ("Add", "Multiply") or len(eltwise.inputs) != 2 or len(eltwise.output().uses) != 1:
        return False
    slots = [i for i in (1, 0) if eltwise.input_node(i).type == "Constant"]
    if not slots or any(fq.input_node(i).type != "Constant" for i in (1, 2)):
        return False
    data, constant = eltwise.input_value(1 - slots[0]), eltwise.input_node(slots[0])
    if data.element_type.bits < 32:
        return False
    value = np.asarray(constant.value)
    if not _fits(data.shape, value.shape):
        return False
    if eltwise.type == "Multiply" and np.any(value.astype(np.float32) <= 0):
        return False
    if _single_value(value):
        value = value.reshape(-1)[:1]
    else:
        rank = fq.input_value(0).rank
        if rank is None:
            return False
        value = value.reshape(_normalized(value.shape, rank))
        dims: tuple[int, ...] = value.shape
        if not (dims[0] > 1 and dims[0] == value.size) and not (len(dims) > 1 and dims[1] == value.size):
            return False  # only (N, 1, ..., 1) or (1, C, 1, ..., 1)
        if any(use.node.type == "Concat" for use in fq.output().uses):
            return False  # Concat's LPT takes per-tensor intervals only
        if eltwise.type == "Add" and any(eltwise.input_node(i).type in _LINEAR_PARENTS for i in (0, 1)):
            return False  # the plugin fuses that Add into the Convolution / MatMul later
    dtype = fq.input_value(1).element_type.dtype
    combine = np.subtract if eltwise.type == "Add" else np.divide
    bounds = [combine(np.asarray(fq.input_node(i).value, dtype), value.astype(dtype)) for i in (1, 2)]
    ranges = bounds + [np.asarray(fq.input_node(i).value) for i in (3, 4)]
    if runs is not None and not runs(fq, ranges):
        return False
    for port, bound in zip((1, 2), bounds):
        old = fq.input_node(port)
        fq.set_input(port, graph.add_constant(bound, fq.input_value(port).element_type).output())
        remove_unused(old)
    fq.set_input(0, data)
    remove_unused(eltwise)
    return True


_LINEAR_PARENTS = ("Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
                   "MatMul")


def _clamp_fusion(graph: Graph, fq: Node) -> bool:
    """ReluFakeQuantizeFusion (and its Clamp twin) on one FakeQuantize; True when the op in front
    of it left."""
    op, low, high = fq.input_node(0), fq.input_node(1), fq.input_node(2)
    if op.type not in ("Relu", "Clamp") or len(op.output().uses) != 1 or low.type != "Constant":
        return False
    lows = np.asarray(low.value, np.float32)
    if op.type == "Relu":
        redundant = bool(np.all(lows >= 0))
    else:
        bound_min, bound_max = op.attr_float("min"), op.attr_float("max")
        redundant = (high.type == "Constant" and bound_min is not None and bound_max is not None
                     and bool(np.all(lows >= bound_min)) and bool(np.all(np.asarray(high.value, np.float32) <= bound_max)))
    if not redundant:
        return False
    fq.set_input(0, op.input_value(0))
    remove_unused(op)
    return True


def fuse_fake_quantizes(graph: Graph, runs: FakeQuantizeCheck | None = cpu_runs_fake_quantize) -> int:
    """The FakeQuantize fusions over the graph in its order (a FakeQuantize that took an op in
    front of it is tried again, so `x * a + b -> FakeQuantize` takes both), each skipped when
    `runs` (the plugin's callback) refuses the fused FakeQuantize; returns how many."""
    fused = 0
    for node in list(graph.topological_order()):
        if not node.alive:
            continue
        if node.type == "Multiply" and _mul_fusion(graph, node, runs):
            fused += 1
        elif node.type == "FakeQuantize":
            while _clamp_fusion(graph, node) or _input_fusion(graph, node, runs):
                fused += 1
    return fused
