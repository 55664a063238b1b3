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
    through LPT's zero-point Subtract (the plugins fold the zero point into the kernel)."""
    if node.type not in WEIGHTABLE:
        return data_inputs(node)
    return [integer_behind_zero_point(v) or v for v in data_inputs(node)]


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
