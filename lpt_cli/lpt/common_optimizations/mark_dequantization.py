"""MarkDequantization / KeepConstsPrecision: weights stay compressed.

The plugin marks `Constant(u8/i8/u4/i4/nf4) -> Convert -> [Subtract(zero point)] -> Multiply`
on constants (compressed weights, embedding tables, NNCF's int8 weights) so that neither
constant folding nor LPT's FoldConvert/FuseConvert unpack them: its compressed kernels read
them as they are. The mark is the `DisableConstantFolding` annotation on the Converts, which
`fold_constant_subgraphs` and the cleanup passes honour.

Its pattern takes a Reshape or Unsqueeze on the zero point and the scale, after their Convert
(`Subtract(Convert(W), Reshape(Convert(zp)))`, what OpenVINO's ONNX frontend makes of a
per-channel DequantizeLinear when the model is read without MOC), and swaps the two, so that
ConstantFolding reshapes the integer constant and LPT sees `Convert(Constant)` as a zero point
(mark_dequantization_subgraph.cpp, `swap_nodes`). Without the swap LPT took none of those
weights: a `core.read_model` QDQ mobilenet_v2 reported 0 of 53 layers in INT8, the plugin ran 53.

What differs between plugins (the pass's arguments and callback in each plugin's pipeline):
`precisions` (the CPU plugin's decompression types include nf4; the GPU's are u8/i8/u4/i4),
`fold_zero_point` (the GPU plugin folds a weights zero point's Convert unless the GPU has XMX:
`MarkDequantization(..., !device_info.supports_immad)`; the CPU plugin keeps it) and `marks`
(the GPU plugin marks only the Multiplies its `is_decompression_multiply` accepts).
"""
from __future__ import annotations

from collections.abc import Callable, Collection

from ...ir import Graph, Node
from ...ir.eltypes import COMPRESSED_WEIGHT_TYPES, ElementType
from ..surgery.constants import DISABLE_CONSTANT_FOLDING, evaluate, remove_unused
from .constant_folding import replace_by_constant

# FullyConnected's compressed weight types plus LPT's default precisions.


def _converted_constant(node: Node, precisions: Collection[ElementType] = COMPRESSED_WEIGHT_TYPES) -> bool:
    return (node.type == "Convert" and node.input_node(0).type == "Constant"
            and node.input_value(0).element_type in precisions
            and node.output().element_type.is_real)


def _reshaped_convert(value: Node) -> Node | None:
    """The Convert under `Reshape|Unsqueeze(Convert(x), axes)` on a dequantization's constant side."""
    if value.type not in ("Reshape", "Unsqueeze") or value.input_node(0).type != "Convert":
        return None
    return value.input_node(0)


def _can_swap(convert: Node) -> bool:
    """OpenVINO's can_swap: the Convert feeds only this reshape, or reshapes of one static shape."""
    users = convert.consumers()
    shapes = {u.output().shape if u.output().is_static else None for u in users}
    return len(users) == 1 or (len(shapes) == 1 and None not in shapes)


def _swap(graph: Graph, reshape: Node, convert: Node) -> None:
    """`Reshape(Convert(x))` -> `Convert(Reshape(x))`, the Reshape folded when x is a Constant."""
    source = convert.input_value(0)
    out = reshape.output()
    moved = graph.add_node(reshape.type, [source, reshape.input_value(1)], outputs=[(source.element_type, out.shape)],
                           attrs=dict(reshape.attrs), version=reshape.version)
    reshaped = moved.output()
    if source.node.type == "Constant" and reshape.input_node(1).type == "Constant":
        value = evaluate(moved, [source.node.value, reshape.input_node(1).value])
        if value is not None:
            reshaped = replace_by_constant(moved, value)
    new = graph.add_node("Convert", [reshaped], outputs=[(out.element_type, out.shape)], attrs=dict(convert.attrs))
    out.replace_all_uses_with(new.output())
    remove_unused(reshape)


def _swap_converts(graph: Graph, precisions: Collection[ElementType]) -> int:
    """Moves every Convert under a Reshape/Unsqueeze of a dequantization's zero point or scale
    above it; returns how many."""
    swapped = 0
    for multiply in [n for n in graph.topological_order() if n.type == "Multiply"]:
        if not multiply.alive:
            continue
        for data, side in ((0, 1), (1, 0)):
            sub = multiply.input_node(data)
            convert = sub.input_node(0) if sub.type == "Subtract" else sub
            if convert.type != "Convert" or len(convert.output().uses) != 1 \
                    or convert.input_value(0).element_type not in precisions:
                continue
            sides = [multiply.input_node(side)] + ([sub.input_node(1)] if sub.type == "Subtract" else [])
            for reshape in sides:
                inner = _reshaped_convert(reshape)
                if inner is not None and _can_swap(inner):
                    _swap(graph, reshape, inner)
                    swapped += 1
            break
    return swapped


def mark_dequantization(graph: Graph, *, precisions: Collection[ElementType] = COMPRESSED_WEIGHT_TYPES,
                        fold_zero_point: bool = False, marks: Callable[[Node], bool] | None = None) -> int:
    """Marks the Converts of every weights decompression subgraph (with `marks`, of those whose
    Multiply it accepts; with `fold_zero_point`, not the zero point's); returns how many were new."""
    marked = _swap_converts(graph, precisions)
    for convert in list(graph):
        if not _converted_constant(convert, precisions) or convert.annotations.get(DISABLE_CONSTANT_FOLDING):
            continue
        users = convert.consumers()
        if not users or any(u.type not in ("Subtract", "Multiply") or u.input_node(0) is not convert
                            for u in users):
            continue
        to_mark = [convert]
        multiplies = [u for u in users if u.type == "Multiply"]
        for user in users:
            if user.type == "Subtract":
                zero_point = user.input_node(1)
                if _converted_constant(zero_point, precisions) and not fold_zero_point:
                    to_mark.append(zero_point)
                multiplies += [c for c in user.consumers() if c.type == "Multiply"]
                if not any(c.type == "Multiply" for c in user.consumers()):
                    to_mark = []
                    break
        if marks is not None and not any(marks(multiply) for multiply in multiplies):
            continue
        for node in to_mark:
            if not node.annotations.get(DISABLE_CONSTANT_FOLDING):
                node.annotations[DISABLE_CONSTANT_FOLDING] = True
                marked += 1
    return marked
