"""Every op of OpenVINO's opsets that takes an integer input, as a tiny model (issue 19).

The op list is OpenVINO's own: the registration tables its wheel ships
(`openvino/include/openvino/opsets/opsetN_tbl.hpp`, what `ov::get_available_opsets()` of the C++
API holds; the Python modules `openvino.opsetN` list functions, not op types) name every op of
every opset with the namespace of its version. An op version is keyed like the IR writes it:
`Range-opset4` (the opset that introduced it). An op takes an integer input when one of its inputs
is an integer tensor, or OpenVINO's validation accepts one there: indices, axes, shapes, lengths,
offsets and counts, or the data of a type-generic op (`Add` on i64).

Each such op has a builder: `build(kit)` returns the op's outputs, its inputs made by the `Kit`:
`kit.x(...)` is the op's float data (a Parameter; in the quantized variant behind
`FakeQuantize(levels 256, [-1, 1])`; with `ints=`, the unquantized variant feeds those integers
instead, so that the op computes on integers), `kit.i(...)` an integer Parameter,
`kit.c(...)` a Constant. An op version is built with the Python module of the last opset that
has it (`openvino.opset6.gather` makes Gather-1). Integers beyond 2**24 (not exact in f32) go
wherever the op does arithmetic on them.

`FLOAT_ONLY` has a builder on floats for each op (or op version, by key) that takes no integer
input: OpenVINO's validation refuses an i32 tensor on each of its inputs (`integer_inputs` tries
them one by one). `NO_INPUTS` are the ops without inputs.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
import openvino as ov
from openvino.utils.node_factory import NodeFactory

BIG = np.array([[16777217, -16777219, 3, 33554433], [-2, 16777216, 0, 7]], np.int64)  # not exact in f32
OTHER = np.array([[3, 16777213, -5, 2], [7, -3, 11, 16777219]], np.int64)  # no zero: a divisor
INTERVAL = (-1.0, 1.0)  # the quantized variant's FakeQuantize, 256 levels


@dataclass(frozen=True)
class OpVersion:
    """One op of OpenVINO's opsets: its type, the opset that introduced it (the IR's `version`) and
    the last opset that has it."""

    name: str
    version: str
    last_opset: int

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


@cache
def opset_ops() -> tuple[OpVersion, ...]:
    """Every op version of every opset this openvino registers."""
    folder = Path(ov.__file__).parent / "include" / "openvino" / "opsets"
    found: dict[tuple[str, str], list[int]] = {}
    for table in folder.glob("opset*_tbl.hpp"):
        opset = int(re.fullmatch(r"opset(\d+)_tbl\.hpp", table.name).group(1))  # type: ignore[union-attr]
        for name, namespace in re.findall(r"^_OPENVINO_OP_REG\((\w+),\s*([\w:]+)\)", table.read_text(), re.M):
            found.setdefault((name, namespace), []).append(opset)
    ops = [OpVersion(name, f"opset{min(sets)}", max(sets)) for (name, _), sets in found.items()]
    return tuple(sorted(ops, key=lambda op: (op.name, int(op.version.removeprefix("opset")))))


@dataclass
class Kit:
    """Makes one op's inputs and records what the Parameters are fed."""

    name: str  # the op's type
    ops: ModuleType  # openvino.opsetN of the op's version
    opset: int  # the op's version: the opset that introduced it
    quantized: bool
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(19))
    feed: dict[str, np.ndarray] = field(default_factory=dict)
    parameters: list[ov.Node] = field(default_factory=list)
    fake_quantized: int = 0  # FakeQuantizes placed on float data
    sinks: list[ov.Node] = field(default_factory=list)  # Assigns

    def x(
        self,
        shape: Sequence[int] = (1, 2, 4, 4),
        *,
        ints: np.ndarray | None = None,
        name: str = "x",
        quantize: bool = True,
        low: float = -1.2,
        high: float = 1.2,
    ) -> ov.Output:
        """Float data; behind the FakeQuantize in the quantized variant (unless not `quantize`);
        `ints` (in the unquantized variant): these integers instead."""
        if ints is not None and not self.quantized:
            return self.f(np.asarray(ints), name)
        shape = tuple(ints.shape) if ints is not None else tuple(shape)
        value = self.f(self.rng.uniform(low, high, shape).astype(np.float32), name)
        if not (self.quantized and quantize):
            return value
        self.fake_quantized += 1
        limits = [self.ops.constant(np.float32(v)) for v in (*INTERVAL, *INTERVAL)]
        return self.ops.fake_quantize(value, *limits, 256, name=f"{name}/fq").output(0)

    def f(self, values: np.ndarray, name: str) -> ov.Output:
        """A Parameter fed `values` (their type and shape)."""
        values = np.asarray(values)
        parameter = self.ops.parameter(list(values.shape), values.dtype, name=name)
        parameter.output(0).set_names({name})
        self.parameters.append(parameter)
        self.feed[name] = values
        return parameter.output(0)

    def i(self, values: np.ndarray | Sequence[int] | int, name: str, dtype: type = np.int64) -> ov.Output:
        """An integer Parameter fed `values`."""
        return self.f(np.asarray(values, dtype), name)

    def c(self, values: np.ndarray | Sequence[float] | float, dtype: type | ov.Type = np.int64) -> ov.Output:
        """A Constant."""
        return self.ops.constant(np.asarray(values), dtype).output(0)

    def like(self, data: ov.Output, values: np.ndarray | Sequence[float] | float) -> ov.Output:
        """A Constant of `data`'s element type."""
        return self.c(values, data.get_element_type())

    def weights(self, shape: Sequence[int], data: ov.Output) -> ov.Output:
        """Weights for `data`: i8 dequantized per output channel as NNCF writes them when quantized,
        else small integers of `data`'s type."""
        values = self.rng.integers(-3, 4, tuple(shape))
        if not self.quantized:
            return self.like(data, values)
        scale = np.full((shape[0], *[1] * (len(shape) - 1)), 0.05, np.float32)
        return self.ops.multiply(
            self.ops.convert(self.c(values, np.int8), np.float32), self.c(scale, np.float32)
        ).output(0)


Build = Callable[[Kit], Sequence[ov.Node | ov.Output]]


@dataclass(frozen=True)
class Builder:
    """How to build one op: `float_input` says whether it has a float input the quantized variant
    puts a FakeQuantize upstream of (else only the unquantized variant exists)."""

    build: Build
    float_input: bool = True


BUILDERS: dict[str, Builder] = {}


def builds(*names: str, float_input: bool = True) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        for name in names:
            assert name not in BUILDERS, name
            BUILDERS[name] = Builder(build, float_input)
        return build

    return register


# Ops without an integer input: each is built on floats, and OpenVINO refuses an integer tensor on
# any one of its inputs (`integer_inputs` tries each). `NO_INPUTS`: ops that take none.
NO_INPUTS = {"Parameter": "takes no input", "Constant": "takes no input"}
FLOAT_ONLY: dict[str, Build] = {}  # by op type, or by op version's key where versions differ


def float_only(*names: str) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        for name in names:
            assert name not in FLOAT_ONLY and name not in BUILDERS, name
            FLOAT_ONLY[name] = build
        return build

    return register


def takes_integers(op: OpVersion) -> bool:
    """The op version has a builder in BUILDERS (not one in FLOAT_ONLY, by its key or its type)."""
    return op.name in BUILDERS and op.key not in FLOAT_ONLY


def model(op: OpVersion, quantized: bool) -> tuple[ov.Model, dict[str, np.ndarray], Kit]:
    """The op's tiny model, what its Parameters are fed, and the kit that built it."""
    module = importlib.import_module(f"openvino.opset{min(op.last_opset, 16)}")
    kit = Kit(op.name, module, int(op.version.removeprefix("opset")), quantized)
    made = BUILDERS[op.name].build(kit) if takes_integers(op) else FLOAT_ONLY.get(op.key, FLOAT_ONLY.get(op.name))(kit)
    outputs = [out for item in made for out in ([item] if isinstance(item, ov.Output) else item.outputs())]
    if kit.sinks:
        return ov.Model(outputs, kit.sinks, kit.parameters, op.key), kit.feed, kit
    return ov.Model(outputs, kit.parameters, op.key), kit.feed, kit


# ---------------------------------------------------------------------------------------------
# Elementwise ops: integer data (beyond 2**24) when not quantized.


def _unary(function: str, *args: object) -> Build:
    return lambda k: [getattr(k.ops, function)(k.x(ints=BIG), *args)]


for _name, _function in {
    "Abs": "abs",
    "Acos": "acos",
    "Acosh": "acosh",
    "Asin": "asin",
    "Asinh": "asinh",
    "Atan": "atan",
    "Atanh": "atanh",
    "Ceiling": "ceiling",
    "Cos": "cos",
    "Cosh": "cosh",
    "Erf": "erf",
    "Exp": "exp",
    "Floor": "floor",
    "Log": "log",
    "Negative": "negative",
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Sign": "sign",
    "Sin": "sin",
    "Sinh": "sinh",
    "Sqrt": "sqrt",
    "Tan": "tan",
    "Tanh": "tanh",
    "HSwish": "hswish",
    "HSigmoid": "hsigmoid",
    "Identity": "identity",
}.items():
    builds(_name)(_unary(_function))
builds("Round")(_unary("round", "half_away_from_zero"))
builds("Clamp")(_unary("clamp", -16777219, 33554431))
builds("Elu")(_unary("elu", 0.5))


@builds("HardSigmoid")
def _hard_sigmoid(k: Kit) -> list[ov.Node]:
    data = k.x(ints=BIG)
    return [k.ops.hard_sigmoid(data, k.like(data, 2), k.like(data, 1))]


def _binary(function: str) -> Build:
    return lambda k: [getattr(k.ops, function)(k.x(ints=BIG), k.x(ints=OTHER, name="y", quantize=False))]


for _name, _function in {
    "Add": "add",
    "Subtract": "subtract",
    "Multiply": "multiply",
    "Divide": "divide",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Mod": "mod",
    "FloorMod": "floor_mod",
    "SquaredDifference": "squared_difference",
    "Equal": "equal",
    "NotEqual": "not_equal",
    "Less": "less",
    "LessEqual": "less_equal",
    "Greater": "greater",
    "GreaterEqual": "greater_equal",
}.items():
    builds(_name)(_binary(_function))


@builds("Power")
def _power(k: Kit) -> list[ov.Node]:
    return [
        k.ops.power(
            k.x(ints=np.array([[4097, -3, 2, 16777217]])),
            k.x(ints=np.array([[2, 3, 24, 1]]), name="y", quantize=False, low=0.0, high=2.0),
        )
    ]


@builds("PRelu")
def _prelu(k: Kit) -> list[ov.Node]:
    data = k.x(ints=BIG)
    return [k.ops.prelu(data, k.like(data, [3, 2, 1, 16777217]))]


def _bitwise(function: str, shift: bool = False) -> Build:
    amounts = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int64)
    return lambda k: [getattr(k.ops, function)(k.i(BIG, "x"), k.i(amounts if shift else OTHER, "y"))]


for _name, _function in {"BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor"}.items():
    builds(_name, float_input=False)(_bitwise(_function))
builds("BitwiseLeftShift", float_input=False)(_bitwise("bitwise_left_shift", shift=True))
builds("BitwiseRightShift", float_input=False)(_bitwise("bitwise_right_shift", shift=True))


@builds("BitwiseNot", float_input=False)
def _bitwise_not(k: Kit) -> list[ov.Node]:
    return [k.ops.bitwise_not(k.i(BIG, "x"))]


@builds("Select")
def _select(k: Kit) -> list[ov.Node]:
    condition = k.f(np.array([[True, False, True, False], [False, True, True, False]]), "condition")
    return [k.ops.select(condition, k.x(ints=BIG), k.x(ints=OTHER, name="y", quantize=False))]


@builds("Convert")
def _convert(k: Kit) -> list[ov.Node]:
    return [k.ops.convert(k.x(ints=BIG), "f32" if not k.quantized else "i32"), k.ops.convert(k.i(BIG, "i"), "i32")]


@builds("ConvertLike")
def _convert_like(k: Kit) -> list[ov.Node]:
    return [k.ops.convert_like(k.x(ints=BIG), k.c([0], np.float32 if not k.quantized else np.int32))]


@builds("ConvertPromoteTypes")
def _convert_promote_types(k: Kit) -> list[ov.Node]:
    return [k.ops.convert_promote_types(k.x(ints=BIG), k.i(OTHER, "y", np.int32), True)]


@builds("FakeQuantize")
def _fake_quantize(k: Kit) -> list[ov.Node]:
    data = k.x(ints=BIG)
    limits = [k.like(data, v) for v in (-16777219, 33554433, -16777219, 33554433)]
    return [k.ops.fake_quantize(data, *limits, 256)]


# ---------------------------------------------------------------------------------------------
# Reductions, normalizations, softmax: integer axes, and integer data where the op takes it.

SPATIAL = np.array(
    [[[[16777217, 3, -16777219, 5], [2, 33554433, 1, 0]], [[7, -2, 16777216, 9], [4, 4, -1, 16777218]]]], np.int64
)  # [1, 2, 2, 4]


def _reduce(function: str, integer_data: bool = True) -> Build:
    ints = SPATIAL if integer_data else None
    return lambda k: [
        getattr(k.ops, function)(k.x(SPATIAL.shape, ints=ints), k.c([1, 3]), False),
        getattr(k.ops, function)(k.x(SPATIAL.shape, ints=ints, name="z"), k.i([-1], "axes"), True),
    ]


for _name, _function in {
    "ReduceSum": "reduce_sum",
    "ReduceMean": "reduce_mean",
    "ReduceMax": "reduce_max",
    "ReduceMin": "reduce_min",
    "ReduceProd": "reduce_prod",
    "ReduceL1": "reduce_l1",
}.items():
    builds(_name)(_reduce(_function))
builds("ReduceL2")(_reduce("reduce_l2", integer_data=False))  # integer data: "Unsupported operation" on CPU


def _reduce_logical(function: str) -> Build:  # Parameter axes: "Unsupported operation" on CPU
    return lambda k: [
        getattr(k.ops, function)(k.f(SPATIAL > 2, "x"), k.c([1, 3]), False),
        getattr(k.ops, function)(k.f(SPATIAL > 2, "z"), k.c([-1], np.int32), True),
    ]


builds("ReduceLogicalAnd", float_input=False)(_reduce_logical("reduce_logical_and"))
builds("ReduceLogicalOr", float_input=False)(_reduce_logical("reduce_logical_or"))


@builds("CumSum")
def _cum_sum(k: Kit) -> list[ov.Node]:
    return [
        k.ops.cum_sum(k.x(ints=SPATIAL), k.c(3)),
        k.ops.cum_sum(k.x(ints=SPATIAL, name="z"), k.i(-1, "axis"), True, True),
    ]


@builds("Softmax")
def _softmax(k: Kit) -> list[ov.Node]:
    return [k.ops.softmax(k.x(ints=SPATIAL), -1 if k.opset >= 8 else 3)]


@builds("LogSoftmax")
def _log_softmax(k: Kit) -> list[ov.Node]:
    return [k.ops.log_softmax(k.x(ints=SPATIAL), 3)]


@builds("MVN")
def _mvn(k: Kit) -> list[ov.Node]:
    data = k.x(ints=SPATIAL)
    if k.opset < 6:
        return [k.ops.mvn(data, False, True, 1e-5)]
    return [k.ops.mvn(data, k.c([2, 3]), True, 1e-5, "inside_sqrt")]


@builds("NormalizeL2")
def _normalize_l2(k: Kit) -> list[ov.Node]:  # integer data: "unsupported input precision"
    return [
        k.ops.normalize_l2(k.x(), k.c([1]), 1e-6, "add"),
        k.ops.normalize_l2(k.x(name="z"), k.i([2, 3], "axes"), 1e-6, "max"),
    ]


@builds("LRN")
def _lrn(k: Kit) -> list[ov.Node]:
    return [k.ops.lrn(k.x(ints=SPATIAL), k.c([1]), size=3)]


@builds("GRN")
def _grn(k: Kit) -> list[ov.Node]:
    return [k.ops.grn(k.x(ints=SPATIAL), 1e-3)]


@builds("GroupNormalization")
def _group_normalization(k: Kit) -> list[ov.Node]:  # integer data validates, the CPU plugin has no kernel for it
    return [k.ops.group_normalization(k.x(), k.c([1.5, 0.5], np.float32), k.c([0.1, -0.1], np.float32), 2, 1e-5)]


# ---------------------------------------------------------------------------------------------
# Shape and data movement: integer shapes, axes, indices, and integer data.


@builds("Reshape")
def _reshape(k: Kit) -> list[ov.Node]:
    return [
        k.ops.reshape(k.x(ints=SPATIAL), k.c([2, -1]), False),
        k.ops.reshape(k.x(name="z"), k.i([0, 4, 8], "shape"), True),
    ]


@builds("Squeeze")
def _squeeze(k: Kit) -> list[ov.Node]:
    return [k.ops.squeeze(k.x(ints=SPATIAL), k.c([0])), k.ops.squeeze(k.x(name="z"), k.i([0], "axes"))]


@builds("Unsqueeze")
def _unsqueeze(k: Kit) -> list[ov.Node]:
    return [
        k.ops.unsqueeze(k.x(ints=SPATIAL), k.c([0, 5])),  # Parameter axes: a dynamic rank the plugin refuses
        k.ops.unsqueeze(k.x(name="z"), k.c([2], np.int32)),
    ]


@builds("Transpose")
def _transpose(k: Kit) -> list[ov.Node]:
    return [
        k.ops.transpose(k.x(ints=SPATIAL), k.c([0, 3, 1, 2])),
        k.ops.transpose(k.x(name="z"), k.i([3, 2, 1, 0], "order")),
    ]


@builds("Tile")
def _tile(k: Kit) -> list[ov.Node]:
    return [k.ops.tile(k.x(ints=SPATIAL), k.c([1, 2, 1, 2])), k.ops.tile(k.x(name="z"), k.i([2, 1, 1, 1], "repeats"))]


@builds("Broadcast")
def _broadcast(k: Kit) -> list[ov.Node]:
    data = k.x(ints=BIG)
    if k.opset < 3:
        return [k.ops.broadcast(data, k.c([3, 2, 4])), k.ops.broadcast(k.x((4,), name="z"), k.i([2, 3, 4], "shape"))]
    return [
        k.ops.broadcast(data, k.c([3, 2, 4])),
        k.ops.broadcast(k.x((4,), name="z"), k.i([2, 3, 4], "shape")),
        k.ops.broadcast(k.x((2, 1), name="w"), k.c([2, 3]), broadcast_spec="BIDIRECTIONAL"),
    ]


@builds("Concat")
def _concat(k: Kit) -> list[ov.Node]:
    return [k.ops.concat([k.x(ints=BIG), k.x(ints=OTHER, name="y", quantize=False)], 1)]


@builds("Split")
def _split(k: Kit) -> list[ov.Node]:
    return [k.ops.split(k.x(ints=SPATIAL), k.c(3), 2), k.ops.split(k.x(name="z"), k.i(-1, "axis"), 4)]


@builds("VariadicSplit")
def _variadic_split(k: Kit) -> list[ov.Node]:
    return [
        k.ops.variadic_split(k.x(ints=SPATIAL), k.c(3), k.c([1, -1])),
        k.ops.variadic_split(k.x(name="z"), k.i(1, "axis"), k.i([1, 1], "lengths")),
    ]


@builds("StridedSlice")
def _strided_slice(k: Kit) -> list[ov.Node]:
    return [
        k.ops.strided_slice(
            k.x(ints=SPATIAL), k.c([0, 1, 0, 3]), k.c([1, 2, 2, 0]), k.c([1, 1, 1, -2]), [0, 0, 0, 0], [0, 0, 0, 1]
        ),
        k.ops.strided_slice(
            k.x(name="z"),
            k.i([0, 0, 1], "begin"),
            k.i([1, 2, 4], "end"),
            k.i([1, 1, 2], "stride"),
            [0, 0, 0],
            [0, 0, 0],
        ),
    ]


@builds("Slice")
def _slice(k: Kit) -> list[ov.Node]:
    return [
        k.ops.slice(k.x(ints=SPATIAL), k.c([3]), k.c([0]), k.c([-2]), k.c([3])),
        k.ops.slice(k.x(name="z"), k.i([1, 0], "start"), k.i([4, 2], "stop"), k.i([2, 1], "step"), k.i([3, 1], "axes")),
    ]


@builds("Pad")
def _pad(k: Kit) -> list[ov.Node]:
    data = k.x(ints=SPATIAL)
    begins = [0, 1, 0, -1] if k.opset >= 12 else [0, 1, 0, 1]
    return [
        k.ops.pad(data, k.c(begins), k.c([0, 0, 2, 1]), "constant", k.like(data, 16777217)),
        k.ops.pad(k.x(name="z"), k.i([0, 0, 1, 1], "begin"), k.i([0, 1, 1, 0], "end"), "reflect"),
    ]


@builds("SpaceToBatch")
def _space_to_batch(k: Kit) -> list[ov.Node]:
    return [
        k.ops.space_to_batch(k.x(ints=SPATIAL), k.c([1, 1, 2, 2]), k.c([0, 0, 0, 0]), k.c([0, 0, 0, 0])),
        k.ops.space_to_batch(
            k.x(name="z"), k.i([1, 1, 1, 2], "block"), k.i([0, 0, 1, 0], "begin"), k.i([0, 0, 1, 0], "end")
        ),
    ]


@builds("BatchToSpace")
def _batch_to_space(k: Kit) -> list[ov.Node]:
    data = k.x((4, 1, 2, 2), ints=SPATIAL.reshape(4, 1, 2, 2))
    return [
        k.ops.batch_to_space(data, k.c([1, 1, 2, 2]), k.c([0, 0, 0, 1]), k.c([0, 0, 1, 0])),
        k.ops.batch_to_space(
            k.x((4, 1, 2, 2), name="z"),
            k.i([1, 1, 2, 2], "block"),
            k.i([0, 0, 0, 0], "begin"),
            k.i([0, 0, 0, 1], "end"),
        ),
    ]


@builds("DepthToSpace")
def _depth_to_space(k: Kit) -> list[ov.Node]:
    return [k.ops.depth_to_space(k.x((1, 4, 2, 2), ints=SPATIAL.reshape(1, 4, 2, 2)), "blocks_first", 2)]


@builds("SpaceToDepth")
def _space_to_depth(k: Kit) -> list[ov.Node]:
    return [k.ops.space_to_depth(k.x(ints=SPATIAL), "depth_first", 2)]


@builds("ShuffleChannels")
def _shuffle_channels(k: Kit) -> list[ov.Node]:
    return [k.ops.shuffle_channels(k.x((1, 4, 2, 2), ints=SPATIAL.reshape(1, 4, 2, 2)), 1, 2)]


@builds("ReorgYolo")
def _reorg_yolo(k: Kit) -> list[ov.Node]:
    return [k.ops.reorg_yolo(k.x((1, 4, 4, 4), ints=np.arange(64).reshape(1, 4, 4, 4) * 16777217 // 7), [2])]


@builds("Reverse")
def _reverse(k: Kit) -> list[ov.Node]:
    factory = NodeFactory("opset1")
    data = k.x(ints=SPATIAL)
    return [
        factory.create("Reverse", [data, k.c([1, 3])], {"mode": "index"}),
        factory.create("Reverse", [k.x(name="z"), k.f(np.array([True, False, False, True]), "mask")], {"mode": "mask"}),
    ]


@builds("ReverseSequence")
def _reverse_sequence(k: Kit) -> list[ov.Node]:
    return [
        k.ops.reverse_sequence(k.x(ints=SPATIAL), k.c([3]), 0, 3),
        k.ops.reverse_sequence(k.x((3, 4), name="z"), k.i([4, 1, 2], "lengths", np.int32), 0, 1),
    ]


@builds("Roll")
def _roll(k: Kit) -> list[ov.Node]:
    return [
        k.ops.roll(k.x(ints=SPATIAL), k.c([1, -3]), k.c([3, 1])),
        k.ops.roll(k.x(name="z"), k.i([16777217], "shift"), k.i([3], "axes")),
    ]


@builds("Gather")
def _gather(k: Kit) -> list[ov.Node]:
    outputs = [
        k.ops.gather(k.x(ints=SPATIAL), k.c([3, 0, -1, 1]), k.c(3)),  # a Parameter axis: the plugin needs a constant
        k.ops.gather(k.x(name="z"), k.i([[1, 0], [0, 1]], "indices"), k.c(1, np.int32)),
    ]
    if k.opset >= 7:
        outputs.append(k.ops.gather(k.x((2, 5), name="w"), k.i([[4, 0], [2, 2]], "batched"), k.c(1), 1))
    return outputs


@builds("GatherElements")
def _gather_elements(k: Kit) -> list[ov.Node]:
    return [k.ops.gather_elements(k.x(ints=SPATIAL), k.i(np.array([[[[3, 0, 1, 1], [2, 2, 0, 3]]] * 2]), "indices"), 3)]


@builds("GatherND")
def _gather_nd(k: Kit) -> list[ov.Node]:
    return [
        k.ops.gather_nd(k.x(ints=SPATIAL), k.i([[0, 1, 1], [0, 0, 1]], "indices")),
        k.ops.gather_nd(k.x((2, 3, 4), name="z"), k.i([[1], [2]], "batched"), 1),
    ]


@builds("GatherTree", float_input=False)
def _gather_tree(k: Kit) -> list[ov.Node]:  # [max_time, batch, beam]
    steps = np.array([[[1, 16777217], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]])
    parents = np.array([[[0, 0], [0, 1]], [[1, 0], [1, 1]], [[0, 1], [1, 0]]])
    return [
        k.ops.gather_tree(
            k.i(steps, "steps", np.int32),
            k.i(parents, "parents", np.int32),
            k.i([3, 2], "lengths", np.int32),
            k.c(10, np.int32),
        )
    ]


@builds("ScatterUpdate")
def _scatter_update(k: Kit) -> list[ov.Node]:
    return [
        k.ops.scatter_update(
            k.x(ints=BIG), k.i([2, 0], "indices"), k.x((2, 2), ints=OTHER[:, :2], name="u", quantize=False), k.c(1)
        )
    ]


@builds("ScatterElementsUpdate")
def _scatter_elements_update(k: Kit) -> list[ov.Node]:
    data, updates = k.x(ints=BIG), k.x(ints=OTHER, name="u", quantize=False)
    indices = k.i([[3, 3, 0, 1], [2, 0, 1, 3]], "indices")
    if k.opset < 12:
        return [k.ops.scatter_elements_update(data, indices, updates, k.c(1))]
    return [k.ops.scatter_elements_update(data, indices, updates, k.c(1), "sum", True)]


@builds("ScatterNDUpdate")
def _scatter_nd_update(k: Kit) -> list[ov.Node]:
    data, updates = k.x(ints=BIG), k.x((2,), ints=np.array([16777219, -5]), name="u", quantize=False)
    indices = k.i([[1, 3], [0, 0]], "indices")
    if k.opset < 15:
        return [k.ops.scatter_nd_update(data, indices, updates)]
    return [k.ops.scatter_nd_update(data, indices, updates, "sum")]


@builds("SliceScatter")
def _slice_scatter(k: Kit) -> list[ov.Node]:
    data, updates = k.x(ints=BIG), k.x((2, 2), ints=OTHER[:, :2], name="u", quantize=False)
    # Parameter start and stop: the plugin gave other results from one run of the same model to the next
    return [k.ops.slice_scatter(data, updates, k.c([0], np.int32), k.c([4]), k.c([2]), k.c([1]))]


@builds("OneHot")
def _one_hot(k: Kit) -> list[ov.Node]:
    on = k.x((), ints=np.array(16777217), name="on")
    indices = k.i([[2, 0], [-1, 3]], "indices", np.int32)
    depth = k.ops.floor_mod(k.c(-16777216), k.c(5))  # folded: 4 (Mod's sign would give -1)
    outputs = [k.ops.one_hot(indices, k.c(4), on, k.like(on, -1), -1), k.ops.one_hot(indices, depth, k.c(3), k.c(1), 0)]
    if k.opset >= 16:
        outputs.append(
            k.ops.one_hot(
                k.i([1, -1, 5], "wrapped"), k.i(3, "depth"), k.c(16777217), k.c(0), 0, negative_indices_mode="normalize"
            )
        )
    return outputs


@builds("Range")
def _range(k: Kit) -> list[ov.Node]:
    """torch.arange's Range (i64 start, i32 step), and one on bounds folded from constants
    (-33554435 // -2 = 16777217: in f32, 16777218)."""
    start = k.ops.divide(k.c(-33554435), k.c(-2))
    if k.opset < 4:  # inputs of one type
        return [
            k.ops.range(k.c(16777217), k.i(16777221, "stop"), k.c(1)),
            k.ops.range(start, k.ops.add(start, k.c(3)), k.c(1)),
            k.ops.range(k.x((), name="start", low=0.0, high=0.5), k.c(2.0, np.float32), k.c(0.25, np.float32)),
        ]
    return [
        k.ops.range(k.c(16777217), k.i(16777220, "stop"), k.c(1, np.int32), "i64"),
        k.ops.range(start, k.ops.add(start, k.c(3)), k.c(1, np.int32), "i64"),
        k.ops.range(k.x((), name="start", low=0.0, high=0.5), k.c(3, np.int32), k.c(0.5, np.float32), "f32"),
    ]


@builds("Eye", float_input=False)
def _eye(k: Kit) -> list[ov.Node]:
    return [
        k.ops.eye(k.i(3, "rows", np.int32), k.c(4), k.i(1, "diagonal"), "i64"),
        k.ops.eye(k.c(2), k.c(3), k.c(-1), "f32", k.i([2], "batch")),
    ]


@builds("ShapeOf")
def _shape_of(k: Kit) -> list[ov.Node]:
    outputs = [k.ops.shape_of(k.x(ints=SPATIAL))]
    return outputs if k.opset < 3 else [*outputs, k.ops.shape_of(k.x(name="z"), "i32")]


@builds("NonZero")
def _non_zero(k: Kit) -> list[ov.Node]:
    return [k.ops.non_zero(k.x(ints=SPATIAL), "i64")]


@builds("TopK")
def _top_k(k: Kit) -> list[ov.Node]:
    data = k.x(ints=SPATIAL)
    if k.opset < 3:
        return [k.ops.topk(data, k.c(2), 3, "max", "value")]
    found = [
        k.ops.topk(data, k.c(2), 3, "max", "value", "i64"),
        k.ops.topk(k.x(name="z"), k.i(3, "k"), 3, "min", "index", "i32"),
    ]
    return found


@builds("Unique")
def _unique(k: Kit) -> list[ov.Node]:
    return [
        k.ops.unique(k.x(ints=np.array([16777217, 16777216, 3, 16777217, 3]))),
        k.ops.unique(k.x((2, 3), ints=np.array([[1, 16777217, 1], [1, 16777217, 1]]), name="z"), k.c(1)),
    ]


@builds("Bucketize")
def _bucketize(k: Kit) -> list[ov.Node]:
    return [
        k.ops.bucketize(k.x(ints=BIG), k.c([-16777218, 3, 16777217, 16777218]), "i32"),
        k.ops.bucketize(k.x(name="z"), k.f(np.array([-0.5, 0.0, 0.5], np.float32), "buckets"), "i64", False),
    ]


@builds("SearchSorted")
def _search_sorted(k: Kit) -> list[ov.Node]:
    values = k.x(ints=BIG)
    return [
        k.ops.search_sorted(k.like(values, [[-16777219, 3, 16777216, 16777217]] * 2), values),
        k.ops.search_sorted(k.f(np.array([-0.5, 0.0, 0.5], np.float32), "sorted"), k.x(name="z"), True),
    ]


@builds("Einsum")
def _einsum(k: Kit) -> list[ov.Node]:
    return [k.ops.einsum([k.x(ints=BIG // 1024), k.x(ints=OTHER // 1024, name="y", quantize=False)], "ij,ij->i")]


@builds("MatMul")
def _mat_mul(k: Kit) -> list[ov.Node]:
    data = k.x(ints=BIG // 4096)
    return [k.ops.matmul(data, k.weights((3, 4), data), False, True)]


def _convolution_data(k: Kit) -> ov.Output:
    return k.x((1, 2, 5, 5), ints=np.arange(50).reshape(1, 2, 5, 5) * 4099 - 65536)


@builds("Convolution")
def _convolution(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    return [k.ops.convolution(data, k.weights((3, 2, 3, 3), data), [1, 1], [1, 1], [1, 1], [1, 1])]


@builds("GroupConvolution")
def _group_convolution(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    weights = k.ops.reshape(k.weights((2, 1, 3, 3), data), k.c([2, 1, 1, 3, 3]), False)
    return [k.ops.group_convolution(data, weights, [1, 1], [1, 1], [1, 1], [1, 1])]


@builds("ConvolutionBackpropData")
def _convolution_backprop_data(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    weights = k.weights((2, 3, 3, 3), data)
    return [k.ops.convolution_backprop_data(data, weights, [2, 2], k.c([10, 10]), [1, 1], [1, 1])]


@builds("GroupConvolutionBackpropData")
def _group_convolution_backprop_data(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    weights = k.ops.reshape(k.weights((2, 1, 3, 3), data), k.c([2, 1, 1, 3, 3]), False)
    return [k.ops.group_convolution_backprop_data(data, weights, [2, 2], k.c([10, 10], np.int32), [1, 1], [1, 1])]


@builds("MaxPool")
def _max_pool(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    if k.opset < 8:
        return [k.ops.max_pool(data, [2, 2], [0, 0], [0, 0], [2, 2])]
    return [k.ops.max_pool(data, [2, 2], [1, 1], [0, 0], [1, 1], [2, 2], index_element_type="i32")]


@builds("AdaptiveAvgPool")
def _adaptive_avg_pool(k: Kit) -> list[ov.Node]:
    return [
        k.ops.adaptive_avg_pool(_convolution_data(k), k.c([2, 3])),
        k.ops.adaptive_avg_pool(k.x(name="z"), k.i([3, 2], "shape")),
    ]


@builds("AdaptiveMaxPool")
def _adaptive_max_pool(k: Kit) -> list[ov.Node]:  # i64 data: "CPU plugin does not support i64 for use with oneDNN"
    data = k.x((1, 2, 5, 5), ints=(np.arange(50).reshape(1, 2, 5, 5) * 3 - 7).astype(np.int32))
    return [
        k.ops.adaptive_max_pool(data, k.c([2, 3]), "i32"),
        k.ops.adaptive_max_pool(k.x(name="z"), k.i([3, 2], "shape"), "i32"),
    ]


@builds("Interpolate")
def _interpolate(k: Kit) -> list[ov.Node]:
    data = k.x(ints=SPATIAL)
    if k.opset < 4:
        return [k.ops.interpolate(data, k.c([4, 8]), {"axes": [2, 3], "mode": "nearest"})]
    if k.opset < 11:
        return [
            k.ops.interpolate(data, k.c([4, 8]), k.c([2.0, 2.0], np.float32), "nearest", "sizes", axes=k.c([2, 3])),
            k.ops.interpolate(
                k.x(name="z"),
                k.i([3, 5], "sizes", np.int32),
                k.c([1.5, 1.25], np.float32),
                "linear",
                "sizes",
                axes=k.c([2, 3], np.int32),
            ),
        ]
    return [
        k.ops.interpolate(data, k.c([4, 8]), "nearest", "sizes", axes=k.c([2, 3])),
        k.ops.interpolate(k.x(name="z"), k.i([3, 5], "sizes", np.int32), "linear", "sizes", axes=k.i([2, 3], "axes")),
    ]


@builds("ExtractImagePatches")
def _extract_image_patches(k: Kit) -> list[ov.Node]:
    return [k.ops.extract_image_patches(_convolution_data(k), [2, 2], [2, 2], [1, 1], "valid")]


@builds("DFT")
def _dft(k: Kit) -> list[ov.Node]:
    return [
        k.ops.dft(k.x((1, 4, 3, 2)), k.c([1, 2])),
        k.ops.dft(k.x((1, 4, 3, 2), name="z"), k.i([2], "axes"), k.i([5], "size")),
    ]


@builds("IDFT")
def _idft(k: Kit) -> list[ov.Node]:
    return [
        k.ops.idft(k.x((1, 4, 3, 2)), k.c([1, 2])),
        k.ops.idft(k.x((1, 4, 3, 2), name="z"), k.i([2], "axes"), k.i([5], "size")),
    ]


@builds("RDFT")
def _rdft(k: Kit) -> list[ov.Node]:
    return [
        k.ops.rdft(k.x((1, 4, 6)), k.c([2])),  # Parameter axes or sizes: the plugin needs static output shapes
        k.ops.rdft(k.x((1, 4, 6), name="z"), k.c([1, 2], np.int32), k.c([4, 5], np.int32)),
    ]


@builds("IRDFT")
def _irdft(k: Kit) -> list[ov.Node]:
    return [
        k.ops.irdft(k.x((1, 4, 4, 2)), k.c([2])),
        k.ops.irdft(k.x((1, 4, 4, 2), name="z"), k.c([1, 2], np.int32), k.c([4, 5], np.int32)),
    ]


@builds("STFT")
def _stft(k: Kit) -> list[ov.Node]:
    return [k.ops.stft(k.x((2, 16)), k.c(np.hanning(4), np.float32), k.c(4), k.i(2, "step", np.int32), True)]


@builds("ISTFT")
def _istft(k: Kit) -> list[ov.Node]:
    return [
        k.ops.istft(k.x((3, 5, 2)), k.c(np.hanning(4), np.float32), k.c(4), k.i(2, "step", np.int32), True, False),
        k.ops.istft(
            k.x((3, 5, 2), name="z"), k.c(np.hanning(4), np.float32), k.c(4), k.c(2), True, False, k.i(10, "length")
        ),
    ]


@builds("Col2Im")
def _col2im(k: Kit) -> list[ov.Node]:
    return [
        k.ops.col2im(k.x((1, 8, 4), ints=np.arange(32).reshape(1, 8, 4) * 16777217 // 9), k.c([3, 3]), k.c([2, 2])),
        k.ops.col2im(k.x((1, 8, 9), name="z"), k.i([4, 4], "size"), k.i([2, 2], "kernel")),
    ]


# ---------------------------------------------------------------------------------------------
# Gather-like float ops with integer indices, lengths, offsets, counts.


@builds("EmbeddingBagOffsetsSum", "EmbeddingBagOffsets")
def _embedding_bag_offsets(k: Kit) -> list[ov.Node]:
    table = k.x((5, 3), ints=np.arange(15).reshape(5, 3) * 16777217 // 5)
    indices, offsets = k.i([0, 2, 3, 4], "indices", np.int32), k.i([0, 2, 2], "offsets", np.int32)
    if k.opset >= 15:
        return [
            k.ops.embedding_bag_offsets(table, indices, offsets, k.c(1, np.int32), reduction="sum"),
            k.ops.embedding_bag_offsets(k.x((5, 3), name="z"), k.i([1, 1, 4], "more"), k.c([0, 1]), reduction="mean"),
        ]
    return [k.ops.embedding_bag_offsets_sum(table, indices, offsets, k.c(1, np.int32))]


@builds("EmbeddingBagPackedSum", "EmbeddingBagPacked")
def _embedding_bag_packed(k: Kit) -> list[ov.Node]:
    table = k.x((5, 3), ints=np.arange(15).reshape(5, 3) * 16777217 // 5)
    indices = k.i([[0, 2], [4, 4]], "indices", np.int32)
    if k.opset >= 15:
        return [
            k.ops.embedding_bag_packed(table, indices, reduction="sum"),
            k.ops.embedding_bag_packed(k.x((5, 3), name="z"), k.i([[1, 3]], "more"), reduction="mean"),
        ]
    return [k.ops.embedding_bag_packed_sum(table, indices)]


@builds("EmbeddingSegmentsSum")
def _embedding_segments_sum(k: Kit) -> list[ov.Node]:
    table = k.x((5, 3), ints=np.arange(15).reshape(5, 3) * 16777217 // 5)
    return [
        k.ops.embedding_segments_sum(
            table,
            k.i([0, 2, 3, 4], "indices", np.int32),
            k.i([0, 0, 2, 2], "segments", np.int32),
            k.c(4, np.int32),
            k.c(1, np.int32),
        )
    ]


@builds("SegmentMax")
def _segment_max(k: Kit) -> list[ov.Node]:
    data = k.x((5, 3), ints=np.arange(15).reshape(5, 3) * 16777217 // 5)
    return [k.ops.segment_max(data, k.c([0, 0, 2, 2, 3]), k.i(5, "segments"), "zero")]


@builds("SparseFillEmptyRows")
def _sparse_fill_empty_rows(k: Kit) -> list[ov.Node]:
    values = k.x((3,), ints=np.array([16777217, -3, 33554433]))
    default = k.ops.reduce_min(values, k.c([0]), False)
    return [k.ops.sparse_fill_empty_rows(values, k.c([5, 4]), k.i([[0, 1], [2, 3], [2, 0]], "indices"), default)]


@builds("ROIAlign")
def _roi_align(k: Kit) -> list[ov.Node]:
    boxes = k.f(np.array([[0.0, 0.0, 3.0, 3.0], [1.0, 0.5, 3.5, 2.0]], np.float32), "rois")
    if k.opset < 9:
        return [k.ops.roi_align(k.x((2, 2, 4, 4)), boxes, k.i([1, 0], "batch_indices", np.int32), 2, 2, 2, 1.0, "avg")]
    return [
        k.ops.roi_align(
            k.x((2, 2, 4, 4)), boxes, k.i([1, 0], "batch_indices", np.int32), 2, 2, 2, 1.0, "avg", "half_pixel"
        )
    ]


@builds("ROIAlignRotated")
def _roi_align_rotated(k: Kit) -> list[ov.Node]:
    boxes = k.f(np.array([[1.5, 1.5, 2.0, 2.0, 0.3], [2.0, 1.0, 1.0, 2.0, -0.5]], np.float32), "rois")
    return [
        k.ops.roi_align_rotated(k.x((2, 2, 4, 4)), boxes, k.i([1, 0], "batch_indices", np.int32), 2, 2, 2, 1.0, True)
    ]


@builds("CTCGreedyDecoderSeqLen")
def _ctc_greedy_decoder_seq_len(k: Kit) -> list[ov.Node]:
    return [
        k.ops.ctc_greedy_decoder_seq_len(k.x((2, 4, 5)), k.i([4, 2], "lengths", np.int32), k.i(0, "blank", np.int32))
    ]


@builds("CTCLoss")
def _ctc_loss(k: Kit) -> list[ov.Node]:
    return [
        k.ops.ctc_loss(
            k.x((2, 4, 5)),
            k.i([4, 3], "logit_lengths", np.int32),
            k.i([[1, 2, 1, 0], [3, 3, 0, 0]], "labels", np.int32),
            k.i([3, 2], "label_lengths", np.int32),
            k.c(4, np.int32),
        )
    ]


@builds("CTCGreedyDecoder")
def _ctc_greedy_decoder(k: Kit) -> list[ov.Node]:  # integer data validates, the CPU plugin refuses it
    return [
        k.ops.ctc_greedy_decoder(k.x((4, 2, 5)), k.f(np.array([[1, 1], [1, 1], [1, 0], [0, 0]], np.float32), "mask"))
    ]


@builds("GridSample")
def _grid_sample(k: Kit) -> list[ov.Node]:
    grid = k.f(np.random.default_rng(3).uniform(-1.1, 1.1, (1, 3, 3, 2)).astype(np.float32), "grid")
    return [k.ops.grid_sample(_convolution_data(k), grid, {"mode": "nearest"})]


@builds("AvgPool")
def _avg_pool(k: Kit) -> list[ov.Node]:  # integer data validates, the CPU plugin crashes compiling it (segfault)
    data = k.x((1, 2, 5, 5))
    if k.opset < 14:
        return [k.ops.avg_pool(data, [2, 2], [0, 0], [0, 0], [2, 2], True)]
    if k.opset < 16:
        return [k.ops.avg_pool(data, [2, 2], [0, 0], [0, 0], [2, 2], True, "ceil_torch")]
    # AvgPool-16 without dilations (the Python default) crashes the plugin
    return [k.ops.avg_pool(data, [2, 2], [0, 0], [0, 0], [2, 2], True, "ceil_torch", dilations=[1, 1])]


@builds("DeformableConvolution")
def _deformable_convolution(k: Kit) -> list[ov.Node]:
    data = _convolution_data(k)
    offsets = k.x(
        (1, 18, 3, 3),
        ints=np.zeros((1, 18, 3, 3), np.int64) + (np.arange(18) % 3 - 1).reshape(1, 18, 1, 1),
        name="offsets",
        quantize=False,
    )
    return [k.ops.deformable_convolution(data, offsets, k.weights((3, 2, 3, 3), data), [1, 1], [0, 0], [0, 0], [1, 1])]


@builds("BinaryConvolution")
def _binary_convolution(k: Kit) -> list[ov.Node]:
    """u1 filters. 16 input channels: with 2 or 32 the plugin's kernel gave other results from one
    compile of the same model to the next (6 compiles, up to 3 results), with 8, 16, 64 none in 30."""
    bits = np.random.default_rng(5).integers(0, 2, 3 * 16 * 3 * 3).astype(np.uint8)
    filters = k.ops.constant(ov.Tensor(np.packbits(bits), [3, 16, 3, 3], ov.Type.u1))
    return [k.ops.binary_convolution(k.x((1, 16, 5, 5)), filters, [1, 1], [0, 0], [0, 0], [1, 1], "xnor-popcount", 0.0)]


# ---------------------------------------------------------------------------------------------
# Detection: integer counts and shapes; integer outputs.

BOXES = np.array(
    [
        [
            [0.0, 0.0, 1.0, 1.0],
            [0.0, 0.1, 1.0, 1.1],
            [0.0, -0.1, 1.0, 0.9],
            [0.0, 10.0, 1.0, 11.0],
            [0.0, 10.1, 1.0, 11.1],
            [0.0, 100.0, 1.0, 101.0],
        ]
    ],
    np.float32,
)


@builds("NonMaxSuppression")
def _non_max_suppression(k: Kit) -> list[ov.Node]:
    scores = k.x((1, 2, 6), low=0.0, high=1.0)
    boxes, count = k.f(BOXES, "boxes"), k.i(2, "max_boxes", np.int32)
    iou, threshold = k.c(0.5, np.float32), k.c(0.1, np.float32)
    if k.opset < 3:
        return [k.ops.non_max_suppression(boxes, scores, count, iou, threshold)]
    if k.opset < 5:
        return [k.ops.non_max_suppression(boxes, scores, count, iou, threshold, output_type="i32")]
    return [k.ops.non_max_suppression(boxes, scores, count, iou, threshold, k.c(0.0, np.float32), output_type="i32")]


@builds("NMSRotated")
def _nms_rotated(k: Kit) -> list[ov.Node]:
    boxes = np.concatenate([BOXES[..., :2] + 0.5, BOXES[..., 2:] * 0 + 1.0, np.full((1, 6, 1), 0.3, np.float32)], -1)
    return [
        k.ops.nms_rotated(
            k.f(boxes.astype(np.float32), "boxes"),
            k.x((1, 2, 6), low=0.0, high=1.0),
            k.i(2, "max_boxes"),
            k.c(0.5, np.float32),
            k.c(0.1, np.float32),
        )
    ]


@builds("MulticlassNms")
def _multiclass_nms(k: Kit) -> list[ov.Node]:
    if k.opset < 9:
        return [k.ops.multiclass_nms(k.f(BOXES, "boxes"), k.x((1, 2, 6), low=0.0, high=1.0), iou_threshold=0.5)]
    boxes = k.f(np.concatenate([BOXES, BOXES]), "boxes")  # [classes, rois, 4]
    return [
        k.ops.multiclass_nms(
            boxes, k.x((2, 6), low=0.0, high=1.0), k.i([4, 2], "rois_num", np.int32), iou_threshold=0.5
        )
    ]


@builds("PriorBox", float_input=False)
def _prior_box(k: Kit) -> list[ov.Node]:
    attrs = {
        "min_size": [2.0],
        "max_size": [5.0],
        "aspect_ratio": [1.5],
        "offset": 0.5,
        "clip": False,
        "flip": True,
        "step": 16.0,
        "variance": [0.1],
    }
    if k.opset >= 8:
        attrs["min_max_aspect_ratios_order"] = False
    if k.opset < 8:
        return [k.ops.prior_box(k.i([2, 2], "layer", np.int32).node, k.c([32, 32]), attrs)]
    # PriorBox-8 on a Parameter: "Unexpected op type in PriorBox shape inference factory"; as in SSD,
    # a feature map's size
    layer = k.ops.strided_slice(
        k.ops.shape_of(k.f(np.zeros((1, 3, 2, 3), np.float32), "features")), k.c([2]), k.c([4]), k.c([1]), [0], [0]
    )
    return [k.ops.prior_box(layer, k.c([32, 48]), attrs)]


@builds("PriorBoxClustered", float_input=False)
def _prior_box_clustered(k: Kit) -> list[ov.Node]:
    attrs = {"offset": 0.5, "width": [2.0, 3.0], "height": [4.0, 1.5], "variance": [0.1, 0.1, 0.2, 0.2], "clip": False}
    return [k.ops.prior_box_clustered(k.i([2, 3], "layer").node, k.c([32, 48]), attrs)]


@float_only("Proposal")
def _proposal(k: Kit) -> list[ov.Node]:
    attrs = {
        "base_size": np.uint32(4),
        "pre_nms_topn": np.uint32(10),
        "post_nms_topn": np.uint32(4),
        "nms_thresh": 0.5,
        "feat_stride": np.uint32(4),
        "min_size": np.uint32(1),
        "ratio": [1.0],
        "scale": [2.0],
        "framework": "",
    }
    probs = k.x((1, 2, 3, 3), low=0.0, high=1.0).node
    deltas = k.f(np.random.default_rng(4).uniform(-0.1, 0.1, (1, 4, 3, 3)).astype(np.float32), "deltas").node
    return [k.ops.proposal(probs, deltas, k.c([12.0, 12.0, 1.0], np.float32), attrs)]


@float_only("DetectionOutput")
def _detection_output(k: Kit) -> list[ov.Node]:
    attrs = {
        "keep_top_k": [4],
        "nms_threshold": 0.5,
        "code_type": "caffe.PriorBoxParameter.CORNER",
        "share_location": True,
        "background_label_id": 0,
        "confidence_threshold": 0.1,
        "top_k": 4,
        "normalized": True,
    }
    if k.opset < 8:
        attrs["num_classes"] = 2
    locations = k.f(np.random.default_rng(6).uniform(-0.1, 0.1, (1, 12)).astype(np.float32), "locations")
    priors = k.c(
        np.tile(
            np.array([[0.1, 0.1, 0.4, 0.4], [0.3, 0.3, 0.9, 0.9], [0.0, 0.5, 0.5, 1.0]], np.float32).reshape(1, 1, 12),
            (1, 2, 1),
        )
        * np.array([1.0] * 12 + [0.1] * 12, np.float32).reshape(1, 2, 12),
        np.float32,
    )
    return [k.ops.detection_output(locations, k.x((1, 6), low=0.0, high=1.0), priors, attrs)]


# ---------------------------------------------------------------------------------------------
# Recurrent ops: integer sequence lengths.


def _recurrent_weights(k: Kit, gates: int, inputs: int, hidden: int = 3) -> tuple[ov.Output, ov.Output, ov.Output]:
    rng = np.random.default_rng(8)
    return tuple(
        k.c(rng.uniform(-0.5, 0.5, shape).astype(np.float32), np.float32)  # type: ignore[return-value]
        for shape in ((1, gates * hidden, inputs), (1, gates * hidden, hidden), (1, gates * hidden))
    )


@builds("LSTMSequence")
def _lstm_sequence(k: Kit) -> list[ov.Node]:
    w, r, b = _recurrent_weights(k, 4, 4)
    states = [k.f(np.full((2, 1, 3), v, np.float32), name) for v, name in ((0.1, "h"), (-0.2, "c"))]
    return [k.ops.lstm_sequence(k.x((2, 5, 4)), *states, k.i([5, 3], "lengths", np.int32), w, r, b, 3, "forward")]


@builds("GRUSequence")
def _gru_sequence(k: Kit) -> list[ov.Node]:
    w, r, b = _recurrent_weights(k, 3, 4)
    return [
        k.ops.gru_sequence(
            k.x((2, 5, 4)), k.f(np.full((2, 1, 3), 0.1, np.float32), "h"), k.i([5, 3], "lengths"), w, r, b, 3, "forward"
        )
    ]


@builds("RNNSequence")
def _rnn_sequence(k: Kit) -> list[ov.Node]:
    w, r, b = _recurrent_weights(k, 1, 4)
    return [
        k.ops.rnn_sequence(
            k.x((2, 5, 4)),
            k.f(np.full((2, 1, 3), 0.1, np.float32), "h"),
            k.i([5, 3], "lengths", np.int32),
            w,
            r,
            b,
            3,
            "forward",
        )
    ]


# ---------------------------------------------------------------------------------------------
# Control flow and state: integer trip counts, integer data through bodies and variables.


@builds("Loop")
def _loop(k: Kit) -> list[ov.Output]:
    data = k.x(ints=BIG)
    body_in = k.ops.parameter(data.get_partial_shape(), data.get_element_type(), name="body_in")
    body_step = k.ops.parameter([], np.int64, name="body_step")
    body_out = k.ops.add(body_in, k.ops.convert_like(k.ops.add(body_step, k.c(16777216)), body_in))
    condition = k.ops.constant(True)
    body = ov.Model([condition.output(0), body_out.output(0)], [body_in, body_step], "body")
    loop = k.ops.loop(k.i(3, "trips"), k.c(True, bool))
    loop.set_function(body)
    loop.set_special_body_ports([1, 0])
    loop.set_merged_input(body_in, data, body_out.output(0))
    return [loop.get_iter_value(body_out.output(0), -1)]


@builds("TensorIterator")
def _tensor_iterator(k: Kit) -> list[ov.Output]:
    data = k.x(ints=BIG)
    body_in = k.ops.parameter([1, 4], data.get_element_type(), name="body_in")
    body_out = k.ops.multiply(body_in, k.like(data, 3))
    iterator = k.ops.tensor_iterator()
    iterator.set_body(ov.Model([body_out.output(0)], [body_in], "body"))
    iterator.set_sliced_input(body_in, data, 0, 1, 1, -1, 0)
    return [iterator.get_concatenated_slices(body_out.output(0), 0, 1, 1, -1, 0)]


@builds("If")
def _if(k: Kit) -> list[ov.Output]:
    data = k.x(ints=BIG)
    bodies = []
    for factor in (3, -1):
        inside = k.ops.parameter(data.get_partial_shape(), data.get_element_type(), name=f"inside{factor}")
        bodies.append((inside, ov.Model([k.ops.multiply(inside, k.like(data, factor)).output(0)], [inside])))
    branch = k.ops.if_op(k.f(np.array(True), "condition").node)
    branch.set_then_body(bodies[0][1])
    branch.set_else_body(bodies[1][1])
    branch.set_input(data, bodies[0][0], bodies[1][0])
    return [branch.set_output(bodies[0][1].get_results()[0], bodies[1][1].get_results()[0])]


@builds("Result")
def _result(k: Kit) -> list[ov.Output]:
    return [k.x(ints=BIG)]


# ---------------------------------------------------------------------------------------------
# Random, strings, images.


@builds("RandomUniform")
def _random_uniform(k: Kit) -> list[ov.Node]:
    low = k.x((), ints=np.array(16777217), name="low", low=-0.5, high=0.0)
    high = k.ops.add(low, k.like(low, 1000))
    return [k.ops.random_uniform(k.i([2, 3], "shape", np.int32), low, high, "i64" if not k.quantized else "f32", 5, 7)]


@builds("Multinomial")
def _multinomial(k: Kit) -> list[ov.Node]:
    probs = k.ops.softmax(k.x((2, 5)), -1)
    return [k.ops.multinomial(probs, k.i([4], "samples"), "i32", True, False, 5, 7)]


def _color_planes(k: Kit, shapes: Sequence[tuple[int, ...]]) -> list[ov.Output]:
    """u8 image planes (float in [0, 1] when quantized: the FakeQuantize on the first)."""
    names = ("y", "u", "v")[: len(shapes)] if len(shapes) > 1 else ("image",)
    return [
        k.x(
            shape,
            ints=(np.arange(np.prod(shape)).reshape(shape) * 37 % 251).astype(np.uint8),
            name=name,
            quantize=n == 0,
            low=0.0,
            high=1.0,
        )
        for n, (shape, name) in enumerate(zip(shapes, names))
    ]


@builds("NV12toRGB", "NV12toBGR")
def _nv12(k: Kit) -> list[ov.Node]:
    function = getattr(k.ops, "nv12_to_rgb" if k.name.endswith("RGB") else "nv12_to_bgr")
    return [function(*_color_planes(k, [(1, 6, 4, 1)])), function(*_color_planes(k, [(1, 4, 4, 1), (1, 2, 2, 2)]))]


@builds("I420toRGB", "I420toBGR")
def _i420(k: Kit) -> list[ov.Node]:
    function = getattr(k.ops, "i420_to_rgb" if k.name.endswith("RGB") else "i420_to_bgr")
    return [
        function(*_color_planes(k, [(1, 6, 4, 1)])),
        function(*_color_planes(k, [(1, 4, 4, 1), (1, 2, 2, 1), (1, 2, 2, 1)])),
    ]


@builds("RGBtoNV12", "BGRtoNV12")
def _to_nv12(k: Kit) -> list[ov.Node]:
    return [NodeFactory("opset17").create(k.name, _color_planes(k, [(1, 4, 4, 3)]), {"single_plane": True})]


@builds("ReadValue", "Assign")
def _state(k: Kit) -> list[ov.Node]:  # i64 state: "CPU plugin does not support i64 for use with oneDNN"
    """Builds ReadValue -> Add -> Assign; the model's sinks are collected by `model`."""
    data = k.x(ints=BIG.astype(np.int32))
    if k.opset < 6:
        state = k.ops.read_value(data, "state")
        k.sinks.append(k.ops.assign(k.ops.add(state, data), "state"))
    else:
        from openvino.op.util import Variable, VariableInfo

        info = VariableInfo()
        info.data_shape, info.data_type, info.variable_id = ov.PartialShape([2, 4]), data.get_element_type(), "state"
        variable = Variable(info)
        state = k.ops.read_value(data, variable)
        k.sinks.append(k.ops.assign(k.ops.add(state, data), variable))
    return [k.ops.multiply(state, k.like(data, 3))]


@builds("StringTensorPack", float_input=False)
def _string_tensor_pack(k: Kit) -> list[ov.Node]:
    symbols = k.i(np.frombuffer(b"int8 beyond", np.uint8), "symbols", np.uint8)
    return [k.ops.string_tensor_unpack(k.ops.string_tensor_pack(k.i([0, 5], "begins"), k.i([4, 11], "ends"), symbols))]


@builds("StringTensorUnpack", float_input=False)
def _string_tensor_unpack(k: Kit) -> list[ov.Node]:
    return _string_tensor_pack(k)


@builds("GroupedMatMul")
def _grouped_mat_mul(k: Kit) -> list[ov.Node]:
    data = k.x((5, 4))  # integer data: "No suitable implementations found" on CPU
    weights = k.weights((2, 3, 4), data)
    return [importlib.import_module("openvino.opset17").grouped_matmul(data, weights, k.i([2, 5], "offsets", np.int32))]


# ---------------------------------------------------------------------------------------------
# Ops without an integer input (FLOAT_ONLY).


for _name, _function in {
    "SoftPlus": "softplus",
    "SoftSign": "softsign",
    "Mish": "mish",
    "Swish": "swish",
    "IsFinite": "is_finite",
    "IsInf": "is_inf",
    "IsNaN": "is_nan",
}.items():
    float_only(_name)(lambda k, f=_function: [getattr(k.ops, f)(k.x((2, 4)))])
float_only("ErfInv")(lambda k: [importlib.import_module("openvino.opset17").erfinv(k.x((2, 4)))])


@float_only("Gelu")
def _gelu(k: Kit) -> list[ov.Node]:
    return [k.ops.gelu(k.x((2, 4)), "tanh") if k.opset >= 7 else k.ops.gelu(k.x((2, 4)))]


@float_only("Selu")
def _selu(k: Kit) -> list[ov.Node]:
    return [k.ops.selu(k.x((2, 4)), k.c([1.67], np.float32), k.c([1.05], np.float32))]


@float_only("BatchNormInference")
def _batch_norm_inference(k: Kit) -> list[ov.Node]:
    gamma, beta, mean, variance = (k.c(np.array([v, v + 0.5], np.float32), np.float32) for v in (1.0, 0.1, -0.2, 0.7))
    if k.opset < 5:
        return [k.ops.batch_norm_inference(k.x(), gamma, beta, mean, variance, 1e-5)]
    return [k.ops.batch_norm_inference(k.x(), gamma, beta, mean, variance, 1e-5)]


@float_only("FakeConvert")
def _fake_convert(k: Kit) -> list[ov.Node]:
    return [k.ops.fake_convert(k.x((2, 4)), k.c(1.5, np.float32), k.c(0.0, np.float32))]


@float_only("Inverse")
def _inverse(k: Kit) -> list[ov.Node]:
    return [k.ops.inverse(k.x((2, 3, 3)))]


@float_only("LogicalAnd", "LogicalOr", "LogicalXor", "Xor")
def _logical(k: Kit) -> list[ov.Node]:
    function = {"LogicalAnd": "logical_and", "LogicalOr": "logical_or", "LogicalXor": "logical_xor"}.get(k.name)
    inputs = [k.f(BIG > 2, "a"), k.f(OTHER > 2, "b")]
    if function is None:
        return [NodeFactory("opset1").create("Xor", inputs, {"auto_broadcast": "numpy"})]
    return [getattr(k.ops, function)(*inputs)]


@builds("LogicalNot", float_input=False)
def _logical_not(k: Kit) -> list[ov.Node]:  # its validation takes integers, unlike the other logical ops
    return [k.ops.logical_not(k.f(BIG > 2, "a")), k.ops.logical_not(k.i(BIG, "b", np.int32))]


@builds("LSTMCell")  # LSTMCell-0's validation takes integer peepholes
def _lstm_cell(k: Kit) -> list[ov.Node]:
    squeeze = [k.ops.squeeze(v, k.c([0])) for v in _recurrent_weights(k, 4, 4)]
    inputs = [
        k.x((2, 4)),
        k.f(np.full((2, 3), 0.1, np.float32), "h"),
        k.f(np.full((2, 3), -0.2, np.float32), "c"),
        *squeeze,
    ]
    return [k.ops.lstm_cell(*(_node(value) if k.opset < 4 else value for value in inputs), 3)]  # LSTMCell-0 takes Nodes


def _node(value: ov.Node | ov.Output) -> ov.Node:
    return value.get_node() if isinstance(value, ov.Output) else value


@builds("GRUCell")
def _gru_cell(k: Kit) -> list[ov.Node]:
    squeeze = [k.ops.squeeze(v, k.c([0])) for v in _recurrent_weights(k, 3, 4)]
    return [k.ops.gru_cell(k.x((2, 4)), k.f(np.full((2, 3), 0.1, np.float32), "h"), *squeeze, 3)]


@float_only("RNNCell")
def _rnn_cell(k: Kit) -> list[ov.Node]:
    squeeze = [k.ops.squeeze(v, k.c([0])) for v in _recurrent_weights(k, 1, 4)]
    return [k.ops.rnn_cell(k.x((2, 4)), k.f(np.full((2, 3), 0.1, np.float32), "h"), *squeeze, 3, ["tanh"], [], [])]


ROIS = np.array([[0, 0.0, 0.0, 3.0, 3.0], [1, 1.0, 0.5, 3.5, 2.0]], np.float32)  # [batch index, box]


@float_only("ROIPooling")
def _roi_pooling(k: Kit) -> list[ov.Node]:
    return [k.ops.roi_pooling(k.x((2, 2, 4, 4)), k.f(ROIS, "rois"), output_roi=[2, 2], spatial_scale=1.0)]


@float_only("PSROIPooling")
def _psroi_pooling(k: Kit) -> list[ov.Node]:
    return [k.ops.psroi_pooling(k.x((2, 8, 4, 4)), k.f(ROIS, "rois"), 2, 2, 1.0, 1, 1, "average")]


@builds("DeformablePSROIPooling")
def _deformable_psroi_pooling(k: Kit) -> list[ov.Node]:
    return [
        k.ops.deformable_psroi_pooling(
            k.x((2, 8, 4, 4)), k.f(ROIS, "rois"), 2, 1.0, 2, offsets=k.f(np.zeros((2, 2, 2, 2), np.float32), "offsets")
        )
    ]


@float_only("RegionYolo")
def _region_yolo(k: Kit) -> list[ov.Node]:
    return [k.ops.region_yolo(k.x((1, 8, 2, 2)).node, 4, 3, 1, False, [0], 1, 3)]


@float_only("ScaledDotProductAttention")
def _scaled_dot_product_attention(k: Kit) -> list[ov.Node]:
    return [
        k.ops.scaled_dot_product_attention(
            k.x((1, 2, 3, 4)),
            k.x((1, 2, 3, 4), name="key"),
            k.x((1, 2, 3, 4), name="value"),
            k.f(np.zeros((1, 1, 3, 3), np.float32), "mask"),
            k.c(0.5, np.float32),
        )
    ]


@float_only("MatrixNms")
def _matrix_nms(k: Kit) -> list[ov.Node]:
    return [k.ops.matrix_nms(k.f(BOXES, "boxes"), k.x((1, 2, 6), low=0.0, high=1.0))]


@builds("GenerateProposals")
def _generate_proposals(k: Kit) -> list[ov.Node]:
    return [
        k.ops.generate_proposals(
            k.f(np.array([[16.0, 16.0, 1.0]], np.float32), "im_info"),
            k.f(np.tile(np.array([0.0, 0.0, 4.0, 4.0], np.float32), (2, 2, 1, 1)), "anchors"),
            k.f(np.zeros((1, 4, 2, 2), np.float32), "deltas"),
            k.x((1, 1, 2, 2), low=0.0, high=1.0),
            0.0,
            0.5,
            4,
            2,
        )
    ]


_DETECTRON = NodeFactory("opset6")


@float_only("ExperimentalDetectronTopKROIs")
def _detectron_top_k_rois(k: Kit) -> list[ov.Node]:
    return [_DETECTRON.create(k.name, [k.f(BOXES[0], "rois"), k.x((6,), low=0.0, high=1.0)], {"max_rois": 2})]


@float_only("ExperimentalDetectronPriorGridGenerator")
def _detectron_prior_grid_generator(k: Kit) -> list[ov.Node]:
    inputs = [k.f(BOXES[0, :3], "priors"), k.x((1, 2, 3, 4)), k.f(np.zeros((1, 3, 12, 16), np.float32), "image")]
    return [_DETECTRON.create(k.name, inputs, {"flatten": True, "h": 3, "w": 4, "stride_x": 4.0, "stride_y": 4.0})]


@float_only("ExperimentalDetectronROIFeatureExtractor")
def _detectron_roi_feature_extractor(k: Kit) -> list[ov.Node]:
    inputs = [k.f(BOXES[0, :2], "rois"), k.x((1, 2, 4, 4))]
    return [
        _DETECTRON.create(
            k.name, inputs, {"output_size": 2, "sampling_ratio": 2, "pyramid_scales": [4], "aligned": False}
        )
    ]


@float_only("ExperimentalDetectronDetectionOutput")
def _detectron_detection_output(k: Kit) -> list[ov.Node]:
    inputs = [
        k.f(BOXES[0], "rois"),
        k.f(np.zeros((6, 8), np.float32), "deltas"),
        k.x((6, 2), low=0.0, high=1.0),
        k.f(np.array([[16.0, 16.0, 1.0]], np.float32), "im_info"),
    ]
    return [
        _DETECTRON.create(
            k.name,
            inputs,
            {
                "score_threshold": 0.1,
                "nms_threshold": 0.5,
                "max_delta_log_wh": 2.0,
                "num_classes": 2,
                "post_nms_count": 4,
                "max_detections_per_image": 4,
                "class_agnostic_box_regression": False,
                "deltas_weights": [1.0, 1.0, 1.0, 1.0],
            },
        )
    ]


@float_only("ExperimentalDetectronGenerateProposalsSingleImage")
def _detectron_generate_proposals(k: Kit) -> list[ov.Node]:
    inputs = [
        k.f(np.array([16.0, 16.0, 1.0], np.float32), "im_info"),
        k.f(np.tile(BOXES[0, :1], (4, 1)), "anchors"),
        k.f(np.zeros((4, 2, 2), np.float32), "deltas"),
        k.x((1, 2, 2), low=0.0, high=1.0),
    ]
    return [
        _DETECTRON.create(
            k.name, inputs, {"min_size": 0.0, "nms_threshold": 0.5, "post_nms_count": 2, "pre_nms_count": 4}
        )
    ]


def integer_inputs(op: OpVersion) -> list[int]:
    """The inputs of the op's nodes in its unquantized model that are integer; else those OpenVINO's
    validation accepts an i32 tensor on (its first node rebuilt with that input an i32 Parameter,
    each input in turn, is created)."""
    built, _, _ = model(op, quantized=False)
    nodes = [n for n in built.get_ordered_ops() if n.get_type_name() == op.name]
    integral = sorted(
        {
            port
            for n in nodes
            for port, value in enumerate(n.input_values())
            if value.get_element_type().is_integral() and value.get_element_type() != ov.Type.boolean
        }
    )
    if integral:
        return integral
    node = nodes[0]
    values = [node.input_value(i) for i in range(node.get_input_size())]
    factory = NodeFactory(f"opset{min(op.last_opset, 17)}")
    factory.create(op.name, values, node.get_attributes())  # rebuilt as built: the tries below are fair
    parameter = importlib.import_module("openvino.opset1").parameter
    accepted = []
    for port, value in enumerate(values):
        try:
            factory.create(
                op.name,
                [*values[:port], parameter(value.get_partial_shape(), np.int32).output(0), *values[port + 1 :]],
                node.get_attributes(),
            )
        except (RuntimeError, TypeError):
            continue
        accepted.append(port)
    return accepted


FLOAT_ONLY["LSTMCell-opset4"] = BUILDERS["LSTMCell"].build  # LSTMCell-0 takes integer peepholes, LSTMCell-4 has none
FLOAT_ONLY["MulticlassNms-opset8"] = BUILDERS["MulticlassNms"].build  # MulticlassNms-9 adds the integer rois_num
