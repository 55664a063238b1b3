"""The whole graph, before and after LPT, as data the HTML page draws (`lpt report --html`).

The layout is computed here, in Python, with the same layering as the per-layer pictures
(layout.py: longest path, barycenter sweeps, linear in the edges) plus one dummy per row a
long edge crosses, so edges run between the boxes, not through them: no layout engine to install and nothing to run in the page but drawing, so a 2,000-layer
model opens at once. The page gets positions, not SVG: a compact JSON the script turns
into two SVGs side by side, each op a box coloured by what LPT made of it, each edge a
tensor coloured by its precision.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..ir import Graph, Node, Output
from .model import ORIGINAL, LayerRow
from .layout import layering, order_rows
from .topology import constant_nodes
from .svg import LOW_COLOUR, precision_colour

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN, DUMMY_W = 150, 34, 16, 30, 16, 4
# Edge precision classes, in the order the page's legend and CSS use them.
_PRECISION = {LOW_COLOUR: 0}
_FLOAT_OUTPUT = frozenset({"f32", "f16", "bf16", "f64"})


def graph_view(graph: Graph, rows: Mapping[str, LayerRow], transformed: bool) -> dict[str, Any]:
    """`graph` without its Constants, laid out: {"w", "h", "nodes": [[name, type, kind, status,
    x, y, hover]], "edges": [[from, to, precision, [x, y of the bends]]]}; `rows`: the report rows
    by the layer's name in this graph (status and reason shown on hover); `transformed`: the
    graph after LPT (a FakeQuantize still in float there was left standalone)."""
    nodes = [n for n in graph.topological_order() if n.type != "Constant"]
    index = {n.id: i for i, n in enumerate(nodes)}
    links = [(index[slot.source.node.id], index[node.id], _precision(slot.source))
             for node in nodes for slot in node.inputs if slot.source.node.id in index]
    keys: list[int | tuple[int, int]] = list(range(len(nodes)))
    preds: dict[int | tuple[int, int], list] = {i: [] for i in keys}
    for a, b, _ in links:
        preds[b].append(a)
    const = constant_nodes(graph)
    row = layering(keys, preds, {i for i, node in enumerate(nodes) if node.id in const})
    # A long edge becomes a chain of dummies, one per row it crosses: key (edge number, step).
    chains: list[list[tuple[int, int]]] = []
    preds = {i: [] for i in keys}
    for e, (a, b, _) in enumerate(links):
        chain = [(e, step) for step in range(row[b] - row[a] - 1)]
        for step, dummy in enumerate(chain):
            row[dummy] = row[a] + 1 + step
            preds[dummy] = [chain[step - 1] if step else a]
        preds[b].append(chain[-1] if chain else a)
        chains.append(chain)
        keys += chain
    ordered = order_rows(row, keys, preds, sweeps=2)
    width = max((_row_width(members) for members in ordered.values()), default=BOX_W) + 2 * MARGIN
    centre: dict[int | tuple[int, int], float] = {}
    for members in ordered.values():
        x = MARGIN + (width - 2 * MARGIN - _row_width(members)) / 2
        for key in members:
            step = DUMMY_W if isinstance(key, tuple) else BOX_W
            centre[key] = x + step / 2
            x += step + GAP_X
    top = {r: MARGIN + r * (BOX_H + GAP_Y) for r in ordered}
    dequantizations = _dequantizations(nodes, rows)
    drawn = []
    for i, node in enumerate(nodes):
        found = rows.get(node.name)
        drawn.append([node.name, node.type, _kind(node, found, dequantizations, transformed), found.status if found else "",
                      round(centre[i] - BOX_W / 2), top[row[i]], _hover(node, found)])
    edges = [[a, b, precision, [round(v) for d in chain for v in (centre[d], top[row[d]] + BOX_H / 2)]]
             for (a, b, precision), chain in zip(links, chains)]
    height = MARGIN * 2 + len(ordered) * (BOX_H + GAP_Y) - GAP_Y
    return {"w": round(width), "h": max(height, BOX_H), "nodes": drawn, "edges": edges}


def _row_width(members: list) -> float:
    return sum(DUMMY_W if isinstance(k, tuple) else BOX_W for k in members) + GAP_X * (len(members) - 1)


def _precision(value: Output) -> int:
    """0: u8/i8 and the other quantized types, 1: float, 2: indices and shapes."""
    colour = precision_colour(value)
    return _PRECISION.get(colour, 1 if value.element_type.name in _FLOAT_OUTPUT else 2)


def _dequantizations(nodes: list[Node], rows: Mapping[str, LayerRow]) -> set[int]:
    """Ids of the dequantization ops: a Convert out of a low-precision tensor and the
    Subtract/Multiply that carry its float value on, and every Subtract/Multiply LPT made
    (no row: not in the original model), the dequantization it moved past a layer. Where
    they stand shows whether a dequantization moved."""
    found: set[int] = set()
    for node in nodes:  # topological: a chain's head is seen before its tail
        source = node.inputs[0].source if node.inputs else None
        if source is None:
            continue
        if node.type == "Convert" and _precision(source) == 0:
            found.add(node.id)
        elif node.type in ("Subtract", "Multiply") and (source.node.id in found or node.name not in rows):
            found.add(node.id)
    return found


def _kind(node: Node, row: LayerRow | None, dequantizations: set[int], transformed: bool) -> str:
    """fq: a FakeQuantize LPT turns (before) or turned (after) into a quantization to u8/i8, or
    folds into u8/i8 weights; fq-left: one left standalone in float; dq: a dequantization op;
    op: the rest."""
    if node.type == "FakeQuantize":
        if row is not None:
            return "fq-left" if row.status == ORIGINAL else "fq"
        return "fq-left" if transformed and node.outputs and _precision(node.outputs[0]) == 1 else "fq"
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
