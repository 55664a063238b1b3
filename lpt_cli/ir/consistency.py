"""Shape agreement for the ops whose shapes LPT computes with: the IR's declared shapes must
be ones the op can produce from its inputs.

OpenVINO re-infers every shape when it reads an IR; lpt trusts the declared ones (it has no
shape inference), so an IR whose ports disagree with the op would otherwise end in a numpy
broadcast or reshape error inside a pass. Dynamic dimensions (-1) agree with anything.
"""
from __future__ import annotations

from collections.abc import Callable

from .graph import Node, Shape

_ELTWISE = frozenset({
    "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power", "SquaredDifference"})
_SAME_SHAPE = frozenset({
    "Relu", "Clamp", "Convert", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Gelu", "HSwish", "Swish", "Mish",
    "Elu", "Floor", "Ceiling", "Negative", "Softmax", "LogSoftmax", "MVN", "NormalizeL2", "Erf",
    "PRelu"})  # PRelu's slope broadcasts along channels, not numpy-style: only input 0 is compared


def _same(a: int, b: int) -> bool:
    return a == b or a < 0 or b < 0


def _agree(a: Shape, b: Shape) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


def _broadcast(shapes: list[Shape]) -> Shape | str:
    """numpy broadcast of partial shapes, or a message why they do not broadcast."""
    ranked = [s for s in shapes if s is not None]
    if len(ranked) != len(shapes):
        return None
    rank = max(len(s) for s in ranked)
    # The common cases, what the loop below gives too: equal shapes, or one shape and 1s (a
    # scale, an interval of a FakeQuantize).
    varying = [s for s in ranked if s.count(1) != len(s)]
    if all(s == varying[0] for s in varying):
        base = tuple(varying[0]) if varying else ()
        return (1,) * (rank - len(base)) + base
    result = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in ranked if axis - rank + len(s) >= 0]
        static = {d for d in dims if d > 1}
        if len(static) > 1 or (static and 0 in dims):
            return f"input shapes {', '.join(str(list(s)) for s in ranked)} do not broadcast"
        if static:
            result.append(static.pop())
        elif 0 in dims:
            result.append(0)
        else:
            result.append(-1 if -1 in dims else 1)
    return tuple(result)


def _eltwise(node: Node) -> str | None:
    if (node.attr("auto_broadcast") or "numpy").lower() != "numpy":
        return None
    shapes = [slot.source.shape for slot in node.inputs]
    if node.type == "FakeQuantize":
        for shape in shapes[1:]:  # intervals broadcast to the data, never the other way
            result = _broadcast([shapes[0], shape])
            if isinstance(result, str):
                return result
            if not _agree(result, shapes[0]):
                return f"interval shape {list(shape or ())} does not broadcast to the data {list(shapes[0] or ())}"
        expected: Shape | str = shapes[0]
    else:
        expected = _broadcast(shapes)
    if isinstance(expected, str):
        return expected
    if not _agree(node.outputs[0].shape, expected):
        return f"output shape {list(node.outputs[0].shape or ())} is not {list(expected or ())}"
    return None


def _same_shape(node: Node) -> str | None:
    a, b = node.inputs[0].source.shape, node.outputs[0].shape
    return None if _agree(a, b) else f"output shape {list(b or ())} differs from input shape {list(a or ())}"


def _convolution(node: Node) -> str | None:
    data, weights, out = node.inputs[0].source.shape, node.inputs[1].source.shape, node.outputs[0].shape
    if data is None or weights is None:
        return None
    group = node.type == "GroupConvolution"
    if len(weights) != len(data) + group or len(data) < 3:
        return f"weights of rank {len(weights)} do not fit data of rank {len(data)}"
    # GroupConvolution weights: [groups, out channels per group, in channels per group, ...]
    in_channels = weights[0] * weights[2] if group and weights[0] >= 0 and weights[2] >= 0 else \
        (-1 if group else weights[1])
    out_channels = weights[0] * weights[1] if group and weights[0] >= 0 and weights[1] >= 0 else \
        (-1 if group else weights[0])
    if not _same(data[1], in_channels):
        return f"data has {data[1]} channels, the weights {list(weights)} take {in_channels}"
    if out is not None and (len(out) != len(data) or not _same(out[0], data[0]) or not _same(out[1], out_channels)):
        return f"output shape {list(out)} does not fit data {list(data)} and weights {list(weights)}"
    return None


def _mat_mul(node: Node) -> str | None:
    a, b, out = node.inputs[0].source.shape, node.inputs[1].source.shape, node.outputs[0].shape
    if a is None or b is None or not a or not b:
        return None
    a = a if len(a) > 1 else (1, *a)
    b = b if len(b) > 1 else (*b, 1)
    if node.attr_bool("transpose_a"):
        a = (*a[:-2], a[-1], a[-2])
    if node.attr_bool("transpose_b"):
        b = (*b[:-2], b[-1], b[-2])
    if not _same(a[-1], b[-2]):
        return f"inner dimensions of {list(a)} and {list(b)} differ"
    batch = _broadcast([a[:-2], b[:-2]])
    if isinstance(batch, str):
        return batch
    if out is not None and out and not _same(out[-1], b[-1]) and len(node.inputs[1].source.shape or ()) > 1:
        return f"output shape {list(out)} does not fit {list(a)} x {list(b)}"
    return None


def _concat(node: Node) -> str | None:
    shapes = [slot.source.shape for slot in node.inputs]
    out = node.outputs[0].shape
    if out is None or any(s is None for s in shapes):
        return None
    axis = node.attr_int("axis", 0) or 0
    rank = len(out)
    if not -rank <= axis < rank:
        return f"axis {axis} is outside rank {rank}"
    axis %= rank
    total = 0
    for shape in shapes:
        if len(shape) != rank or not all(_same(d, o) for i, (d, o) in enumerate(zip(shape, out)) if i != axis):  # type: ignore[arg-type]
            return f"input shape {list(shape)} does not fit output {list(out)} along axis {axis}"  # type: ignore[arg-type]
        total = -1 if total < 0 or shape[axis] < 0 else total + shape[axis]  # type: ignore[index]
    if not _same(total, out[axis]):
        return f"inputs add up to {total} along axis {axis}, the output has {out[axis]}"
    return None


_CHECKS: dict[str, Callable[[Node], str | None]] = {
    **dict.fromkeys(_ELTWISE | {"FakeQuantize"}, _eltwise),
    **dict.fromkeys(_SAME_SHAPE, _same_shape),
    "Convolution": _convolution, "GroupConvolution": _convolution,
    "MatMul": _mat_mul, "Concat": _concat,
}


def shape_problem(node: Node) -> str | None:
    """Why `node`'s declared shapes cannot be right (None when they agree or are not checked)."""
    check = _CHECKS.get(node.type)
    if check is None or not node.outputs or not node.inputs:
        return None
    return check(node)
