"""The whole graph, before and after LPT, as data the HTML page draws (`lpt report --html`).

The layout is computed here, in Python, with the same layering as the per-layer pictures
(svg.layer_rows: longest path, one barycenter pass per direction, linear in the edges): no
layout engine to install and nothing to run in the page but drawing, so a 2,000-layer
model opens at once. The page gets positions, not SVG: a compact JSON the script turns
into two SVGs side by side, each op a box coloured by what LPT made of it, each edge a
tensor coloured by its precision.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..ir import Graph, Node, Output
from .model import ORIGINAL, LayerRow
from .svg import LOW_COLOUR, precision_colour, layer_rows

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 150, 34, 16, 30, 16
# Edge precision classes, in the order the page's legend and CSS use them.
_PRECISION = {LOW_COLOUR: 0}
_FLOAT_OUTPUT = frozenset({"f32", "f16", "bf16", "f64"})


def graph_view(graph: Graph, rows: Mapping[str, LayerRow]) -> dict[str, Any]:
    """`graph` without its Constants, laid out: {"w", "h", "nodes": [[name, type, kind, status,
    x, y, hover]], "edges": [[from, to, precision]]}; `rows`: the report rows by the layer's name
    in this graph (status and reason shown on hover)."""
    nodes = [n for n in graph.topological_order() if n.type != "Constant"]
    index = {n.id: i for i, n in enumerate(nodes)}
    rows_of = layer_rows(nodes)
    widest = max((len(m) for m in rows_of.values()), default=1)
    width = widest * (BOX_W + GAP_X) - GAP_X + 2 * MARGIN
    position: dict[int, tuple[int, int]] = {}
    for r, members in rows_of.items():
        indent = (width - 2 * MARGIN - (len(members) * (BOX_W + GAP_X) - GAP_X)) // 2
        for i, node_id in enumerate(members):
            position[node_id] = (MARGIN + indent + i * (BOX_W + GAP_X), MARGIN + r * (BOX_H + GAP_Y))
    dequantizations = _dequantizations(nodes)
    drawn = []
    for node in nodes:
        row = rows.get(node.name)
        x, y = position[node.id]
        drawn.append([node.name, node.type, _kind(node, row, dequantizations), row.status if row else "",
                      x, y, _hover(node, row)])
    edges = [[index[slot.source.node.id], index[node.id], _precision(slot.source)]
             for node in nodes for slot in node.inputs if slot.source.node.id in index]
    height = MARGIN * 2 + len(rows_of) * (BOX_H + GAP_Y) - GAP_Y
    return {"w": width, "h": max(height, BOX_H), "nodes": drawn, "edges": edges}


def _precision(value: Output) -> int:
    """0: u8/i8 and the other quantized types, 1: float, 2: indices and shapes."""
    colour = precision_colour(value)
    return _PRECISION.get(colour, 1 if value.element_type.name in _FLOAT_OUTPUT else 2)


def _dequantizations(nodes: list[Node]) -> set[int]:
    """Ids of the dequantization ops: a Convert out of a low-precision tensor, and the
    Subtract/Multiply that carry its float value on; where they stand after LPT shows
    whether the dequantization moved past the layer."""
    found: set[int] = set()
    for node in nodes:  # topological: a chain's head is seen before its tail
        source = node.inputs[0].source if node.inputs else None
        if source is None:
            continue
        if node.type == "Convert" and _precision(source) == 0:
            found.add(node.id)
        elif node.type in ("Subtract", "Multiply") and source.node.id in found:
            found.add(node.id)
    return found


def _kind(node: Node, row: LayerRow | None, dequantizations: set[int]) -> str:
    """fq: a FakeQuantize LPT turns (before) or turned (after) into a quantization to u8/i8;
    fq-left: one left standalone in float; dq: a dequantization op; op: the rest."""
    if node.type == "FakeQuantize":
        if row is not None:
            return "fq-left" if row.status == ORIGINAL else "fq"
        return "fq" if node.outputs and _precision(node.outputs[0]) == 0 else "fq-left"
    return "dq" if node.id in dequantizations else "op"


def _hover(node: Node, row: LayerRow | None) -> str:
    outs = ", ".join(f"{o.element_type.name}[{'?' if o.shape is None else 'x'.join(map(str, o.shape))}]"
                     for o in node.outputs[:2])
    text = f"{node.type} {node.name}: {outs or '-'}"
    if row is not None:
        text += f"\n{row.status}"
        if row.reason:
            text += f"\n{row.reason.code}: {row.reason.detail}"
    return text
