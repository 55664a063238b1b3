"""What Add and Multiply share (OpenVINO's EltwiseBaseTransformation and its NetworkHelper calls).

A binary eltwise with dequantized inputs keeps one input ("empty" branch) in low precision and
moves the other input's dequantization ("full" branch) into recomputed constants, so only one
Multiply is left after the op. Which branch stays full is a fixed list of heuristics
(`full_branch_index`); the reference results depend on every rule of it.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ....ir import Graph, Node, Output
from ....ir.eltypes import ElementType
from ....ir.graph import Shape
from ....ir.shapes import broadcast_shapes
from ...dequantization.attributes import is_bias
from ...engine.config import Config
from ...dequantization.chain import Dequantization, constant_branch, constant_is_per_channel, get_dequantization
from ...surgery.constants import cast, remove_unused
from ...engine.layer_checks import can_be_transformed

TARGET_TYPES = frozenset({"Convolution", "GroupConvolution", "MatMul"})


# --- checks -------------------------------------------------------------------------------
def _dq_constant(eltwise: Node) -> Node | None:
    """The real-typed Constant of a DQ op, looking through a Convert to a real type."""
    index = constant_branch(eltwise)
    if index is None:
        return None
    node = eltwise.input_node(index)
    if node.type == "Convert":
        return node.input_node(0) if node.output().element_type.is_real else None
    return node if node.output().element_type.is_real else None


def dq_constant_fits_channel(dq: Dequantization, eltwise: Node) -> bool:
    """The DQ op's constant is per-tensor or per-channel on `dq.channel_dim`, after NUMPY broadcast."""
    constant = _dq_constant(eltwise)
    if constant is None:
        return False
    shape, out = constant.constant_data.shape, eltwise.output().shape
    # a lower-rank per-channel constant lines up with the output only under NUMPY broadcast
    if (out is not None and 1 < len(shape) < len(out) and int(np.prod(shape, dtype=np.int64)) != 1
            and eltwise.attr("auto_broadcast", "numpy").lower() != "numpy"):
        return False
    return constant_is_per_channel(eltwise, constant, dq.channel_dim)


def eltwise_can_be_transformed(node: Node, precisions: Iterable[ElementType]) -> bool:
    """EltwiseBaseTransformation::canBeTransformed: two inputs, at least one usable DQ."""
    precisions = tuple(precisions)
    if not can_be_transformed(node, precisions) or len(node.inputs) != 2:
        return False
    dqs = [get_dequantization(node, precisions, i) for i in (0, 1)]

    def unusable(dq: Dequantization) -> bool:
        return dq.empty or (dq.multiply is not None and not dq_constant_fits_channel(dq, dq.multiply))

    if all(unusable(dq) for dq in dqs):
        return False
    return all(dq.data is not None for dq in dqs) and not all(dq.empty for dq in dqs)


def is_broadcasted(shape: Shape) -> bool:
    """All 'spatial' dims (from 0 for rank 1, 1 for rank 2, else 2) are static 1s."""
    if shape is None:
        return False
    start = 0 if len(shape) == 1 else (1 if len(shape) == 2 else 2)
    return all(dim == 1 for dim in shape[start:])


# --- which branch stays in full precision --------------------------------------------------
def _is_target(node: Node | None) -> bool:
    return node is not None and node.type in TARGET_TYPES


def _data_parent(data: Node, precisions: tuple[ElementType, ...]) -> Node:
    """The node a branch comes from: above any FakeQuantize, and before a bias Add its layer."""
    parent = data
    while parent.type == "FakeQuantize":
        parent = parent.input_node(0)
    if is_bias(parent):
        for slot in parent.inputs:
            bias_parent = slot.source.node
            if _is_target(bias_parent):
                return bias_parent
            dq = get_dequantization(bias_parent, precisions)
            if dq.data is not None and _is_target(dq.data.node):
                return dq.data.node
    return parent


def _uses(output: Output, stale_inputs: Sequence[Output]) -> int:
    """Consumers of `output`, counting the inputs of an eltwise that separation replaced (still
    alive while the transformation runs) among them."""
    return len(output.uses) + sum(1 for source in stale_inputs if source == output)


def _has_multiple_consumers(data: Node, parent: Node, stale_inputs: Sequence[Output] = ()) -> bool:
    """Whether any node from the branch data up to its parent feeds more than one input."""
    def several(node: Node) -> bool:
        return len(node.outputs) != 1 or _uses(node.output(), stale_inputs) != 1

    node = data
    while node is not parent and node.inputs:
        if several(node):
            return True
        above = node.input_node(0)
        node = above if above.type != "Constant" or len(node.inputs) < 2 else node.input_node(1)
    return several(node)


def full_branch_index(node: Node, config: Config, stale_inputs: Sequence[Output] = ()) -> int:
    """getNotEmpty: the input that keeps (recomputed) dequantization; -1 for a constant input.

    `stale_inputs`: what `separate_in_standalone_branch` returned for `node`. OpenVINO's consumer
    counts here include the replaced original eltwise, so a branch without dequantization
    (its data read by the original too) has more than one consumer after a separation."""
    precisions = config.default_precisions
    dq1 = get_dequantization(node, precisions, 0)
    dq2 = get_dequantization(node, precisions, 1)
    if dq1.source.node.type == "Constant" or dq2.source.node.type == "Constant":
        return -1
    low1 = not dq1.empty and dq1.is_low_precision
    low2 = not dq2.empty and dq2.is_low_precision
    if low1 and not low2:
        return 1
    if low2 and not low1:
        return 0
    if not config.update_precisions:
        if not dq1.empty and dq2.empty:
            return 1
        if dq1.empty or not dq2.empty:
            return 0
    fq1, fq2 = dq1.source.node, dq2.source.node
    by_fq = _by_fake_quantize(fq1, fq2, stale_inputs)
    if by_fq is not None:
        return by_fq
    parents = [_data_parent(fq1, precisions), _data_parent(fq2, precisions)]
    same_kind = _is_target(parents[0]) == _is_target(parents[1])
    if same_kind:
        for i, parent in enumerate(parents):
            if is_broadcasted(parent.output().shape):
                return i
    multiple = [_has_multiple_consumers(fq1, parents[0], stale_inputs),
                _has_multiple_consumers(fq2, parents[1], stale_inputs)]
    if multiple[0] != multiple[1]:
        return 1 if multiple[0] else 0
    if not same_kind:
        return 0 if _is_target(parents[0]) else 1
    return 0


def _by_fake_quantize(data1: Node, data2: Node, stale_inputs: Sequence[Output] = ()) -> int | None:
    """A branch coming straight from a FakeQuantize stays full; else the one whose FQ is unshared."""
    is_fq1, is_fq2 = data1.type == "FakeQuantize", data2.type == "FakeQuantize"
    if is_fq1 != is_fq2:
        return 0 if is_fq1 else 1
    if is_fq1 and is_fq2:
        uses1, uses2 = _uses(data1.output(), stale_inputs), _uses(data2.output(), stale_inputs)
        if uses1 == 1 and uses2 > 1:
            return 0
        if uses1 > 1 and uses2 == 1:
            return 1
    return None


def multiply_const_branch(node: Node, precisions: Iterable[ElementType]) -> tuple[int, int]:
    """(input holding a Multiply, index of that Multiply's non-constant input) when the other
    input is a constant (possibly dequantized); (-1, -1) without, (i, -1) when the Multiply
    has no Constant input."""
    precisions = tuple(precisions)
    for branch in (1, 0):
        other = 1 - branch
        dq = get_dequantization(node, precisions, other)
        const = node.input_node(other) if dq.empty else dq.source.node
        if const.type == "Constant" and node.input_node(branch).type == "Multiply":
            multiply = node.input_node(branch)
            if multiply.input_node(1).type == "Constant":
                return branch, 0
            if multiply.input_node(0).type == "Constant":
                return branch, 1
            return branch, -1
    return -1, -1


# --- rewrites -----------------------------------------------------------------------------
def _safe_divide(b: np.ndarray, a: np.ndarray, etype: ElementType) -> np.ndarray:
    """b / a with 0/0 = 0, element by element over the flat values when the sizes allow it
    (the result takes the larger operand's shape), else a broadcasting division."""
    b32, a32 = np.asarray(b, np.float32), np.asarray(a, np.float32)
    if b32.size == 1 or a32.size == 1 or b32.size == a32.size:
        shape = b32.shape if b32.size > a32.size else a32.shape
        bf, af = b32.reshape(-1), a32.reshape(-1)
        size = max(bf.size, af.size)
        bf, af = np.broadcast_to(bf, (size,)), np.broadcast_to(af, (size,))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where((bf == 0) & (af == 0), np.float32(0), bf / af)
        return cast(out.reshape(shape), etype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return cast(b32 / a32, etype)


def binary(graph: Graph, op_type: str, a: Output, b: Output, out_type: ElementType) -> Node:
    """A new numpy-broadcast binary op with output type `out_type` (type-relaxed where needed)."""
    shape = broadcast_shapes(a.shape, b.shape)
    return graph.add_node(op_type, [a, b], outputs=[(out_type, shape)])


def swap_multiply_and_add(add: Node, multiply_branch: int) -> Node:
    """`x*a + b` -> `(x + b/a) * a`; returns the new Multiply (or `add` when there is no `a`). As
    NetworkHelper::swapMultiplyAndAdd names them: the new Add after the Add, the new Multiply after
    the dequantization Multiply it moves (`conv/DequantizationMultiply` stays so named)."""
    graph = add.graph
    multiply = add.input_node(multiply_branch)
    if multiply.input_node(1).type == "Constant":
        data_index = 0
    elif multiply.input_node(0).type == "Constant":
        data_index = 1
    else:
        return add
    a = multiply.input_node(1 - data_index)
    b = add.input_node(1 - multiply_branch)
    if b.type != "Constant":
        return add
    b_div_a = graph.add_constant(_safe_divide(b.value, a.value, a.constant_data.element_type), a.constant_data.element_type)
    data = multiply.input_value(data_index)
    new_add = binary(graph, "Add", data, b_div_a.output(), data.element_type)
    new_multiply = binary(graph, "Multiply", new_add.output(), a.output(), multiply.output().element_type)
    add_name, multiply_name = add.name, multiply.name
    replace_node(add, new_multiply)
    graph.rename(new_multiply, graph.unique_name(multiply_name))
    graph.rename(new_add, graph.unique_name(add_name))
    return new_multiply


def replace_node(old: Node, new: Node) -> None:
    """Moves `old`'s consumers to `new`, deletes what of `old` is left unused, and gives `new`
    the old name (a model output keeps its name)."""
    old.output().replace_all_uses_with(new.output())
    name = old.name
    remove_unused(old)
    if not old.alive:
        old.graph.rename(new, name)


def name_after_original(name: str, op: Node, dequantization: Node) -> None:
    """NetworkHelper::copyInfo + updateOutput: the new op keeps the layer's `name`, and its
    dequantization is `name/DequantizationMultiply`; when a model output follows, the
    dequantization keeps `name` and the op becomes `name_original`."""
    graph = op.graph
    if any(use.node.type == "Result" for use in dequantization.output().uses):
        graph.rename(op, graph.unique_name(f"{name}_original"))
        if dequantization.name != name:
            graph.rename(dequantization, graph.unique_name(name))
        return
    graph.rename(dequantization, graph.unique_name(f"{name}/DequantizationMultiply"))
    graph.rename(op, name if graph.unique_name(name) == name else graph.unique_name(name))
