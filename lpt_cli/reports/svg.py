"""`lpt report --layer NAME --svg OUT.svg`: the ops around one layer before and after LPT, as a picture.

One self-contained SVG (no script, no external font or image): two panels side by side, each
a small layered drawing of the layer's neighbourhood. Every edge is a tensor coloured by its
precision (u8/i8 and the other integer quantized types green, float grey, index and shape
types purple), so a dequantization that stopped short of the layer is visible at a glance.

Layout (layout.py): the longest-path layering of the neighbourhood (a Constant sits right
above its first consumer), then one barycenter pass per direction to order each row.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from ..errors import LptError
from ..ir import Graph, Node, Output
from ..ir.eltypes import REPORTED_LOW_PRECISION
from ..text import shorten
from .analyze import Analysis
from .model import LayerRow
from .chain import find_layer, require_layer
from .layout import layering, order_rows

UPSTREAM, DOWNSTREAM, MAX_NODES = 4, 3, 48
BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN, TITLE_H = 176, 50, 22, 46, 24, 84
LOW_COLOUR, FLOAT_COLOUR, OTHER_COLOUR = "#2e7d32", "#8a8a8a", "#8e24aa"
_FLOATS = frozenset({"f32", "f16", "bf16", "f64"})
_MARKERS = {LOW_COLOUR: "arrow-low", FLOAT_COLOUR: "arrow-float", OTHER_COLOUR: "arrow-other"}


def precision_colour(value: Output) -> str:
    if value.element_type in REPORTED_LOW_PRECISION:
        return LOW_COLOUR
    return FLOAT_COLOUR if value.element_type.name in _FLOATS else OTHER_COLOUR


def neighbourhood(graph: Graph, focus: Node, rank: Mapping[int, int] | None = None,
                  made: AbstractSet[str] = frozenset()) -> list[Node]:
    """`focus`, its producers up to UPSTREAM ops, its consumers up to DOWNSTREAM ops, and the
    Constants those ops read, at most MAX_NODES, in the graph's topological order (`rank`:
    node id -> position in it, when the caller draws many layers of one graph). An op named in
    `made` (the dequantizations LPT inserted) counts no step, so the picture after LPT reaches
    the same layers as the one before (the consumer after a Relu)."""
    picked: dict[int, Node] = {focus.id: focus}

    def add(node: Node) -> bool:
        if node.id in picked or len(picked) >= MAX_NODES:
            return False
        picked[node.id] = node
        return True

    for depth, step in ((UPSTREAM, _producers), (DOWNSTREAM, _consumers)):
        frontier = [focus]
        for _ in range(depth):
            frontier = [n for node in frontier for n in step(node) if n.type != "Constant" and add(n)]
            extra = frontier
            while extra := [n for node in extra if node.name in made for n in step(node)
                            if n.type != "Constant" and add(n)]:
                frontier += extra
    for node in list(picked.values()):
        for slot in node.inputs:
            if _drawn_constant(slot.source, node, slot.index):
                add(slot.source.node)
    rank = rank if rank is not None else topological_rank(graph)
    return sorted(picked.values(), key=lambda node: rank[node.id])


def topological_rank(graph: Graph) -> dict[int, int]:
    return {node.id: i for i, node in enumerate(graph.topological_order())}


def _drawn_constant(value: Output, user: Node, port: int) -> bool:
    """A Constant worth a box: weights, per-channel scales and biases; not scalars or the four
    range inputs of a FakeQuantize (the user's box says what it is)."""
    if value.node.type != "Constant" or (user.type == "FakeQuantize" and port > 0):
        return False
    return value.shape is None or any(d != 1 for d in value.shape)


def _producers(node: Node) -> Iterable[Node]:
    return [slot.source.node for slot in node.inputs]


def _consumers(node: Node) -> Iterable[Node]:
    return [use.node for out in node.outputs for use in out.uses]


@dataclass
class _Panel:
    title: str
    nodes: list[Node]
    focus: Node | None
    pos: dict[int, tuple[float, float]]  # node id -> top-left corner, panel coordinates
    width: float
    height: float


def layer_rows(nodes: list[Node]) -> dict[int, list[int]]:
    """Row -> node ids left to right, for `nodes` in topological order (see layout.py)."""
    ids = {n.id for n in nodes}
    keys = [n.id for n in nodes]
    preds = {n.id: [s.source.node.id for s in n.inputs if s.source.node.id in ids] for n in nodes}
    return order_rows(layering(keys, preds), keys, preds)


def _layout(title: str, nodes: list[Node], focus: Node | None) -> _Panel:
    rows = layer_rows(nodes)
    widest = max((len(m) for m in rows.values()), default=1)
    width = widest * (BOX_W + GAP_X) - GAP_X + 2 * MARGIN
    pos: dict[int, tuple[float, float]] = {}
    for r, members in rows.items():
        indent = (width - 2 * MARGIN - (len(members) * (BOX_W + GAP_X) - GAP_X)) / 2
        for i, node_id in enumerate(members):
            pos[node_id] = (MARGIN + indent + i * (BOX_W + GAP_X), TITLE_H + r * (BOX_H + GAP_Y))
    height = TITLE_H + len(rows) * (BOX_H + GAP_Y) - GAP_Y + MARGIN
    return _Panel(title, nodes, focus, pos, max(width, 2 * BOX_W), height)


def _short(text: str, limit: int = 27) -> str:
    """A tensor or a heading in `limit` characters: the start matters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tensor(value: Output) -> str:
    shape = "?" if value.shape is None else "x".join("?" if d < 0 else str(d) for d in value.shape)
    return f"{value.element_type.name}[{shape}]"


def _panel_svg(panel: _Panel, dx: float, prefix: str) -> list[str]:
    out = [f'<g id="{prefix}{panel.title.replace(" ", "-").lower()}" transform="translate({dx:.0f},0)">',
           f'<text x="{MARGIN}" y="66" class="panel">{escape(panel.title)}</text>']
    if panel.focus is None:
        out.append(f'<text x="{MARGIN}" y="{TITLE_H + 20}" class="note">(not in this model: folded or fused away)'
                   "</text></g>")
        return out
    for node in panel.nodes:  # edges first, boxes on top
        x, y = panel.pos[node.id]
        for slot in node.inputs:
            source = slot.source
            if source.node.id not in panel.pos:
                continue
            sx, sy = panel.pos[source.node.id]
            x1, y1, x2, y2 = sx + BOX_W / 2, sy + BOX_H, x + BOX_W / 2, y
            colour = precision_colour(source)
            wide = 2.6 if colour == LOW_COLOUR else 1.4
            mid = (y1 + y2) / 2
            out.append(f"<g><title>{escape(source.node.name)} -> {escape(node.name)} (in {slot.index}): "
                       f"{escape(_tensor(source))}</title>"
                       f'<path d="M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2 - 1:.1f}" '
                       f'stroke="{colour}" stroke-width="{wide}" fill="none" marker-end="url(#{prefix}{_MARKERS[colour]})"/></g>')
            out.append(f'<text x="{(x1 + x2) / 2 + 4:.1f}" y="{mid + 4:.1f}" class="edge" fill="{colour}">'
                       f"{escape(source.element_type.name)}</text>")
    for node in panel.nodes:
        x, y = panel.pos[node.id]
        kind = "focus" if node is panel.focus else ("const" if node.type == "Constant" else "op")
        outs = ", ".join(_tensor(o) for o in node.outputs[:2]) or "-"
        colour = precision_colour(node.outputs[0]) if node.outputs else FLOAT_COLOUR
        out.append(f'<g><title>{escape(node.type)} {escape(node.name)}: {escape(outs)}</title>'
                   f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="6" class="{kind}"/>'
                   f'<text x="{x + 8:.1f}" y="{y + 15:.1f}" class="type">{escape(node.type)}</text>'
                   f'<text x="{x + 8:.1f}" y="{y + 29:.1f}" class="name">{escape(shorten(node.name, 27))}</text>'
                   f'<text x="{x + 8:.1f}" y="{y + 43:.1f}" class="out" fill="{colour}">'
                   f"{escape(_short(outs, 30))}</text></g>")
    out.append("</g>")
    return out


_STYLE = """
text { font-family: sans-serif; }
.heading { font-size: 15px; font-weight: bold; fill: #212121; }
.reason { font-size: 12px; fill: #424242; }
.panel { font-size: 14px; font-weight: bold; fill: #424242; }
.note { font-size: 12px; fill: #757575; }
.type { font-size: 12px; font-weight: bold; fill: #212121; }
.name { font-size: 11px; fill: #424242; }
.out { font-size: 10px; font-family: monospace; }
.edge { font-size: 10px; font-family: monospace; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }
.legend { font-size: 11px; fill: #424242; }
rect.op { fill: #ffffff; stroke: #9e9e9e; }
rect.const { fill: #f3f3f3; stroke: #c8c8c8; }
rect.focus { fill: #e3f2fd; stroke: #1565c0; stroke-width: 2.5; }
"""


class LayerPictures:
    """Draws layers of one analysis (the graphs before and after LPT); each graph's topological
    order is computed once, however many layers are drawn (`lpt report --html`)."""

    def __init__(self, before: Graph, after: Graph) -> None:
        self.graphs = (before, after)
        self._ranks: dict[int, dict[int, int]] = {}
        original = {node.name for node in before.nodes.values()}
        made_by_lpt = frozenset(n.name for n in after.nodes.values() if n.name not in original)
        self._made: tuple[frozenset[str], frozenset[str]] = (frozenset(), made_by_lpt)

    def _around(self, which: int, name: str | None) -> tuple[list[Node], Node | None]:
        graph = self.graphs[which]
        focus = find_layer(graph, name) if name else None
        if focus is None:
            return [], None
        rank = self._ranks.setdefault(which, topological_rank(graph))
        return neighbourhood(graph, focus, rank, self._made[which]), focus

    def svg(self, name: str, after_name: str | None, heading: tuple[str, ...], prefix: str = "") -> str:
        """The SVG document: layer `name` before LPT beside `after_name` (its name after LPT; None:
        removed), under `heading` (the status line, then the reason, if any); `prefix` keeps the
        ids of several pictures in one HTML page apart."""
        return _document([_layout("before LPT", *self._around(0, name)),
                          _layout("after LPT", *self._around(1, after_name))], heading, prefix)


def layer_svg(before: Graph, after: Graph, name: str, after_name: str | None, heading: tuple[str, ...]) -> str:
    """One picture (see LayerPictures.svg)."""
    return LayerPictures(before, after).svg(name, after_name, heading)


def _document(panels: list[_Panel], heading: tuple[str, ...], prefix: str) -> str:
    width = sum(p.width for p in panels)
    legend_y = max(p.height for p in panels) + 40
    height = legend_y + 30
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
              f'viewBox="0 0 {width:.0f} {height:.0f}">'),
             f"<style>{_STYLE}</style>",
             "<defs>" + "".join(
                 f'<marker id="{prefix}{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
                 f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
                 for colour, marker in _MARKERS.items()) + "</defs>",
             f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
             *(f'<text x="{MARGIN}" y="{22 + 18 * i}" class="{kind}">{escape(_short(line, int(width / 7)))}</text>'
               for i, (kind, line) in enumerate(zip(("heading", "reason"), heading)))]
    dx = 0.0
    for panel in panels:
        parts += _panel_svg(panel, dx, prefix)
        dx += panel.width
    x = MARGIN
    for colour, label in ((LOW_COLOUR, "u8 / i8 (low precision)"), (FLOAT_COLOUR, "f32 / f16 (float)"),
                          (OTHER_COLOUR, "i32 / i64 / boolean (indices, shapes)")):
        parts.append(f'<line x1="{x}" y1="{legend_y}" x2="{x + 28}" y2="{legend_y}" stroke="{colour}" '
                     f'stroke-width="3"/><text x="{x + 34}" y="{legend_y + 4}" class="legend">{escape(label)}</text>')
        x += 250
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_layer_svg(analysis: Analysis, name: str, path: Path) -> None:
    """Draws layer `name` of `analysis` into `path`, written whole or not at all."""
    require_layer(analysis.before, name)
    row = next((r for r in analysis.report.layers if r.name == name), None)
    text = LayerPictures(analysis.before, analysis.after).svg(name, *heading_of(row, name))
    write_document(path, text, "--svg")


def heading_of(row: LayerRow | None, name: str) -> tuple[str | None, tuple[str, ...]]:
    """(the layer's name after LPT, the picture's heading lines) for report row `row` of layer `name`."""
    if row is None:
        return name, (f"{name}: not a layer the report covers",)
    heading: tuple[str, ...] = (f"{row.name} ({row.type}): {row.status}",)
    if row.reason:
        heading += (f"{row.reason.code}: {row.reason.detail}",)
    return row.transformed_name, heading


def write_document(path: Path, text: str, option: str) -> None:
    """Writes `text` to `path` through a temporary file, so a failure (or Ctrl-C) leaves nothing behind."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    except OSError as exc:
        raise LptError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None
    finally:
        temp.unlink(missing_ok=True)
