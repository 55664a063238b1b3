"""Structural comparison of an actual graph with a case's expected graph.

The walk goes back from the Results pairwise, as the judge does: op type and version,
output port, element type of the port, the attributes the expected node lists (a missing
one counts as its spec default), Parameter shapes, Constant values, then the inputs in
order. Names are not compared and node sharing is not either. The first difference is
returned as the path that leads to it, so a failing test says where to look.
"""
from __future__ import annotations

import math

import numpy as np

from lpt_cli.ir.eltypes import element_type
from lpt_cli.ir.graph import Graph, Node, Output

RTOL, ATOL = 1e-5, 1e-6

_BROADCAST = {"auto_broadcast": "numpy"}
_CONV = {"auto_pad": "explicit"}
_POOL = {"auto_pad": "explicit", "rounding_type": "floor"}
_INTERP4 = {"coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
            "antialias": "false", "pads_begin": "0", "pads_end": "0", "cube_coeff": "-0.75"}
SPEC_DEFAULTS: dict[tuple[str, str], dict[str, str]] = {
    **{(op, "opset1"): _BROADCAST for op in (
        "Add", "Subtract", "Multiply", "Maximum", "Minimum", "Power", "SquaredDifference",
        "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
        "LogicalAnd", "LogicalOr", "Select", "FakeQuantize")},
    ("Divide", "opset1"): {**_BROADCAST, "m_pythondiv": "true"},
    ("Convolution", "opset1"): _CONV,
    ("GroupConvolution", "opset1"): _CONV,
    ("ConvolutionBackpropData", "opset1"): _CONV,
    ("GroupConvolutionBackpropData", "opset1"): _CONV,
    ("MaxPool", "opset1"): _POOL,
    ("AvgPool", "opset1"): _POOL,
    ("AvgPool", "opset14"): _POOL,
    ("MaxPool", "opset8"): {**_POOL, "index_element_type": "i64", "axis": "0"},
    ("MaxPool", "opset14"): {**_POOL, "index_element_type": "i64", "axis": "0"},
    ("MatMul", "opset1"): {"transpose_a": "false", "transpose_b": "false"},
    ("StridedSlice", "opset1"): {"new_axis_mask": "", "shrink_axis_mask": "", "ellipsis_mask": ""},
    ("Gather", "opset7"): {"batch_dims": "0"},
    ("Gather", "opset8"): {"batch_dims": "0"},
    ("Interpolate", "opset1"): {"align_corners": "false", "antialias": "false", "pads_begin": "0",
                                "pads_end": "0"},
    ("Interpolate", "opset4"): _INTERP4,
    ("Interpolate", "opset11"): _INTERP4,
    ("MVN", "opset2"): {"across_channels": "false", "normalize_variance": "false"},
    ("DepthToSpace", "opset1"): {"block_size": "1"},
    ("SpaceToDepth", "opset1"): {"block_size": "1"},
    ("ShuffleChannels", "opset1"): {"axis": "1", "group": "1"},
    **{(op, "opset1"): {"keep_dims": "false"} for op in (
        "ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd")},
    ("Broadcast", "opset1"): {"mode": "numpy"},
    ("Broadcast", "opset3"): {"mode": "numpy"},
    ("Softmax", "opset1"): {"axis": "1"},
    ("Softmax", "opset8"): {"axis": "1"},
    ("ShapeOf", "opset3"): {"output_type": "i64"},
}


def compare(actual: Graph, expected: Graph) -> str | None:
    """None when `actual` matches `expected`, else the path to the first difference."""
    if len(actual.results) != len(expected.results):
        return f"number of outputs differs: expected {len(expected.results)}, actual {len(actual.results)}"
    walker = _Walker()
    for k, (res_e, res_a) in enumerate(zip(expected.results, actual.results)):
        why = walker.pair(res_e.input_value(0), res_a.input_value(0))
        if why is not None:
            return f"output {k} -> {why}"
    return _compare_sinks(actual, expected, walker)


def _compare_sinks(actual: Graph, expected: Graph, walker: _Walker) -> str | None:
    """The Assign ops (a stateful model's other outputs), paired by variable, walked like outputs."""
    def sinks(graph: Graph) -> list[Node]:
        return sorted((n for n in graph if n.type == "Assign"), key=lambda n: n.attrs.get("variable_id", ""))
    want, have = sinks(expected), sinks(actual)
    if len(want) != len(have):
        return f"number of Assign ops differs: expected {len(want)}, actual {len(have)}"
    for e, a in zip(want, have):
        why = attribute_difference(e, a)
        if why is not None:
            return f"Assign '{e.name}': {why}"
        why = walker.pair(e.input_value(0), a.input_value(0))
        if why is not None:
            return f"Assign '{e.name}' -> {why}"
    return None


class _Walker:
    def __init__(self) -> None:
        self.done: dict[tuple[int, int], str | None] = {}

    def pair(self, exp: Output, act: Output) -> str | None:
        key = (id(exp), id(act))
        if key not in self.done:
            self.done[key] = None  # guards re-entry; graphs are DAGs
            self.done[key] = self._pair(exp, act)
        return self.done[key]

    def _pair(self, exp: Output, act: Output) -> str | None:
        e, a = exp.node, act.node
        here = f"{e.type} '{e.name}' [actual '{a.name}']"
        why = _node_difference(exp, act)
        if why is not None:
            return f"{here}: {why}" if e.type == a.type else why
        if e.type in ("Constant", "Parameter"):
            return None
        if len(e.inputs) != len(a.inputs):
            return f"{here}: number of inputs differs: expected {len(e.inputs)}, actual {len(a.inputs)}"
        for i, (src_e, src_a) in enumerate(zip(e.input_values(), a.input_values())):
            why = self.pair(src_e, src_a)
            if why is not None:
                return f"{here} input {i} -> {why}"
        return None


def _node_difference(exp: Output, act: Output) -> str | None:
    """What differs between the two nodes themselves (not their inputs), or None."""
    e, a = exp.node, act.node
    if e.type != a.type:
        return f"op differs: expected {e.type} '{e.name}', actual {a.type} '{a.name}'"
    if e.version != a.version:
        return f"version differs: expected {e.version}, actual {a.version}"
    if exp.index != act.index:
        return f"output port differs: expected {exp.index}, actual {act.index}"
    if exp.element_type != act.element_type:
        return (f"output {exp.index} element type differs: expected {exp.element_type}, "
                f"actual {act.element_type}")
    if e.type == "Constant":
        return constant_difference(e, a)
    if e.type == "Parameter":
        if exp.shape is not None and act.shape is not None and exp.shape != act.shape:
            return f"Parameter shape differs: expected {list(exp.shape)}, actual {list(act.shape)}"
        return None
    return attribute_difference(e, a)


def attribute_difference(e: Node, a: Node) -> str | None:
    """The first attribute `e` lists that `a` has with another value (or lacks, without default)."""
    defaults = SPEC_DEFAULTS.get((a.type, a.version), {})
    for key, want in e.attrs.items():
        have = a.attrs.get(key, defaults.get(key))
        if have is None:
            return f"attribute '{key}': expected {want!r}, actual has no such attribute"
        if not attr_equal(want, have):
            return f"attribute '{key}' differs: expected {want!r}, actual {have!r}"
    return None


def _token(text: str) -> float | str:
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    low = text.lower()
    try:
        return element_type(text).name  # FP32 == f32
    except ValueError:
        return low


def normalize_attr(value: str) -> tuple[float | str, ...]:
    """`"1, 1"`, `"1,1"` -> (1.0, 1.0); `"True"` -> ("true",); `""` -> ()."""
    if not value.strip():
        return ()
    return tuple(_token(part) for part in value.split(","))


def attr_equal(want: str, have: str) -> bool:
    left, right = normalize_attr(want), normalize_attr(have)
    if len(left) != len(right):
        return False
    for x, y in zip(left, right):
        if isinstance(x, float) and isinstance(y, float):
            if not (x == y or math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-12)):
                return False
        elif x != y:
            return False
    return True


def _strip_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    dims = list(shape)
    while dims and dims[0] == 1:
        dims.pop(0)
    return tuple(dims)


def constant_difference(e: Node, a: Node) -> str | None:
    """Values equal, shapes equal up to leading 1s; floats allclose, integers exact."""
    shape_e, shape_a = _strip_leading_ones(e.value.shape), _strip_leading_ones(a.value.shape)
    if shape_e != shape_a:
        return f"constant shapes differ: expected {list(e.value.shape)}, actual {list(a.value.shape)}"
    want, have = e.value.reshape(shape_e), a.value.reshape(shape_a)
    if e.output().element_type.is_real or a.output().element_type.is_real:
        same = np.isclose(have.astype(np.float64), want.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        same = want.astype(np.int64) == have.astype(np.int64)
    same = np.asarray(same)
    if same.all():
        return None
    first = tuple(int(i) for i in np.argwhere(~same)[0])
    text = (f"values differ at {int((~same).sum())} of {same.size} element(s); first at {list(first)}: "
            f"expected {want[first]!r}, actual {have[first]!r}")
    if want.size <= 16:
        text += f" (expected {want.reshape(-1).tolist()}, actual {have.reshape(-1).tolist()})"
    return text
