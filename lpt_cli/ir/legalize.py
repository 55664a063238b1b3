"""The `runtime` dialect: a low-precision graph re-expressed so stock OpenVINO runs it in INT8.

LPT's ops are type-relaxed (a Convolution takes u8/i8 and gives f32). Stock OpenVINO
cannot read that, and its IR reader ignores port precisions. Measured with openvino
2026.4 on CPU: a plain `Convert(u8->f32)` in front of a Convolution makes the plugin
compute in f32, while `Convert -> Multiply(1.0)` is a dequantization it folds back into an
INT8 kernel, bit-exact. So every integer tensor entering an op that computes in float
becomes `Convert -> [Subtract(zero point)] -> Multiply(scale or 1.0)`, and a float op
that LPT gave an integer output (FakeQuantize -> u8) gets a `Convert` behind it.
Data-movement ops keep their integer types: the plugin runs them on u8 as they are.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .constant import ConstantData
from .eltypes import ElementType, f32
from .graph import Graph, Node, Output, type_signature
from .op_facts import Fact, ops_with

# Ops that take any type and give their own; never relaxed.
_UNTOUCHED = frozenset({"Parameter", "Constant", "Convert", "ShapeOf", "ReadValue", "Result", "Assign",
                        "TensorIterator", "Loop", "If"})
# Ops whose result on integers equals the float result on the same values.
_DATA_MOVEMENT = ops_with(Fact.INTEGER_EXACT)
# Inputs carrying shapes, axes, indices or conditions rather than the op's data.
_AUX_INPUTS: dict[str, frozenset[int]] = {op: frozenset(ports) for op, ports in {
    "Reshape": (1,), "Squeeze": (1,), "Unsqueeze": (1,), "Transpose": (1,), "Tile": (1,),
    "Gather": (1, 2), "GatherElements": (1,), "GatherND": (1,), "StridedSlice": (1, 2, 3),
    "Slice": (1, 2, 3, 4), "Split": (1,), "VariadicSplit": (1, 2), "Broadcast": (1, 2),
    "Pad": (1, 2), "SpaceToBatch": (1, 2, 3), "BatchToSpace": (1, 2, 3), "Interpolate": (1, 2, 3),
    "MVN": (1,), "NormalizeL2": (1,), "ReduceMean": (1,), "ReduceSum": (1,), "ReduceProd": (1,),
    "ReduceMax": (1,), "ReduceMin": (1,), "ReduceL1": (1,), "ReduceL2": (1,), "TopK": (1,),
    "Select": (0,), "CumSum": (1,), "Roll": (1, 2), "ReverseSequence": (1,),
    "ConvolutionBackpropData": (2,), "GroupConvolutionBackpropData": (2,),
    "ScatterUpdate": (1, 3), "ScatterElementsUpdate": (1, 3), "ScatterNDUpdate": (1,),
}.items()}
# Output ports whose type does not follow the data (indices, booleans); None: all ports.
_OWN_TYPE_OUTPUTS: dict[str, frozenset[int] | None] = {
    "TopK": frozenset({1}), "MaxPool": frozenset({1}), "NonZero": None, "Equal": None, "NotEqual": None,
    "Less": None, "LessEqual": None, "Greater": None, "GreaterEqual": None, "IsNaN": None,
    "IsInf": None, "IsFinite": None,
}
# Ops that only rearrange their one data input: a dequantization moves through them unchanged.
_SHAPE_ONLY = frozenset({"Reshape", "Transpose", "Squeeze", "Unsqueeze"})
_SHAPE_MATH = frozenset({"i32", "i64", "u32", "u64"})
_SPLITS = frozenset({"Split", "VariadicSplit"})
_DEQUANTIZATION = frozenset({"Subtract", "Multiply"})  # continue a Convert into a dequantization
_ARITHMETIC = frozenset({"Subtract", "Multiply", "Add"})  # an integer constant here is a zero point/scale


# Layers whose dequantization Multiply the CPU plugin fuses into the kernel, which it then names
# after the Multiply; a MatMul only when both inputs are activations (its FullyConnected kernel,
# on constant weights, follows no such rule).
_SCALED_KERNELS = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul"})
_DEQUANTIZATION_MULTIPLY = "/DequantizationMultiply"
_ANONYMOUS = re.compile(r"Multiply(_\d+)+")  # a Multiply named by the graph, not by the model or LPT
_DATA_SOURCES = frozenset({"Parameter", "ReadValue"})  # what makes a value data rather than weights
SWAPPED_ADD = "SwappedAdd"  # annotation key of a dequantization Multiply: see SwappedAdd
FUSED_MULTIPLY_NAME = "FusedMultiplyName"  # annotation of a MatMul: the Multiply MatMulMultiplyFusion fused into it
MAT_MUL_ZERO_POINT = "MatMulZeroPoint"  # annotation key of the `z @ B` Subtract after a MatMul: see MatMulZeroPoint
# Annotation of a Constant that ConstantFolding made of `Convert(f16/bf16 Constant)`: that constant's data.
DECOMPRESSED_FROM = "DecompressedFrom"


# The annotation records are NamedTuples: a frozen dataclass took ~0.7 ms to create (Python 3.11
# compiles its methods), paid at import by every `lpt` process.
class SwappedAdd(NamedTuple):
    """The constant of an Add that AddTransformation moved in front of a dequantization Multiply
    (`x*a + b` -> `(x - (-b/a)) * a`), and the Add's name, kept on that Multiply for the runtime
    dialect."""

    constant: ConstantData
    name: str

    def __str__(self) -> str:
        return f"Add of a constant {list(self.constant.shape)} before LPT"


DECOMPOSED_MVN = "DecomposedMvn"  # annotation key of an MVN decomposition's last op: see DecomposedMvn


class DecomposedMvn(NamedTuple):
    """The MVN-6 a CPU profile decomposed before LPT (its `<data>` attributes and axes), kept on the
    decomposition's last op for the runtime dialect."""

    attrs: dict[str, str]
    axes: ConstantData

    def __str__(self) -> str:
        return f"MVN over axes {self.axes.array().reshape(-1).tolist()} before LPT"


FUSED_DEQUANTIZATION = "FusedDequantization"  # annotation key of a FakeQuantize: see FusedDequantization


class FusedStep(NamedTuple):
    """One Subtract or Multiply by a constant (behind an optional Convert) folded into an interval."""

    op: str
    constant: ConstantData
    name: str
    output_type: ElementType
    convert_to: ElementType | None = None


class FusedDequantization(NamedTuple):
    """A dequantization that LPT's cleanup folded into the output interval of a FakeQuantize
    (FuseSubtract/FuseMultiplyToFakeQuantize), kept on that FakeQuantize for the runtime dialect:
    the FakeQuantize as it was before the first fusion, then the folded steps in order."""

    output_type: ElementType
    output_low: ConstantData
    output_high: ConstantData
    levels: str | None
    name: str
    steps: tuple[FusedStep, ...] = ()

    def then(self, step: FusedStep) -> FusedDequantization:
        return self._replace(steps=(*self.steps, step))

    def __str__(self) -> str:
        return f"{' + '.join(step.op for step in self.steps)} folded into the output interval"


FUSED_INPUT = "FusedInput"  # annotation key of a FakeQuantize: see FusedInput


class FusedInput(NamedTuple):
    """The elementwise ops in front of a FakeQuantize that LPT's FakeQuantizeTransformation folded
    into its input interval (a SmoothQuant Multiply NNCF put there), kept on that FakeQuantize for
    the runtime dialect: the input interval before the first fusion, then the folded ops, the one
    next to the FakeQuantize first."""

    input_low: ConstantData
    input_high: ConstantData
    steps: tuple[FusedStep, ...] = ()

    def then(self, step: FusedStep) -> FusedInput:
        return self._replace(steps=(*self.steps, step))

    def __str__(self) -> str:
        return f"{' + '.join(step.op for step in self.steps)} folded into the input interval"


def legalize_for_runtime(graph: Graph) -> Graph:
    """A copy of `graph` in which every op is one stock OpenVINO accepts, same math."""
    g = copy_graph(graph)
    recomposed = sum(_recompose_mvn(g, node) for node in _in_order(g, lambda n: DECOMPOSED_MVN in n.annotations))
    if recomposed:
        g.remove_dead()  # the rest of each decomposition
    for node in _in_order(g, lambda n: FUSED_DEQUANTIZATION in n.annotations):
        if node.alive:
            _unfuse_dequantization(g, node)
    for node in _in_order(g, lambda n: FUSED_INPUT in n.annotations):
        if node.alive:
            _unfuse_input(g, node)
    for node in g.topological_order():
        if _needs_float(node):
            _relax(g, node)
    for node in _in_order(g, _converts_a_transpose):
        if node.alive:
            _hoist_converted_dequantization(g, node)
    for node in _in_order(g, lambda n: MAT_MUL_ZERO_POINT in n.annotations):
        if node.alive:
            _zero_point_before_mat_mul(g, node)
    for node in _in_order(g, lambda n: SWAPPED_ADD in n.annotations):
        if node.alive:
            _unswap_add(g, node)
    for node in _in_order(g, lambda n: n.type == "MatMul"):
        if node.alive:
            _scale_onto_weights(g, node)
    for node in _in_order(g, lambda n: n.type == "Multiply"):
        if node.alive:
            _scale_before_crossed_ops(g, node)
    for node in _in_order(g, lambda n: DECOMPRESSED_FROM in n.annotations):
        _recompress(g, node)
    _name_fused_mat_muls(g)
    _name_dequantization_copies(g)
    _name_kernels_as_layers(g)
    return g


def _recompose_mvn(g: Graph, last: Node) -> bool:
    """An MVN the CPU profile decomposed is written back whole on what its `x - mean` took (LPT
    may have moved a dequantization there). The plugin decomposes it again on lpt's output; its
    Divide, written out, would be a Divide the plugin's ConvertDivide turns into `* Power(., -1)`
    before LPT, which rounds otherwise than the decomposition's own (maxvit_t: 3.4e-2 of max)."""
    centred = last.input_node(0) if last.type == "Divide" else last
    if centred.type != "Subtract":
        return False
    record: DecomposedMvn = last.annotations[DECOMPOSED_MVN]
    data, out = centred.input_value(0), last.output()
    axes = g.add_constant_data(record.axes)
    mvn = g.add_node("MVN", [data, axes.output()], outputs=[(out.element_type, out.shape)], attrs=dict(record.attrs),
                     version="opset6")
    names, out.names = out.names, None
    out.replace_all_uses_with(mvn.output())
    mvn.output().names = names
    name = last.name
    g.remove(last)
    g.rename(mvn, name)
    return True


def _recompress(g: Graph, constant: Node) -> None:
    """A constant folded from `Convert(f16 Constant)` that LPT left as it was goes back to that
    form: the plugin folds the Convert as it does on the original (f16 to f32 is exact), and
    the .bin keeps the 2-byte values (regnet_y_400mf's unquantized SE convolutions in the f16
    layout made it 1.28x the input's)."""
    source: ConstantData = constant.annotations.pop(DECOMPRESSED_FROM)
    out = constant.outputs[0]
    compressed = g.add_constant_data(source, name=g.unique_name(f"{constant.name}/compressed"))
    decompressed = _convert(g, compressed.outputs[0], out.element_type, f"{constant.name}/decompress")
    names, out.names = out.names, None
    out.replace_all_uses_with(decompressed)
    decompressed.names = names
    g.remove(constant)


def _in_order(g: Graph, wanted: Callable[[Node], bool]) -> list[Node]:
    """The `wanted` nodes, producers first. Each rule rewrites a few kinds of node, often none:
    sorting the whole graph only when one is there saved most of legalizing's time."""
    if not any(wanted(node) for node in g.nodes.values()):
        return []
    return [node for node in g.topological_order() if wanted(node)]


def _unfuse_dequantization(g: Graph, fake_quantize: Node) -> None:
    """The dequantization LPT folded into a FakeQuantize's output interval is written back as
    `FakeQuantize(u8) -> Convert -> Subtract -> Multiply`, with LPT's own constants.

    The plugin decomposes a FakeQuantize with a float output interval again, recomputing
    scale and zero point from the bounds: a last-bit difference from the exact constants, and
    one value in ~150,000 crossed a rounding step of the next FakeQuantize. Measured on
    openvino 2026.4 (EfficientNetV2-S, Swin-T residual Adds): 1e-1 and 2.5e-2 of max|output|
    fused, bit-exact written back, with the same kernels.
    """
    record: FusedDequantization = fake_quantize.annotations.pop(FUSED_DEQUANTIZATION)
    out = fake_quantize.outputs[0]
    users, names = out.consumers(), out.names
    out.names = None
    for port, role, bound in ((3, "output_low", record.output_low), (4, "output_high", record.output_high)):
        old = fake_quantize.input_node(port)
        constant = g.add_constant_data(bound, name=g.unique_name(f"{record.name}/{role}"))
        fake_quantize.set_input(port, constant.outputs[0])
        if not old.outputs[0].uses and old.type == "Constant":
            g.remove(old)
    if record.levels is not None:
        fake_quantize.attrs["levels"] = record.levels
    out.element_type = record.output_type
    fused_name = fake_quantize.name
    takes_over = fused_name != record.name  # the FakeQuantize had taken a model output's name
    if takes_over:
        g.rename(fake_quantize, g.unique_name(record.name))
    value = out
    for k, step in enumerate(record.steps):
        if step.convert_to is not None:
            value = _convert(g, value, step.convert_to, f"{step.name}/convert")
        constant = g.add_constant_data(step.constant, name=g.unique_name(f"{step.name}/constant"))
        last = k == len(record.steps) - 1
        node = g.add_node(step.op, [value, constant.outputs[0]], outputs=[(step.output_type, out.shape)],
                          attrs={"auto_broadcast": "numpy"},
                          name=fused_name if last and takes_over else g.unique_name(step.name))
        value = node.outputs[0]
    for use in users:
        use.set_source(value)
    value.names = names


def _unfuse_input(g: Graph, fake_quantize: Node) -> None:
    """The ops LPT folded into a FakeQuantize's input interval are written back in front of it
    when the FakeQuantize would otherwise read a Concat (through at most a Relu).

    The plugin's MoveFakeQuantize (one of LPT's prerequisites) moves a FakeQuantize that reads a
    single-use `Concat [-> Relu]` onto every input of the Concat. The original had the op between
    them (the plugin's MulFakeQuantizeFusion takes no per-channel scale on a dynamic shape), so
    the plugin kept one FakeQuantize after an f32 Concat; given the fused FakeQuantize it made
    one per input and a u8 Concat. Measured on openvino 2026.4 (a UNet's timestep embedding:
    sin/cos Concat -> SmoothQuant Multiply -> FakeQuantize): 8 runtime FakeQuantizes instead
    of 7; written back, the same 7 and the f32 Concat, outputs bit-exact.
    """
    record: FusedInput = fake_quantize.annotations.pop(FUSED_INPUT)
    source = fake_quantize.inputs[0].source
    concat = source.node.inputs[0].source.node if source.node.type == "Relu" else source.node
    if concat.type != "Concat" or len(concat.outputs[0].uses) != 1 or len(source.uses) != 1:
        return
    value = source
    for step in reversed(record.steps):
        if step.op == "Convert":
            value = _convert(g, value, step.output_type, step.name)
            continue
        constant = g.add_constant_data(step.constant, name=g.unique_name(f"{step.name}/constant"))
        value = g.add_node(step.op, [value, constant.outputs[0]], outputs=[(step.output_type, value.shape)],
                           attrs={"auto_broadcast": "numpy"}, name=g.unique_name(step.name)).outputs[0]
    fake_quantize.set_input(0, value)
    for port, role, bound in ((1, "input_low", record.input_low), (2, "input_high", record.input_high)):
        old = fake_quantize.input_node(port)
        constant = g.add_constant_data(bound, name=g.unique_name(f"{fake_quantize.name}/{role}"))
        fake_quantize.set_input(port, constant.outputs[0])
        if not old.outputs[0].uses and old.type == "Constant":
            g.remove(old)


def _name_fused_mat_muls(g: Graph) -> None:
    """A MatMul that absorbed the Multiply after it (MatMulMultiplyFusion) takes that Multiply's
    name, as the plugin names it when it fuses the original: the kernel keeps the name
    benchmark_app -pc shows for the original model (`scale_27`, not `scores_25`)."""
    for node in _in_order(g, lambda n: n.type == "MatMul" and FUSED_MULTIPLY_NAME in n.annotations):
        name = node.annotations[FUSED_MULTIPLY_NAME]
        if g.unique_name(name) != name:  # taken: keep its own
            continue
        for user in node.outputs[0].consumers():
            if user.node.name == f"{node.name}{_DEQUANTIZATION_MULTIPLY}":
                g.rename(user.node, g.unique_name(f"{name}{_DEQUANTIZATION_MULTIPLY}"))
        g.rename(node, name)


class MatMulZeroPoint(NamedTuple):
    """The zero point `zero_point` of a MatMul's input A that MatMulTransformation subtracts after
    the MatMul as the constant `product` = z @ B, kept on that Subtract for the runtime dialect."""

    zero_point: np.ndarray
    product: ConstantData


def _unswap_add(g: Graph, multiply: Node) -> None:
    """`(x - c) * a` that AddTransformation made of `x*a + b` on float `x` (a MatMul's result:
    attention scores plus a position bias) is written back as `x*a + b`.

    The plugin's common optimizations rewrite a Subtract -> Multiply on float data before its
    LPT (into `x*a + c'`, a new Multiply it fuses into the MatMul), so the MatMul lost its
    name and the sum was rounded otherwise. Measured on openvino 2026.4 (Swin's attention
    bias): written back, the plugin runs its own AddTransformation as on the original model.
    """
    shifted = multiply.input_node(0)
    scale = multiply.input_node(1)
    if (shifted.type not in ("Subtract", "Add") or scale.type != "Constant" or len(shifted.outputs[0].uses) != 1
            or shifted.input_node(1).type != "Constant"):
        return
    data = shifted.inputs[0].source
    if not data.element_type.is_real or data.node.type == "Constant":
        return
    original: SwappedAdd = multiply.annotations[SWAPPED_ADD]
    out = multiply.outputs[0]
    scaled = g.add_node("Multiply", [data, scale.outputs[0]], outputs=[(out.element_type, data.shape)],
                        attrs={"auto_broadcast": "numpy"})
    bias = g.add_constant_data(original.constant, name=g.unique_name(f"{multiply.name}/bias"))
    if bias.outputs[0].element_type != out.element_type:
        bias_out = _convert(g, bias.outputs[0], out.element_type, f"{multiply.name}/bias/to_{out.element_type.name}")
    else:
        bias_out = bias.outputs[0]
    added = g.add_node("Add", [scaled.outputs[0], bias_out], outputs=[(out.element_type, out.shape)],
                       attrs={"auto_broadcast": "numpy"}, name=g.unique_name(f"{multiply.name}/unswapped"))
    names, out.names = out.names, None
    out.replace_all_uses_with(added.outputs[0])
    added.outputs[0].names = names
    shift = shifted.input_node(1)
    g.remove(multiply)
    g.remove(shifted)
    if not shift.outputs[0].uses:
        g.remove(shift)
    g.rename(scaled, g.unique_name(f"{data.node.name}{_DEQUANTIZATION_MULTIPLY}"))
    g.rename(added, g.unique_name(original.name))


def _scale_onto_weights(g: Graph, mat_mul: Node) -> None:
    """`MatMul(x, W) -> Multiply(a) -> Add(bias)`, with `a` per output channel, is written as
    `MatMul(x, W * a) -> Add(bias)`: the scale replaces the `1.0` of the weights' dequantization.

    The plugin's LPT marks a bias only on an Add right behind a MatMul (MarkupBias, before its
    MatMulTransformation), and its AddTransformation leaves marked Adds alone on CPU. Behind the
    Multiply, the Add is no bias for it: it regroups `x*a + b` into `(x + b/a)*a` (FullyConnected
    post-ops `Add, DequantizationMultiply` instead of the original's `DequantizationMultiply,
    Add`). Measured on openvino 2026.4 (wav2vec2's positional convolution input: smooth-quant
    FakeQuantize -> MatMul -> bias -> FakeQuantize): one level flips (7.7e-3 of max); written
    so, the plugin multiplies 1.0 by `a` itself and keeps the bias: bit-exact.
    """
    users = mat_mul.outputs[0].consumers()
    weights = mat_mul.input_node(1)
    if (len(users) != 1 or users[0].node.type != "Multiply" or not _is_multiply_by_one(weights)
            or weights.input_node(0).type != "Convert" or weights.input_node(0).input_node(0).type != "Constant"):
        return
    multiply = users[0].node
    scale = multiply.input_node(1 - users[0].index)
    after = multiply.outputs[0].consumers()
    if (scale.type != "Constant" or len(after) != 1 or not _is_bias(after[0].node)
            or scale.constant_data.element_type != weights.outputs[0].element_type):
        return
    weights_shape = weights.outputs[0].shape
    scale_shape = scale.constant_data.shape
    if weights_shape is None or len(weights_shape) < 2 or any(d != 1 for d in scale_shape[:-1]):
        return
    channels = scale_shape[-1] if scale_shape else 1
    shape = [1] * len(weights_shape)
    shape[-1 if not mat_mul.attr_bool("transpose_b") else -2] = channels
    one = weights.input_node(1)
    per_channel = g.add_constant(scale.value.reshape(shape) if channels > 1 else scale.value.reshape(()),
                                 scale.constant_data.element_type, name=g.unique_name(f"{weights.name}/scale"))
    weights.set_input(1, per_channel.outputs[0])
    if not one.outputs[0].uses:
        g.remove(one)
    _bypass(g, multiply, mat_mul.outputs[0])


# Ops LPT moves a positive per-channel scale across unchanged: f(x * c) == f(x) * c, exactly.
_COMMUTES_WITH_SCALE = frozenset({"Relu", "MaxPool"})
# What the plugin's MultiplyConvolutionFusion family folds a Multiply in front of.
_FOLDS_SCALE_IN_FRONT = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData",
                                   "GroupConvolutionBackpropData"})
# Producers whose scale right behind them the plugin folds into their own weights dequantization
# (ConvolutionMultiplyFusion, MatMulMultiplyFusion): 1.0 * c, exact.
_FOLDS_SCALE_BEHIND = frozenset({"Convolution", "GroupConvolution", "MatMul"})


def _scale_before_crossed_ops(g: Graph, multiply: Node) -> None:
    """`P -> Relu/MaxPool... -> Multiply(c) -> Convolution(float)`, where LPT moved P's dequantization
    scale c across the Relu, is written `P -> Multiply(c) -> Relu/MaxPool... -> Convolution`.

    The plugin's common optimizations run again on lpt's output, and MultiplyConvolutionFusion folds
    a constant Multiply in front of a Convolution into its weights: `x @ (W * c)`, other rounding
    than the `(x * c) @ W` the plugin computes on the original, where the Multiply only appears
    during its LPT, after that fusion ran. Measured on openvino 2026.4 (NNCF ignoring a quarter of
    resnet18's convolutions: an ignored convolution behind a quantized convolution and its Relu):
    2.9e-7 at the convolution, a level flipped at the next FakeQuantize, 2.5e-3 of max at the
    output. Written behind P, the scale goes into P's weights dequantization (1.0 * c) and the
    plugin's LPT moves it across the Relu again: bit-exact.
    """
    uses = multiply.outputs[0].uses
    if len(multiply.inputs) != 2 or len(uses) != 1 or uses[0].index != 0 \
            or uses[0].node.type not in _FOLDS_SCALE_IN_FRONT:
        return
    constant_index = next((i for i in (1, 0) if multiply.input_node(i).type == "Constant"), None)
    if constant_index is None:
        return
    scale, value = multiply.input_node(constant_index), multiply.inputs[1 - constant_index].source
    shape = scale.constant_data.shape
    per_channel = not shape or (len(shape) == value.rank and all(d == 1 for i, d in enumerate(shape) if i != 1))
    if not per_channel or scale.constant_data.count == 0 or not bool(np.all(scale.value > 0)):
        return  # a positive scalar or per-channel [1, C, 1, ...] scale crosses a Relu/MaxPool exactly
    crossed: list[Node] = []
    while value.node.type in _COMMUTES_WITH_SCALE and value.index == 0 and len(value.uses) == 1 \
            and all(not out.uses for out in value.node.outputs[1:]):
        crossed.append(value.node)
        value = value.node.inputs[0].source
    producer = value.node
    if not crossed or producer.type not in _FOLDS_SCALE_BEHIND or len(value.uses) != 1 \
            or value.element_type != multiply.outputs[0].element_type:
        return
    multiply.outputs[0].replace_all_uses_with(crossed[0].outputs[0])
    crossed[-1].set_input(0, multiply.outputs[0])
    multiply.set_input(1 - constant_index, value)
    multiply.outputs[0].shape = value.shape


def _bypass(g: Graph, node: Node, value: Output) -> None:
    """`node` leaves the graph and its users read `value`, which keeps its own tensor names or takes
    `node`'s; a Constant only `node` read goes with it."""
    out = node.outputs[0]
    names, out.names = out.names, None
    out.replace_all_uses_with(value)
    value.names = value.names or names
    constants = [source.node for source in node.input_values() if source.node.type == "Constant"]
    g.remove(node)
    for constant in constants:
        if not constant.outputs[0].uses:
            g.remove(constant)


def _is_multiply_by_one(node: Node) -> bool:
    """`Multiply(x, 1.0)`, the dequantization `_to_float` gives an integer input, used once."""
    if node.type != "Multiply" or len(node.outputs[0].uses) != 1 or node.input_node(1).type != "Constant":
        return False
    one = node.input_node(1)
    return one.constant_data.count == 1 and float(one.value.reshape(-1)[0]) == 1.0


def _is_bias(node: Node) -> bool:
    """An Add of a constant that is one value or varies along one axis: what MarkupBias marks."""
    if node.type != "Add":
        return False
    constant = next((node.input_node(i) for i in (0, 1) if node.input_node(i).type == "Constant"), None)
    if constant is None:
        return False
    shape = constant.constant_data.shape
    return constant.constant_data.count == 1 or sum(1 for d in shape if d > 1) == 1


def _zero_point_before_mat_mul(g: Graph, subtract: Node) -> None:
    """`A @ B - z @ B` (MatMulTransformation's form of A's zero point z) is written back as
    `Convert -> Subtract(z) -> Multiply(1.0) -> MatMul`, as the plugin's own FakeQuantize
    decomposition leaves A, so that the plugin computes `z @ B` itself.

    Measured on openvino 2026.4 (wav2vec2's feature projection: u8 with a zero point -> MatMul
    -> bias Add -> FakeQuantize): given `z @ B` after the MatMul, the plugin regroups it with the
    scale and the bias into other post-ops and single values round to the next level of the
    FakeQuantize (7.7e-3 of max); written back it is bit-exact.
    """
    original: MatMulZeroPoint = subtract.annotations[MAT_MUL_ZERO_POINT]
    mat_mul = subtract.input_node(0)
    results = list(mat_mul.outputs)  # SplitTransformation left one slice of `z @ B` behind every output
    if mat_mul.type in _SPLITS:
        mat_mul = mat_mul.input_node(0)
        if len(mat_mul.outputs[0].uses) != 1:  # z before the MatMul would shift its other users too
            return
    subtracts = _zero_point_users(results, original.zero_point)
    one = _dequantization_head(mat_mul.inputs[0].source, original.zero_point) if mat_mul.type == "MatMul" else None
    if (one is None or one.type != "Multiply" or one.input_node(0).type != "Convert" or len(one.outputs[0].uses) != 1
            or not subtracts or any(sub.input_node(1).data is not sub.annotations[MAT_MUL_ZERO_POINT].product
                                    for sub in subtracts)):  # a later pass changed the constant
        return
    converted = one.inputs[0].source
    zero_point = g.add_constant(original.zero_point, converted.element_type)
    shifted = g.add_node("Subtract", [converted, zero_point.outputs[0]],
                         outputs=[(converted.element_type, converted.shape)], attrs={"auto_broadcast": "numpy"},
                         name=g.unique_name(f"{mat_mul.name}/zero_point"))
    one.set_input(0, shifted.outputs[0])
    for sub in subtracts:
        _bypass(g, sub, sub.inputs[0].source)


def _zero_point_users(results: list[Output], zero_point: np.ndarray) -> list[Node]:
    """Every user of the MatMul's `results` (its output, or its Split's outputs), when each is a
    `z @ B` Subtract of the zero point `zero_point`; else []. Moved before the MatMul, z shifts
    every user: a private copy of the Subtract (made for an Add, a Concat) must go with it."""
    found = []
    for out in results:
        for user in out.consumers():
            record = user.node.annotations.get(MAT_MUL_ZERO_POINT)
            if record is None or user.index != 0 or not np.array_equal(record.zero_point, zero_point):
                return []
            found.append(user.node)
    return found


def _dequantization_head(value: Output, zero_point: np.ndarray) -> Node:
    """The node that makes `value`: past single-use Reshape/Transpose/... when the zero point is
    one value, which the shape-only ops leave as it is (`_hoist_dequantization` put the `1.0` of
    the activations there). Measured on openvino 2026.4 (ALBERT's attention output: FakeQuantize ->
    Reshape -> Transpose -> Reshape -> MatMul): with the zero point at the chain's head as the
    plugin's own FakeQuantize decomposition puts it, bit-exact; left after the MatMul, 1.8e-7."""
    if np.asarray(zero_point).size == 1:
        while value.node.type in _SHAPE_ONLY and len(value.uses) == 1:
            value = value.node.inputs[0].source
    return value.node


def _name_dequantization_copies(g: Graph) -> None:
    """An unnamed dequantization Multiply (`Multiply_376`: the private copy LPT gives one consumer
    of a shared dequantization, unnamed as OpenVINO's separateInStandaloneBranch leaves it) is
    named after LPT's `LAYER/DequantizationMultiply` on the same value: `..._1`.

    The plugin names the kernel both Multiplies fuse into after one of them, not always the
    named one. Measured on openvino 2026.4 (ALBERT's embedding_hidden_mapping_in MatMul, feeding
    a residual Add and three FakeQuantizes): the FullyConnected kernels were `Multiply_376` and
    `Multiply_376_0`; with this naming `<MatMul>/DequantizationMultiply_1` and `..._1_0`.
    """
    if not any(node.type == "Multiply" and _ANONYMOUS.fullmatch(node.name) for node in g.nodes.values()):
        return  # renaming only ever takes such a name away
    for node in list(g.topological_order()):
        for out in node.outputs:
            scales = [use.node for use in out.uses if use.node.type == "Multiply"
                      and any(value.node.type == "Constant" for value in use.node.input_values())]
            named = next((m for m in scales if m.name.endswith(_DEQUANTIZATION_MULTIPLY)), None)
            if named is None:
                continue
            for copy in scales:
                if _ANONYMOUS.fullmatch(copy.name):
                    g.rename(copy, g.unique_name(named.name))


def _name_kernels_as_layers(g: Graph) -> None:
    """A layer's name moves to its `LAYER/DequantizationMultiply`, the layer becomes
    `LAYER_original` (what LPT itself does for a layer feeding a model output).

    The CPU plugin fuses that Multiply into the INT8 kernel and names the kernel after the
    Multiply. Measured on openvino 2026.4: benchmark_app -pc listed `conv_2` for the original
    model and `conv_2/DequantizationMultiply` for lpt's; with this naming, `conv_2` for both.
    The same for a MatMul of two activations (an attention score), not for one on weights.
    """
    for node in _in_order(g, lambda n: n.type in _SCALED_KERNELS and len(n.outputs) == 1):
        if node.type == "MatMul" and not g.has_upstream(node.input_node(1), _DATA_SOURCES):
            continue  # weights: a FullyConnected kernel
        users = node.outputs[0].consumers()
        if len(users) != 1 or users[0].node.name != f"{node.name}{_DEQUANTIZATION_MULTIPLY}":
            continue
        layer_name = node.name
        g.rename(node, g.unique_name(f"{layer_name}_original"))
        g.rename(users[0].node, layer_name)


def copy_graph(graph: Graph) -> Graph:
    """A structural copy: new nodes and ports; constant payloads and opaque XML are shared."""
    new = Graph(graph.name)
    new.xml_model_extra = list(graph.xml_model_extra)
    new.xml_blob = graph.xml_blob
    new.read_types = graph.read_types  # node ids are kept, and the table is only read
    outputs: dict[int, Output] = {}
    for node in graph.topological_order():
        twin = new.add_node(node.type, [outputs[id(s.source)] for s in node.inputs], attrs=node.attrs,
                            outputs=[(o.element_type, o.shape) for o in node.outputs],
                            version=node.version, name=node.name, node_id=node.id)
        twin.data, twin.annotations = node.data, dict(node.annotations)
        twin.xml_rt_info, twin.xml_extra, twin.xml_attrs = node.xml_rt_info, node.xml_extra, node.xml_attrs
        for slot, old in zip(twin.inputs, node.inputs):
            slot.xml_rt_info = old.xml_rt_info
        for out, old_out in zip(twin.outputs, node.outputs):
            out.names, out.xml_rt_info = old_out.names, old_out.xml_rt_info
            outputs[id(old_out)] = out
    new.parameters = [new.nodes[n.id] for n in graph.parameters]
    new.results = [new.nodes[n.id] for n in graph.results]
    return new


def _as_read(node: Node) -> bool:
    """The node reads and makes the types the model was read with: LPT made nothing low precision
    here, so stock OpenVINO takes it as the user's model had it (a Range on i64 and i32, OneHot's
    indices, an LSTM's sequence lengths)."""
    read = node.graph.read_types.get(node.id)
    return read is not None and read == type_signature(node)


def _data_inputs(node: Node) -> list[int]:
    """Inputs that carry the op's numbers: not shapes/axes/indices, never a boolean, which is a
    condition or a mask (SDPA's boolean `attn_mask` selects; as 1.0/0.0 it would be added), and
    never an integer input of a node read from the model that reads what it read then (an index,
    a length, an offset: only a value LPT made low precision is the op's data in another form)."""
    aux = _AUX_INPUTS.get(node.type, frozenset())
    read = node.graph.read_types.get(node.id)
    return [i for i in range(len(node.inputs))
            if i not in aux and node.inputs[i].source.element_type.kind != "bool"
            and not (read is not None and i < len(read[0]) and node.inputs[i].source.element_type.is_integral
                     and read[0][i] == node.inputs[i].source.element_type)]


def _main_outputs(node: Node) -> list[Output]:
    if node.type not in _OWN_TYPE_OUTPUTS:
        return list(node.outputs)
    own = _OWN_TYPE_OUTPUTS[node.type]
    return [] if own is None else [o for o in node.outputs if o.index not in own]


def _needs_float(node: Node) -> bool:
    if node.type in _UNTOUCHED or _as_read(node):
        return False
    types = {node.inputs[i].source.element_type for i in _data_inputs(node)}
    types |= {o.element_type for o in _main_outputs(node)}
    if len(types) != 1:
        return len(types) > 1
    only = next(iter(types))
    if only.is_real or only.kind == "bool" or only.name in _SHAPE_MATH:
        return False
    return node.type not in _DATA_MOVEMENT


def _compute_type(node: Node) -> ElementType:
    """The float type the stock op computes in: its (first) float output, else input, else f32;
    f32 when a data input is f32 (an f16 deq precision's FakeQuantize on an f32 interval: in f16
    the interval can be inf, and the CPU plugin refuses the FakeQuantize)."""
    if any(node.inputs[i].source.element_type == f32 for i in _data_inputs(node)):
        return f32
    for out in _main_outputs(node):
        if out.element_type.is_real:
            return out.element_type
    for i in _data_inputs(node):
        if node.inputs[i].source.element_type.is_real:
            return node.inputs[i].source.element_type
    return f32


def _relax(g: Graph, node: Node) -> None:
    ctype = _compute_type(node)
    if _hoist_dequantization(g, node, ctype):
        return
    integral_data = False
    for i in _data_inputs(node):
        source = node.inputs[i].source
        if source.element_type == ctype:
            continue
        integral_data |= source.element_type.is_integral
        node.set_input(i, _to_float(g, source, node, ctype))
    for out in _main_outputs(node):
        if out.element_type != ctype:
            _convert_after(g, out, ctype)
    if node.type == "Subtract" and integral_data:
        _scale_after(g, node.outputs[0], ctype)


def _to_float(g: Graph, source: Output, consumer: Node, ctype: ElementType) -> Output:
    """`source` as `ctype`, in a form the plugin recognizes as (part of) a dequantization."""
    continues = consumer.type in _DEQUANTIZATION and source.node.type != "Constant"
    plain = continues or (consumer.type in _ARITHMETIC and source.node.type == "Constant")
    if source.element_type.is_integral and (continues or not plain):
        head = _shape_only_head(source, dequantization_ok=continues)
        if head is not source:
            return _dequantize_at_head(g, head, source, ctype)
    converted = _convert(g, source, ctype, f"{consumer.name}/to_{ctype.name}")
    if not source.element_type.is_integral or plain:
        return converted
    return _multiply_by_one(g, converted, ctype, f"{consumer.name}/dequantize")


def _hoist_dequantization(g: Graph, node: Node, ctype: ElementType) -> bool:
    """A dequantization by scalars that LPT left behind a chain of Reshape/Transpose (its consumer,
    e.g. ScaledDotProductAttention, takes no low precision) moves to the chain's head.

    Measured on openvino 2026.4 (BERT, CPU): `FakeQuantize -> Reshape(i8) -> Transpose(i8) ->
    Convert -> Multiply -> SDPA` makes the plugin swap Convert and Transpose and run the
    attention in f32, while `FakeQuantize -> Convert -> Multiply -> Reshape -> Transpose` is the
    original's layout after the plugin's own FakeQuantize decomposition: it runs the same i8
    attention kernel. With scalar constants the two are the same math.
    """
    if node.type not in _DEQUANTIZATION:
        return False
    data = next((i for i in (0, 1) if node.input_node(i).type != "Constant"), None)
    source = node.inputs[data].source if data is not None else None
    if source is None or not source.element_type.is_integral or len(source.uses) != 1:
        return False
    head = _shape_only_head(source)
    if head is source:
        return False
    ops = [node]
    if node.type == "Subtract":
        users = node.outputs[0].consumers()
        if len(users) == 1 and users[0].node.type == "Multiply":
            ops.append(users[0].node)
    constants = [op.input_node(1 - _data_index(op, prev)) for op, prev in zip(ops, [source.node, *ops])]
    if any(c.type != "Constant" or c.output().element_type.is_integral or c.constant_data.count != 1
           for c in constants):
        return False
    chain = _chain(head, source)
    value = _convert(g, head, ctype, f"{chain[-1].node.name}/to_{ctype.name}")
    moved = []
    for op, given in zip(ops, constants):
        # a [1,1,1,1,1] scale of a rank-5 chain end would lift a rank-4 head to 5
        constant = given if given.output().rank == 0 else g.add_constant(given.value.reshape(()), given.output().element_type)
        value = g.add_node(op.type, [value, constant.output()], outputs=[(ctype, head.shape)],
                           attrs=dict(op.attrs), name=g.unique_name(f"{op.name}/moved")).outputs[0]
        moved.append((value.node, op.name))
    chain[-1].node.set_input(0, value)
    for out in chain:
        out.element_type = ctype
    last = ops[-1].outputs[0]
    last.replace_all_uses_with(source)
    source.names, last.names = last.names or source.names, None
    for op in reversed(ops):
        g.remove(op)
    for twin, name in moved:
        g.rename(twin, name)  # the dequantization keeps its name where it now sits
    return True


def _converts_a_transpose(node: Node) -> bool:
    """A `Convert` to float of integers a Transpose made (the start of a dequantization LPT kept
    whole, e.g. in front of a recurrent sequence)."""
    if node.type != "Convert" or not node.inputs:
        return False
    source = node.inputs[0].source
    return (source.node.type == "Transpose" and source.element_type.is_integral
            and not node.outputs[0].element_type.is_integral)


def _hoist_converted_dequantization(g: Graph, convert: Node) -> None:
    """`Transpose(int) -> Convert -> [Subtract] -> Multiply` by scalars is written with the
    dequantization at the head of the Transpose (and any Reshape/... chain before it).

    The CPU plugin's TransposeSinking (before its LPT) moves a Transpose below the Convert after
    it: the Transpose then computes in float between the Convert and the Multiply, and no
    dequantization is left for the plugin's LPT. Measured on openvino 2026.4 (a bidirectional
    LSTM whose zero initial state LPT moved through Broadcast, Split and Transpose): written that
    way the LSTMSequence ran in f32 instead of u8 (and computed other values); with `Convert ->
    Multiply -> Transpose` the plugin's LPT moves the dequantization down again, as it does in the
    original, and runs the same u8 cell.
    """
    source = convert.inputs[0].source
    if len(source.uses) != 1:
        return
    ops: list[Node] = []
    value = convert.outputs[0]
    while len(value.uses) == 1 and value.uses[0].node.type in _DEQUANTIZATION and len(ops) < 2:
        op = value.uses[0].node
        if op.type == "Subtract" and ops:
            break
        ops.append(op)
        value = op.outputs[0]
        if op.type == "Multiply":
            break
    if not ops or ops[-1].type != "Multiply":
        return
    constants = [op.input_node(1 - _data_index(op, prev)) for op, prev in zip(ops, [convert, *ops])]
    if any(c.type != "Constant" or c.outputs[0].element_type.is_integral or c.constant_data.count != 1
           for c in constants):
        return
    head = _shape_only_head(source)
    if head is source:
        return
    chain = _chain(head, source)
    ctype = convert.outputs[0].element_type
    moved_convert = _convert(g, head, ctype, f"{convert.name}/moved")
    value = moved_convert
    renames = [(moved_convert.node, convert.name)]
    for op, given in zip(ops, constants):
        scalar = given if given.outputs[0].rank == 0 else g.add_constant(
            given.value.reshape(()), given.outputs[0].element_type)
        value = g.add_node(op.type, [value, scalar.outputs[0]], outputs=[(ctype, head.shape)],
                           attrs=dict(op.attrs), name=g.unique_name(f"{op.name}/moved")).outputs[0]
        renames.append((value.node, op.name))
    chain[-1].node.set_input(0, value)
    for out in chain:
        out.element_type = ctype
    last = ops[-1].outputs[0]
    last.replace_all_uses_with(source)
    source.names, last.names = last.names or source.names, None
    for op in reversed([convert, *ops]):
        g.remove(op)
    for twin, name in renames:
        g.rename(twin, name)


def _data_index(op: Node, data: Node) -> int:
    return 0 if op.input_node(0) is data else 1


def _chain(head: Output, end: Output) -> list[Output]:
    """The outputs of the shape-only ops from `head` (exclusive) to `end`, last first."""
    chain = []
    out = end
    while out is not head:
        chain.append(out)
        out = out.node.inputs[0].source
    return chain


def _shape_only_head(source: Output, dequantization_ok: bool = False) -> Output:
    """Where a chain of single-use Reshape/Transpose/... ending in `source` starts.

    Written at the chain's head, `Convert -> Multiply(1.0)` looks like a quantizer output's
    dequantization, which the CPU plugin's LPT moves down through the chain itself. Measured
    on openvino 2026.4: a Q x K^T MatMul fed `Reshape -> Transpose -> Convert -> Multiply(1.0)`
    ran in an f32 attention snippet; fed `Convert -> Multiply(1.0) -> Reshape -> Transpose`,
    it ran in i8 like the original model. The same for convnext's 7x7 depthwise convolution
    behind a Transpose: at the head it runs i8, behind the Transpose f32. The chain's last value
    may feed several ops (convnext's residual) if all of them compute in float anyway.

    A zero-point dequantization behind the chain (`dequantization_ok`: the consumer is LPT's
    `Subtract(u8, zero point)`) needs the head too. Measured on openvino 2026.4 (AVX2, convnext's
    stem LayerNorm -> FakeQuantize(u8) -> Transpose -> 7x7 depthwise): `Transpose(u8) -> Convert
    -> Subtract -> Multiply(1.0) -> GroupConvolution` crashes `compile_model` (segfault), with
    another scale it runs f32; `Convert -> Multiply(1.0)` before the Transpose runs the same i8
    kernel as the original, bit-exact.
    """
    head = source
    while (head.node.type in _SHAPE_ONLY
           and (len(head.uses) == 1 or (head is source and _all_compute(head, dequantization_ok)))
           and head.node.inputs[0].source.element_type == source.element_type):
        head = head.node.inputs[0].source
    return head


def _all_compute(value: Output, dequantization_ok: bool = False) -> bool:
    """Every consumer of `value` computes in float (none keeps integers or passes them on);
    with `dequantization_ok`, LPT's dequantization Subtract/Multiply count as float consumers."""
    return all(use.node.type not in _DATA_MOVEMENT and use.node.type not in _UNTOUCHED
               and (dequantization_ok or use.node.type not in _DEQUANTIZATION) for use in value.uses)


def _dequantize_at_head(g: Graph, head: Output, end: Output, ctype: ElementType) -> Output:
    """`Convert -> Multiply(1.0)` on `head`; the shape-only ops from there to `end` now carry `ctype`."""
    chain = _chain(head, end)
    first = chain[-1].node
    converted = _convert(g, head, ctype, f"{first.name}/to_{ctype.name}")
    first.set_input(0, _multiply_by_one(g, converted, ctype, f"{first.name}/dequantize"))
    for value in chain:
        value.element_type = ctype
    return end


def _convert(g: Graph, source: Output, to: ElementType, name: str) -> Output:
    node = g.add_node("Convert", [source], outputs=[(to, source.shape)], attrs={"destination_type": to.name},
                      name=g.unique_name(name))
    return node.outputs[0]


def _multiply_by_one(g: Graph, value: Output, ctype: ElementType, name: str) -> Output:
    one = g.add_constant(1.0, ctype, name=g.unique_name(f"{name}/one"))
    node = g.add_node("Multiply", [value, one.outputs[0]], outputs=[(ctype, value.shape)],
                      attrs={"auto_broadcast": "numpy"}, name=g.unique_name(name))
    return node.outputs[0]


def _convert_after(g: Graph, out: Output, computed: ElementType) -> None:
    """`out` is declared integral but the stock op computes `computed`: Convert behind it."""
    declared = out.element_type
    consumers = out.consumers()
    out.element_type = computed
    source = out
    if not _on_integer_grid(out.node):
        source = g.add_node("Round", [out], outputs=[(computed, out.shape)], version="opset5",
                            attrs={"mode": "half_to_even"},
                            name=g.unique_name(f"{out.node.name}/round")).outputs[0]
    converted = _convert(g, source, declared, f"{out.node.name}/to_{declared.name}")
    converted.names, out.names = out.names, None
    for use in consumers:
        use.set_source(converted)


def _on_integer_grid(node: Node) -> bool:
    """True when a FakeQuantize's output levels are whole numbers (LPT's own [0, 255],
    [-128, 127] ...), so Convert needs no Round and the plugin's FakeQuantize fusion stays."""
    if node.type != "FakeQuantize":
        return True
    low, high = (node.input_node(i) for i in (3, 4))
    if low.type != "Constant" or high.type != "Constant":
        return False
    levels = node.attr_int("levels", 256) or 256
    lo, hi = low.value.astype("float64"), high.value.astype("float64")
    step = (hi - lo) / (levels - 1)
    return bool((lo == lo.round()).all() and (step == step.round()).all())


def _scale_after(g: Graph, out: Output, ctype: ElementType) -> None:
    """Convert -> Subtract only reads as a dequantization when a Multiply follows."""
    others = [use for use in out.consumers() if use.node.type != "Multiply"]
    if not others:
        return
    scaled = _multiply_by_one(g, out, ctype, f"{out.node.name}/dequantize")
    for use in others:
        use.set_source(scaled)

