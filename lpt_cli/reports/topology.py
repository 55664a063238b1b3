"""Graph questions the report asks: which layers count, which inputs carry data, what feeds them.

"Quantized" is decided on the original model: a layer is quantized when one of its data
inputs comes from a FakeQuantize (or an integer tensor behind a dequantization), possibly
through ops that only move data. That is what NNCF marks; LPT may or may not honour it.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..ir import Graph, Node, Output
from ..ir.eltypes import REPORTED_LOW_PRECISION
from ..ir.op_facts import Fact, ops_with

WEIGHTABLE = ops_with(Fact.WEIGHTED)
RECURRENT = ops_with(Fact.RECURRENT)
_NOT_LAYERS = frozenset({"Parameter", "Constant", "Result"})
# Ops through which a quantized tensor stays quantized (values are moved or selected).
_TRANSPARENT = ops_with(Fact.KEEPS_QUANTIZED)
# Ops that (with a constant operand) form a dequantization: Convert -> Subtract -> Multiply.
_DEQUANTIZATION = frozenset({"Convert", "Subtract", "Multiply"})


def constant_nodes(graph: Graph) -> set[int]:
    """Ids of nodes computed from constants only (weights and their FakeQuantize/Convert)."""
    const: set[int] = set()
    for node in graph.topological_order():
        if node.type == "Constant" or (node.inputs and all(s.source.node.id in const for s in node.inputs)):
            const.add(node.id)
    return const


def layers(graph: Graph) -> list[Node]:
    """The nodes a report has a row for: computations on activations, in topological order."""
    const = constant_nodes(graph)
    return [n for n in graph.topological_order() if n.type not in _NOT_LAYERS and n.id not in const]


def shape_layers(graph: Graph) -> set[str]:
    """Names of the layers that compute shapes, not data: each ShapeOf, and each op whose inputs
    are all shapes or constants (the Gather/Concat/Range behind a Reshape's target shape)."""
    const = constant_nodes(graph)
    found: set[int] = set()
    for node in graph.topological_order():
        sources = {slot.source.node.id for slot in node.inputs}
        if node.type == "ShapeOf" or (sources & found and sources <= found | const):
            found.add(node.id)
    return {node.name for node in graph.nodes.values() if node.id in found and node.type != "Result"}


def data_inputs(node: Node) -> list[Output]:
    """Inputs that carry tensors (not constant parameters); weights count for weightable ops."""
    if node.type in WEIGHTABLE:
        return [slot.source for slot in node.inputs[:2]]
    if node.type == "FakeQuantize":
        return [node.inputs[0].source]
    return [slot.source for slot in node.inputs if slot.source.node.type != "Constant"]


def is_low(value: Output) -> bool:
    return value.element_type in REPORTED_LOW_PRECISION


def layer_operands(node: Node) -> list[Output]:
    """The tensors a layer computes on: its data inputs, where a weightable layer sees
    through LPT's zero-point Subtract (the plugins fold the zero point into the kernel), and a
    recurrent sequence the plugin quantizes through the dequantizations in front of it."""
    if node.type in RECURRENT:
        return recurrent_operands(node) or data_inputs(node)
    if node.type not in WEIGHTABLE:
        return data_inputs(node)
    return [integer_behind_zero_point(v) or v for v in data_inputs(node)]


def integer_behind_dequantization(value: Output, *, constant: bool = False) -> Output | None:
    """The u8/i8 tensor `x` of `value` = Multiply(Convert(x) [- Constant], Constant), x a Constant
    when `constant` (weights) and computed otherwise; None for any other form."""
    node = value.node
    if node.type != "Multiply" or len(node.inputs) != 2 or node.input_node(1).type != "Constant":
        return None
    parent = node.input_node(0)
    if parent.type == "Subtract" and not constant and parent.input_node(1).type == "Constant":
        parent = parent.input_node(0)
    if parent.type != "Convert":
        return None
    data = parent.input_value(0)
    if not is_low(data) or (data.node.type == "Constant") != constant:
        return None
    return data


def recurrent_operands(node: Node) -> list[Output] | None:
    """The integer tensors a recurrent sequence runs on once the plugin quantizes it, or None
    when it will not (`recurrent_gap` says why)."""
    if recurrent_gap(node) is not None:
        return None
    x = integer_behind_dequantization(node.input_value(0))
    h = None if node.input_node(1).type == "Constant" else integer_behind_dequantization(node.input_value(1))
    weights = [integer_behind_dequantization(node.input_value(i), constant=True) for i in (-3, -2)]
    return [v for v in (x, h, *weights) if v is not None]


def recurrent_gap(node: Node) -> str | None:
    """Why the plugin will not run a recurrent sequence on integers, None when it will. The CPU
    plugin's ConvertFqRnnToQuantizedRnn wants X (input 0) dequantized from u8/i8, H (input 1) a
    Constant or dequantized from u8 (it has no i8 cell), and W and R (before B, the last input)
    dequantized integer Constants; RecurrentCellTransformation leaves exactly that when the model
    quantizes the cell."""
    if len(node.inputs) < 5:
        return f"{node.type} has {len(node.inputs)} inputs, not X, H, ..., W, R, B"
    x = integer_behind_dequantization(node.input_value(0))
    if x is None:
        return "X (input 0) is not dequantized from u8/i8 in front of it: the plugin runs the cell in float"
    if node.input_node(1).type != "Constant":
        h = integer_behind_dequantization(node.input_value(1))
        if h is None:
            return "H (input 1) is neither a constant nor dequantized from u8: the plugin runs the cell in float"
        if h.element_type.name == "i8":
            return "H (input 1) is dequantized from i8: the CPU plugin has no i8 cell and runs it in float"
    for index, role in ((-3, "W"), (-2, "R")):
        if integer_behind_dequantization(node.input_value(index), constant=True) is None:
            return (f"{role} (input {len(node.inputs) + index}) is not an integer constant with a scale: "
                    "the model does not quantize the weights, the plugin runs the cell in float")
    return None


def integer_behind_zero_point(value: Output) -> Output | None:
    """The integer data of `value` = Subtract(integer data, integer Constant zero point).

    LPT keeps an asymmetric zero point this way, on u8/i8 activations or on the integer
    weights Constant, with an f32 (type-relaxed) output.
    """
    node = value.node
    if node.type != "Subtract" or len(node.inputs) != 2:
        return None
    data, zero_point = (slot.source for slot in node.inputs)
    if is_low(data) and is_low(zero_point) and zero_point.node.type == "Constant":
        return data
    return None


def quantizer_upstream(value: Output) -> Node | None:
    """The FakeQuantize or integer source that makes `value` quantized, if any."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        out = stack.pop()
        node = out.node
        if node.id in seen:
            continue
        seen.add(node.id)
        if node.type == "FakeQuantize" or (is_low(out) and node.type not in ("Constant", "Parameter")):
            return node
        if node.type in _TRANSPARENT:
            sources = node.inputs if node.type == "Concat" else node.inputs[:1]
            stack.extend(slot.source for slot in sources)
        elif node.type in _DEQUANTIZATION:
            stack.extend(slot.source for slot in node.inputs if slot.source.node.type != "Constant")
    return None


def is_quantized(node: Node) -> bool:
    """Whether the original model quantizes `node` (a FakeQuantize quantizes by definition)."""
    if node.type == "FakeQuantize":
        return True
    return any(quantizer_upstream(v) is not None for v in data_inputs(node) if v.node.type != "Constant")


def by_name(graph: Graph) -> dict[str, Node]:
    return {node.name: node for node in graph.nodes.values()}


# LPT renames a layer it splits by appending this to the part it keeps as is
# (OpenVINO's `originalLayerPostfix`).
ORIGINAL_POSTFIX = "_original"


def find_twin(original: Node, now: Mapping[str, Node]) -> Node | None:
    """The node of the transformed graph that stands for `original`, if any.

    Tried in order: the same name, `<name>_original` (LPT gives a model output's name to the
    dequantization that now feeds the Result, and renames the layer), and the graph's collision
    name `<name>_<k>` (a replacement created while the original was still there). A candidate of
    the original's type wins; another type is taken only by the same name.
    """
    candidates = [now.get(original.name), now.get(original.name + ORIGINAL_POSTFIX),
                  *(now.get(f"{original.name}_{k}") for k in range(1, 10))]
    same_type = next((c for c in candidates if c is not None and c.type == original.type), None)
    return same_type or candidates[0]


def find_renamed(original: Node, now: Mapping[str, Node], original_names: frozenset[str]) -> Node | None:
    """The node that is `original` under a new name, when LPT gave its name to the dequantization
    it moved below it (`Add` -> `Add_387 -> Multiply 'add_14'`) or renamed it otherwise.

    Looked for right above where the original's name or its consumers are now, through the
    dequantization ops LPT inserts: a node of the original's type that no original layer is named.
    """
    starts = [now[original.name]] if original.name in now else []
    starts += [now[c.name] for c in original.consumers() if c.name in now]
    for start in starts:
        stack = [slot.source.node for slot in start.inputs]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if node.id in seen:
                continue
            seen.add(node.id)
            if node.type == original.type and node.name not in original_names:
                return node
            if node.type in _DEQUANTIZATION:
                stack.extend(slot.source.node for slot in node.inputs if slot.source.node.type != "Constant")
    return None
