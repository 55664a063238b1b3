"""`lpt report MODEL --html OUT.html`: the whole report as one self-contained page.

The summary; the whole graph before and after LPT side by side (graph_view lays it out in
Python; the page draws only what is scrolled into view, so 2,000 layers open at once), each
tensor coloured by its precision, each box by what LPT made of the op, the reason of an
original-precision layer on hover; the layer table, sortable and filtered by text, status,
type and reason; choosing a layer (a row or a box) centres it in both graphs. Detailed
pictures of the layers people open the page for follow (at most MAX_PICTURES, said on the
page). Nothing is fetched: styles, script, data and SVG are inline.
"""
from __future__ import annotations

import json
from html import escape

from .analyze import Analysis
from .graph_view import BOX_H, BOX_W, graph_view
from .model import ORIGINAL, REMOVED, STATUSES, LayerRow
from .render import summary_lines
from .svg import LayerPictures, heading_of
from .topology import WEIGHTABLE

# Detailed pictures (shapes on every box) of at most this many layers: each is ~15 kB of SVG,
# and the two graphs above already show any layer before and after LPT.
MAX_PICTURES = 50

_STYLE = """
body { font-family: sans-serif; margin: 24px; color: #212121; }
h1 { font-size: 20px; } h1 code { font-size: 18px; } h2 { font-size: 16px; }
ul.summary { font-size: 13px; line-height: 1.5; }
.filters { margin: 12px 0; font-size: 13px; } .filters input[type=search] { width: 320px; padding: 4px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border-bottom: 1px solid #e0e0e0; padding: 4px 8px; text-align: left; vertical-align: top; }
th { position: sticky; top: 0; background: #fafafa; cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; } th[aria-sort=descending]::after { content: " \\25BC"; }
#layers tbody tr { cursor: pointer; } #layers tbody tr.chosen { background: #e3f2fd; }
td.num { text-align: right; font-family: monospace; } td.prec { font-family: monospace; }
tr.low-precision td.status { color: #2e7d32; } tr.original-precision td.status { color: #b26a00; }
tr.removed td.status { color: #757575; }
.later { content-visibility: auto; contain-intrinsic-size: auto 3000px; }
details.picture { margin: 8px 0; } details.picture summary { cursor: pointer; font-size: 13px; }
details.picture svg { max-width: 100%; height: auto; border: 1px solid #eeeeee; }
.key { font-size: 12px; margin: 6px 0; } .key span { margin-right: 16px; white-space: nowrap; }
.key i { display: inline-block; width: 22px; height: 12px; vertical-align: middle; margin-right: 4px;
  border: 1px solid #9e9e9e; border-radius: 3px; }
.key i.line { height: 0; border: 0; border-top: 3px solid; border-radius: 0; }
#chosen { font-size: 13px; min-height: 1.4em; white-space: pre-wrap; }
.panes { display: flex; gap: 12px; }
.pane { flex: 1 1 0; min-width: 0; } .pane h3 { font-size: 13px; margin: 4px 0; }
.view { height: 62vh; overflow: auto; border: 1px solid #e0e0e0; background: #ffffff; }
svg.graph text { font-size: 11px; pointer-events: none; } svg.graph text.t { font-weight: bold; }
svg.graph path { fill: none; } svg.graph .e0 { stroke: #2e7d32; stroke-width: 2.4; }
svg.graph .e1 { stroke: #8a8a8a; stroke-width: 1.2; } svg.graph .e2 { stroke: #8e24aa; stroke-width: 1.2; }
svg.graph g.n { cursor: pointer; } svg.graph rect { fill: #ffffff; stroke: #9e9e9e; }
svg.graph .k-fq rect { fill: #e8f5e9; } svg.graph .k-dq rect { fill: #f3e5f5; stroke: #8e24aa; }
svg.graph .k-fq-left rect { fill: #ffe0b2; stroke: #e65100; }
svg.graph .s-original-precision rect { stroke: #b26a00; stroke-width: 2.5; stroke-dasharray: 5 2; }
svg.graph g.sel rect { stroke: #1565c0; stroke-width: 4; stroke-dasharray: none; }
"""

_LEGEND = """<p class="key"><span><i class="line" style="border-color:#2e7d32"></i>u8 / i8 tensor</span>
<span><i class="line" style="border-color:#8a8a8a"></i>f32 / f16 tensor</span>
<span><i class="line" style="border-color:#8e24aa"></i>i32 / i64 / boolean</span>
<span><i style="background:#e8f5e9"></i>FakeQuantize into u8/i8</span>
<span><i style="background:#ffe0b2;border-color:#e65100"></i>FakeQuantize left standalone</span>
<span><i style="background:#f3e5f5;border-color:#8e24aa"></i>dequantization (Convert, Subtract, Multiply)</span>
<span><i style="border:2px dashed #b26a00"></i>original precision (reason on hover)</span></p>"""

# Draws the two graphs from the JSON in #lpt-graphs, then wires the table's sorting and filters
# and the choice of a layer (a row or a box): its box in both graphs, side by side, centred.
_SCRIPT = """
const NS = 'http://www.w3.org/2000/svg';
const data = JSON.parse(document.getElementById('lpt-graphs').textContent);
const BW = data.box[0], BH = data.box[1];
const esc = s => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const short = (s, n) => s.length <= n ? s : s.slice(0, n - 1) + '\\u2026';
// A name keeps its end (`…layer.3/attention/MatMul`): exports share long prefixes.
const tail = (s, n) => s.length <= n ? s : '\\u2026' + s.slice(s.length - n + 1);
const byName = [new Map(), new Map()];
const body = document.querySelector('#layers tbody');
const views = [document.getElementById('view-before'), document.getElementById('view-after')];
const selected = [undefined, undefined], paints = [];
// Only what is in (or near) a pane's scrolled window is in the DOM: opening and scrolling a
// 2,000-layer graph costs the same as a 50-layer one.
function draw(which) {
  const g = data.graphs[which], view = views[which];
  g.nodes.forEach(([name], i) => byName[which].set(name, i));
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'graph');
  svg.setAttribute('width', g.w);
  svg.setAttribute('height', g.h);
  view.appendChild(svg);
  let pending = false;
  paints[which] = () => {
    pending = false;
    const top = view.scrollTop - 600, bottom = view.scrollTop + view.clientHeight + 600, parts = [];
    for (const [a, b, p, bends] of g.edges) {
      const [x1, y1] = [g.nodes[a][4] + BW / 2, g.nodes[a][5] + BH], [x2, y2] = [g.nodes[b][4] + BW / 2, g.nodes[b][5]];
      if (y2 < top || y1 > bottom) continue;
      // Through each bend (a dummy's centre) vertically: a smooth curve between the boxes.
      const points = [[x1, y1]];
      for (let k = 0; k < bends.length; k += 2) points.push([bends[k], bends[k + 1] - BH / 2], [bends[k], bends[k + 1] + BH / 2]);
      points.push([x2, y2]);
      let d = `M${x1},${y1}`;
      for (let k = 1; k < points.length; k++) {
        const [[px, py], [qx, qy]] = [points[k - 1], points[k]];
        d += k % 2 ? ` C${px},${(py + qy) / 2} ${qx},${(py + qy) / 2} ${qx},${qy}` : ` L${qx},${qy}`;
      }
      parts.push(`<path class="e${p}" d="${d}"/>`);
    }
    g.nodes.forEach(([name, type, kind, status, x, y, hover], i) => {
      if (y + BH < top || y > bottom) return;
      parts.push(`<g class="n k-${kind} s-${status}${i === selected[which] ? ' sel' : ''}" data-i="${i}">` +
        `<title>${esc(hover)}</title><rect x="${x}" y="${y}" width="${BW}" height="${BH}" rx="5"/>` +
        `<text class="t" x="${x + 6}" y="${y + 14}">${esc(short(type, 22))}</text>` +
        `<text x="${x + 6}" y="${y + 28}">${esc(tail(name, 24))}</text></g>`);
    });
    svg.innerHTML = parts.join('');
  };
  view.addEventListener('scroll', () => { if (!pending) { pending = true; requestAnimationFrame(paints[which]); } });
  paints[which]();
  svg.addEventListener('click', e => {
    const box = e.target.closest('g.n');
    if (!box) return;
    const name = g.nodes[box.dataset.i][0];
    if (!which) choose(name, null);
    else choose(data.before_of[name] ?? (byName[0].has(name) ? name : null), name);
  });
}
function choose(name, afterName) {
  // name: the op in the original model (null: made by LPT); afterName: its name after LPT
  const row = name === null ? undefined : data.rows[name];
  if (afterName === null) afterName = row ? row[0] : name;  // an op the report has no row for keeps its name
  document.querySelectorAll('#layers tr.chosen').forEach(r => r.classList.remove('chosen'));
  [name, afterName].forEach((n, which) => {
    const i = n === null ? undefined : byName[which].get(n), view = views[which];
    selected[which] = i;
    if (i !== undefined) {
      const [, , , , x, y] = data.graphs[which].nodes[i];
      view.scrollTo(x + BW / 2 - view.clientWidth / 2, y + BH / 2 - view.clientHeight / 2);
    }
    paints[which]();
  });
  let line = `${afterName}: made by LPT, not in the original model`;
  if (row) line = `${name}: ${row[1]}${row[0] === null ? ' (removed by LPT)' : ''}${row[2] ? '\\n' + row[2] : ''}`;
  else if (name !== null) line = `${name}: not a layer the report covers`;
  document.getElementById('chosen').textContent = line;
  for (const tr of body.rows) if (tr.cells[0].textContent === name) tr.classList.add('chosen');
}
draw(0);
draw(1);
// Open on the layer people look for first: the first one left in float, else the first weightable one.
if (data.start !== null) choose(data.start, null);

const filter = document.getElementById('filter');
const boxes = [...document.querySelectorAll('input.status')];
const typeSelect = document.getElementById('type'), reasonSelect = document.getElementById('reason');
const reasonOf = row => (row.cells[5].querySelector('code') || {}).textContent || '';
function apply() {
  const text = filter.value.toLowerCase(), type = typeSelect.value, reason = reasonSelect.value;
  const shown = new Set(boxes.filter(b => b.checked).map(b => b.value));
  for (const row of body.rows) {
    row.hidden = !(shown.has(row.dataset.status) && row.textContent.toLowerCase().includes(text)
                   && (!type || row.cells[1].textContent === type) && (!reason || reasonOf(row) === reason));
  }
}
[filter, typeSelect, reasonSelect].forEach(c => ['input', 'change'].forEach(e => c.addEventListener(e, apply)));
boxes.forEach(b => b.addEventListener('change', apply));
document.querySelectorAll('#layers th').forEach((th, column) => th.addEventListener('click', () => {
  const up = th.getAttribute('aria-sort') !== 'ascending';
  document.querySelectorAll('#layers th').forEach(h => h.removeAttribute('aria-sort'));
  th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
  const key = row => row.cells[column].textContent;
  const numeric = th.classList.contains('num');
  const rows = [...body.rows].sort((a, b) => {
    const order = numeric ? (Number(key(a) || -1) - Number(key(b) || -1)) : key(a).localeCompare(key(b));
    return up ? order : -order;
  });
  body.append(...rows);
}));
body.addEventListener('click', e => {
  const tr = e.target.closest('tr');
  if (!tr || e.target.closest('a')) return;
  choose(tr.cells[0].textContent, null);
  document.getElementById('graphs').scrollIntoView();
});
function openTarget() {
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && target.tagName === 'DETAILS') target.open = true;
}
window.addEventListener('hashchange', openTarget);
openTarget();
// When the page is usable: parsed, both graphs drawn and laid out (the browser test reads it).
document.addEventListener('DOMContentLoaded', () => {
  document.body.getBoundingClientRect();
  window.lptReady = performance.now();
});
"""


def pictured(row: LayerRow) -> bool:
    """Layers worth a picture: what LPT left in float or removed, and every weightable layer."""
    return row.status in (ORIGINAL, REMOVED) or row.type in WEIGHTABLE


def report_html(analysis: Analysis) -> str:
    """The page for `analysis`."""
    report = analysis.report
    chosen = [row for row in report.layers if pictured(row)]
    drawn = {row.name: f"layer-{i}" for i, row in enumerate(chosen[:MAX_PICTURES])}
    counts = report.summary.by_status
    boxes = " ".join(f'<label><input type="checkbox" class="status" value="{s}" checked> {s} ({counts.get(s, 0)})'
                     "</label>" for s in STATUSES)
    types = sorted({row.type for row in report.layers})
    reasons = sorted({row.reason.code for row in report.layers if row.reason})
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>LPT report: {escape(report.model)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>LPT report: <code>{escape(report.model)}</code></h1>",
             '<ul class="summary">', *(f"<li>{escape(line)}</li>" for line in summary_lines(report.summary, report.layers)), "</ul>",
             '<section id="graphs"><h2>The graph before and after LPT</h2>', _LEGEND,
             '<p id="chosen">Click a box or a row of the table: that layer, before and after LPT, side by side.</p>',
             ('<div class="panes"><div class="pane"><h3>before LPT</h3><div class="view" id="view-before"></div></div>'
              '<div class="pane"><h3>after LPT</h3><div class="view" id="view-after"></div></div></div></section>'),
             (f'<p class="filters"><input id="filter" type="search" placeholder="filter: name, type, reason"> {boxes}'
              f' {_select("type", "all types", types)} {_select("reason", "all reasons", reasons)}</p>'),
             ('<div class="later"><table id="layers"><thead><tr><th>layer</th><th>type</th><th>inputs</th><th>output</th><th>status</th>'
              '<th>reason</th><th class="num">MACs</th></tr></thead><tbody>')]
    parts += [_row(row, drawn.get(row.name)) for row in report.layers]
    parts.append("</tbody></table></div>")
    parts.append(f"<h2>Before and after LPT ({len(drawn)} layers)</h2>")
    if len(chosen) > MAX_PICTURES:
        parts.append(f"<p>{len(chosen) - MAX_PICTURES} more layers worth a picture are not drawn (at most "
                     f"{MAX_PICTURES}); <code>lpt report MODEL --layer NAME --svg OUT.svg</code> draws any layer.</p>")
    pictures = LayerPictures(analysis.before, analysis.after)
    for row in chosen[:MAX_PICTURES]:
        anchor = drawn[row.name]
        svg = pictures.svg(row.name, *heading_of(row, row.name), prefix=f"{anchor}-")
        parts.append(f'<details class="picture" id="{anchor}"><summary>{escape(row.name)} ({escape(row.type)}): '
                     f"{escape(row.status)}</summary>{svg}</details>")
    parts.append(f'<script type="application/json" id="lpt-graphs">{_graphs_json(analysis)}</script>')
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def start_layer(rows: tuple[LayerRow, ...]) -> str | None:
    """The layer the page opens centred on: the first left in original precision, else the first
    weightable one, else the first layer (None: no layer)."""
    left_in_float = next((row.name for row in rows if row.status == ORIGINAL), None)
    weightable = next((row.name for row in rows if row.type in WEIGHTABLE), None)
    return left_in_float or weightable or (rows[0].name if rows else None)


def _graphs_json(analysis: Analysis) -> str:
    """Both graphs laid out, and per original layer [its name after LPT, status line, reason line]."""
    layers = analysis.report.layers
    after_rows = {row.transformed_name: row for row in layers if row.transformed_name is not None}
    data = {"box": [BOX_W, BOX_H], "start": start_layer(layers),
            "graphs": [graph_view(analysis.before, {row.name: row for row in layers}, transformed=False),
                       graph_view(analysis.after, after_rows, transformed=True)],
            "rows": {row.name: [row.transformed_name, f"{row.type}, {row.status}",
                                f"{row.reason.code}: {row.reason.detail}" if row.reason else ""] for row in layers},
            "before_of": {after: row.name for after, row in after_rows.items()}}
    # Inside <script>, "</" would end the element: JSON allows the escaped form.
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _select(name: str, everything: str, values: list[str]) -> str:
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return f'<select id="{name}" aria-label="{name}"><option value="">{everything}</option>{options}</select>'


def _row(row: LayerRow, anchor: str | None) -> str:
    reason = f"<code>{escape(row.reason.code)}</code>: {escape(row.reason.detail)}" if row.reason else ""
    name = escape(row.name)
    if anchor is not None:
        name = f'<a href="#{anchor}">{name}</a>'
    cells = [f"<td>{name}</td>", f"<td>{escape(row.type)}</td>",
             f'<td class="prec">{escape(" ".join(row.input_precisions))}</td>',
             f'<td class="prec">{escape(row.output_precision)}</td>', f'<td class="status">{escape(row.status)}</td>',
             f"<td>{reason}</td>", f'<td class="num">{"" if row.macs is None else row.macs}</td>']
    return f'<tr class="{escape(row.status)}" data-status="{escape(row.status)}">{"".join(cells)}</tr>'
