"""ConvertPrecision(f32 -> f16): the model in the plugin's inference precision before LPT.

The GPU plugin converts the model to its inference precision (f16 unless INFERENCE_PRECISION_HINT
says otherwise) in its pre-LPT step (transformations_pipeline.cpp, TransformationsPipeline::apply:
`ConvertPrecision(fp_convert_precision_map, {}, keep_precision_sensitive_in_fp32 = true,
convert_input_output_precision = false, ...)`), the CPU plugin with an f16 hint likewise
(transformation_pipeline.cpp, Transformations::PreLpt). LPT then starts from f16 FakeQuantize
intervals and constants, and from the names this conversion gives. What convert_precision.cpp,
align_mixed_fp32_fp16_types.cpp and mark_subgraphs_to_keep_in_mixed_precision.cpp do, as lpt
models it:
- precision-sensitive subgraphs stay f32 (MarkSugraphsToKeepInMixedPrecision): a division by
  `Max|Add(x, eps)` (or by its Sqrt, or a product with its negative Power) whose eps is at most
  f16's smallest normal number, an Exp that reaches a ReduceSum/ReduceMean, a floating-point Range
  and what it feeds, and an MVN the plugin decomposes (its decomposition divides by such a
  `Sqrt(var + eps)`); the marks spread down and up through elementwise, reshaping, reducing,
  splitting and concatenating ops, and stop below a FakeQuantize and the data-movement ops after it.
  Nodes with bodies (TensorIterator, Loop, If) stay f32 as wholes (the plugin converts their bodies).
- Converts join f32 and f16 parts: `<producer>_decompressed_to_f32` in front of a kept node,
  `<node>_compressed_to_f16` behind it;
- every other f32 value becomes f16: constants rounded and clamped to +-65504
  (`convert_from_f32_to_f16_with_clamp`), a Convert to f32 converts to f16, an f32 Parameter gets a
  `Convert` to f16 for its consumers (Results and Converts keep reading it), and a Convert that
  now converts f16 to f16 is removed (the legacy `f16 Constant -> Convert` layout stays f16);
- a Result fed f16 reads it through a Convert to f32 that takes its producer's name and tensor
  names (`name.index` for a second output); the producer gets an automatic name, so LPT sees no
  layer in front of a Result.
Not modelled (README): the ShapeOf subgraphs' marks (integer), ReadValue/Assign pairs, other
ops with an output type attribute than Convert and Range.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.constant import ConstantData
from ...ir.eltypes import ElementType, f16, f32
from ...ir.op_facts import SHAPE_VALUE_INPUTS
from ..surgery.constants import DISABLE_CONSTANT_FOLDING
from .mvn import DECOMPOSED_BY_PLUGIN

F16_MIN_NORMAL = 2.0**-14  # float16_min_normalized
F16_MAX = 65504.0

_BINARY = frozenset({"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power", "Mod", "FloorMod",
                     "SquaredDifference"})
_UNARY = frozenset({"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceiling", "Clamp", "Cos", "Cosh",
                    "Elu", "Erf", "Exp", "Floor", "Gelu", "HSigmoid", "HSwish", "Log", "Mish", "Negative", "Relu",
                    "Sigmoid", "Sign", "Sin", "Sinh", "SoftPlus", "SoftSign", "Sqrt", "Tan", "Tanh", "Round"})
# propagate_through_ops: the marks spread through these (BinaryElementwiseArithmetic and
# UnaryElementwiseArithmetic as their op types).
_PROPAGATE = frozenset({"Squeeze", "Unsqueeze", "Reshape", "Broadcast", "MVN", "NormalizeL2", "StridedSlice",
                        "ReduceSum", "ReduceMean", "Slice", "VariadicSplit", "Split", "Concat", "Convert",
                        "Constant", "Tile"}) | _BINARY | _UNARY
# PropagateDownDisableSensitivityForQuantized: f16 again below a FakeQuantize through these.
_FQ_PATH = frozenset({"Squeeze", "Unsqueeze", "FakeQuantize", "Reshape", "Broadcast", "DepthToSpace", "Interpolate",
                      "MaxPool", "Pad", "ReduceMax", "ReduceMin", "Relu", "Transpose", "ShuffleChannels",
                      "StridedSlice", "Slice", "VariadicSplit", "Split", "Concat", "Tile"})
_RANGE_PATH = frozenset({"Convert", "Greater", "GreaterEqual", "Less", "LessEqual", "Reshape", "Range", "Squeeze",
                         "Unsqueeze"})
_WITH_BODIES = frozenset({"TensorIterator", "Loop", "If", "ReadValue", "Assign"})
_CONVERTED = frozenset({"f32", "bf16"})  # the map's sources for f16: f32 -> f16, bf16 -> f16


def _real_inputs(node: Node) -> list[Node]:
    return [slot.source.node for slot in node.inputs if slot.source.element_type.is_real]


def _consumers_reading_real(node: Node) -> list[Node]:
    return [use.node for out in node.outputs for use in out.uses if out.element_type.is_real]


def _small_eps(node: Node) -> bool:
    """An eps Constant (maybe behind a Convert) whose values are all <= f16's smallest normal."""
    if node.type == "Convert":
        node = node.input_node(0)
    if node.type != "Constant":
        return False
    return not node.output().element_type.is_real or bool(np.all(node.value.astype(np.float64) <= F16_MIN_NORMAL))


def _eps_guard(node: Node) -> bool:
    """`Maximum|Add(x, eps)` with a small eps on either input (the ops are commutative)."""
    return node.type in ("Maximum", "Add") and len(node.inputs) == 2 and any(
        _small_eps(node.input_node(i)) for i in (0, 1))


def _divides_with_eps(node: Node) -> bool:
    """MarkDivWithEps: x / [Sqrt](Max|Add(y, eps)), or x * Power(Max|Add(y, eps), z < 0)."""
    if node.type == "Divide" and len(node.inputs) == 2:
        divisor = node.input_node(1)
        if divisor.type == "Sqrt":
            divisor = divisor.input_node(0)
        return _eps_guard(divisor)
    if node.type == "Multiply" and len(node.inputs) == 2:
        for power in (node.input_node(0), node.input_node(1)):
            if power.type != "Power" or not _eps_guard(power.input_node(0)):
                continue
            exponent = power.input_node(1)
            if exponent.type == "Convert":
                exponent = exponent.input_node(0)
            if exponent.type == "Constant" and bool(np.all(exponent.value.astype(np.float64) < 0)):
                return True
    return False


def _decomposed_mvn_divides(node: Node) -> bool:
    """An MVN the plugin decomposes divides by `Sqrt(var + eps)` (or `Sqrt(var) + eps`)."""
    if node.type != "MVN" or not node.annotations.get(DECOMPOSED_BY_PLUGIN):
        return False
    return node.attr_bool("normalize_variance", True) and (node.attr_float("eps", 0.0) or 0.0) <= F16_MIN_NORMAL


def keep_in_f32(graph: Graph, order: list[Node]) -> set[int]:
    """MarkSugraphsToKeepInMixedPrecision: the ids of the nodes that stay f32."""
    kept: set[int] = set()
    range_path: set[int] = set()
    for node in order:  # MarkFloatingPointRange
        if node.type not in _RANGE_PATH:
            continue
        if node.type == "Range" and node.output().element_type.is_real:
            range_path.add(node.id)
            kept.add(node.id)
            kept.update(slot.source.node.id for slot in node.inputs)
        elif any(slot.source.node.id in range_path for slot in node.inputs):
            range_path.add(node.id)
            kept.add(node.id)
    kept.update(n.id for n in order if _divides_with_eps(n) or _decomposed_mvn_divides(n))
    reduce_path: set[int] = set()
    for node in reversed(order):  # MarkExpInReduceOpPath (backward)
        if node.type in ("ReduceSum", "ReduceMean"):
            reduce_path.add(node.id)
            continue
        if node.type in _PROPAGATE and any(c.id in reduce_path for c in _consumers_reading_real(node)):
            reduce_path.add(node.id)
        if node.type == "Exp" and node.id in reduce_path:
            kept.add(node.id)
    fq_path: set[int] = set()
    for node in order:  # PropagateDownDisableSensitivityForQuantized
        if node.type == "FakeQuantize":
            fq_path.add(node.id)
        elif node.type in _FQ_PATH and any(s.node.type == "FakeQuantize" or s.node.id in fq_path
                                           for s in (slot.source for slot in node.inputs)):
            fq_path.add(node.id)
            kept.discard(node.id)
    for node in order:  # PropagateDownMarkToKeepInMixedPrecision
        if node.type not in _PROPAGATE or node.type == "Convert":
            continue
        for source in _real_inputs(node):
            if source.id in fq_path:
                kept.discard(node.id)
                break
            if source.id in kept:
                kept.add(node.id)
                break
    for node in reversed(order):  # PropagateUpMarkToKeepInMixedPrecision (backward)
        if node.type not in _PROPAGATE or node.id in kept:
            continue
        if not any(c.id in kept for c in _consumers_reading_real(node)):
            continue
        if node.type == "Convert" and node.input_node(0).type != "Constant":
            continue
        kept.add(node.id)
    kept.update(n.id for n in order if n.type in _WITH_BODIES)
    return kept


def _convert(graph: Graph, source: Output, to: ElementType, name: str | None = None) -> Node:
    return graph.add_node("Convert", [source], outputs=[(to, source.shape)], attrs={"destination_type": to.name},
                          name=graph.unique_name(name) if name else None)


def _align(graph: Graph, order: list[Node], kept: set[int]) -> None:
    """AlignMixedFP32FP16Types: Converts where a kept node meets a converted one."""
    for node in order:
        if node.id not in kept:
            continue
        for slot in list(node.inputs):
            source = slot.source
            if source.node.id in kept or not source.element_type.is_real:
                continue
            convert = _convert(graph, source, source.element_type, f"{source.node.name}_decompressed_to_f32")
            convert.annotations[DISABLE_CONSTANT_FOLDING] = True
            kept.add(convert.id)
            slot.set_source(convert.output())
        for out in node.outputs:
            for use in list(out.uses):
                consumer = use.node
                if (consumer.id in kept or consumer.type == "Result" or not out.element_type.is_real
                        or use.index in SHAPE_VALUE_INPUTS.get(consumer.type, ())):
                    continue
                convert = _convert(graph, out, out.element_type, f"{node.name}_compressed_to_f16")
                convert.annotations[DISABLE_CONSTANT_FOLDING] = True
                use.set_source(convert.output())


def _to_f16(node: Node) -> bool:
    """The node's f32/bf16 outputs (and its type attribute) become f16; True when any did."""
    changed = False
    if node.type == "Constant":
        if node.output().element_type.name not in _CONVERTED:
            return False
        value = np.clip(node.value.astype(np.float32), -F16_MAX, F16_MAX)  # (bf16 decodes as f32)
        node.data = ConstantData.from_array(value, f16)
        node.output().element_type = f16
        return True
    for out in node.outputs:
        if out.element_type.name in _CONVERTED:
            out.element_type = f16
            changed = True
    for key in ("destination_type", "output_type"):  # Convert, Range
        if node.type in ("Convert", "Range") and node.attrs.get(key) in _CONVERTED:
            node.attrs[key] = "f16"
    return changed


def _parameter(graph: Graph, param: Node) -> None:
    """fuse_type_to_parameter without converting the input: a Convert to f16 for its consumers."""
    out = param.output()
    users = [use for use in out.uses if use.node.type not in ("Result", "Convert")]
    if out.element_type.name not in _CONVERTED or not users:
        return
    convert = _convert(graph, out, f16)
    for use in users:
        use.set_source(convert.output())


def _drop_noop_converts(graph: Graph) -> None:
    """A Convert to its input's own type goes (unless constant folding is disabled on it)."""
    for node in graph.topological_order():
        if node.type != "Convert" or not node.alive or node.annotations.get(DISABLE_CONSTANT_FOLDING):
            continue
        source = node.input_value(0)
        if source.element_type != node.output().element_type or len(source.node.outputs) != 1:
            continue
        out = node.output()
        feeds_result = any(use.node.type == "Result" for use in out.uses)
        names, out.names = out.names, None
        out.replace_all_uses_with(source)
        source.names = source.names or names
        name = node.name
        graph.remove(node)
        if feeds_result and source.node.type not in ("Parameter", "Constant"):
            graph.rename(source.node, name)  # replace_output_update_name


def _result_converts(graph: Graph, original: dict[int, ElementType]) -> None:
    """A Result whose input is no longer of its original type reads it through a Convert back."""
    for result in list(graph.results):
        source = result.input_value(0)
        want = original.get(result.id)
        if want is None or source.element_type == want:
            continue
        producer = source.node
        if len(producer.outputs) > 1:
            name = f"{producer.name}.{source.index}"
        else:
            name = producer.name
            graph.rename(producer, graph.unique_name(f"{producer.type}_{producer.id}"))
        convert = _convert(graph, source, want, name)
        convert.output().names, source.names = source.names, None
        result.set_input(0, convert.output())


def convert_precision(graph: Graph, to: ElementType = f16) -> int:
    """Converts the model's f32 (and bf16) values to `to` as the plugin does before LPT; returns
    how many nodes changed type (0 when `to` is f32: nothing to do)."""
    if to == f32:
        return 0
    if to != f16:
        raise ValueError(f"ConvertPrecision to {to.name} is not modelled")
    original = {r.id: r.input_value(0).element_type for r in graph.results}
    order = graph.topological_order()
    kept = keep_in_f32(graph, order)
    _align(graph, order, kept)
    changed = 0
    for param in list(graph.parameters):
        _parameter(graph, param)
    for node in graph.topological_order():
        if node.id in kept or node.type in ("Parameter", "Result"):
            continue
        changed += _to_f16(node)
    _drop_noop_converts(graph)
    _result_converts(graph, original)
    return changed
