"""`lpt report MODEL --html OUT.html`: the whole report as one self-contained page.

The summary, the layer table (filtered by text and status in the page, by a few lines of
inline script), and a before/after picture of the layers people open the page for: those LPT
left in float or removed, and every weightable layer (at most MAX_PICTURES, said on the page).
Nothing is fetched: styles, script and SVG are inline, so the file can be attached to a CI run.
"""
from __future__ import annotations

from html import escape

from .analyze import Analysis
from .model import ORIGINAL, REMOVED, STATUSES, LayerRow
from .render import summary_lines
from .svg import LayerPictures, heading_of
from .topology import WEIGHTABLE

MAX_PICTURES = 200

_STYLE = """
body { font-family: sans-serif; margin: 24px; color: #212121; }
h1 { font-size: 20px; } h1 code { font-size: 18px; }
ul.summary { font-size: 13px; line-height: 1.5; }
.filters { margin: 12px 0; font-size: 13px; } .filters input[type=search] { width: 320px; padding: 4px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border-bottom: 1px solid #e0e0e0; padding: 4px 8px; text-align: left; vertical-align: top; }
th { position: sticky; top: 0; background: #fafafa; }
td.num { text-align: right; font-family: monospace; } td.prec { font-family: monospace; }
tr.low-precision td.status { color: #2e7d32; } tr.original-precision td.status { color: #b26a00; }
tr.removed td.status { color: #757575; }
details.picture { margin: 8px 0; } details.picture summary { cursor: pointer; font-size: 13px; }
details.picture svg { max-width: 100%; height: auto; border: 1px solid #eeeeee; }
"""

_SCRIPT = """
const filter = document.getElementById('filter');
const boxes = [...document.querySelectorAll('input.status')];
function apply() {
  const text = filter.value.toLowerCase();
  const shown = new Set(boxes.filter(b => b.checked).map(b => b.value));
  for (const row of document.querySelectorAll('#layers tbody tr')) {
    row.hidden = !(shown.has(row.dataset.status) && row.textContent.toLowerCase().includes(text));
  }
}
filter.addEventListener('input', apply);
boxes.forEach(b => b.addEventListener('change', apply));
function openTarget() {
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && target.tagName === 'DETAILS') target.open = true;
}
window.addEventListener('hashchange', openTarget);
openTarget();
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
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>LPT report: {escape(report.model)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>LPT report: <code>{escape(report.model)}</code></h1>",
             '<ul class="summary">', *(f"<li>{escape(line)}</li>" for line in summary_lines(report.summary)), "</ul>",
             f'<p class="filters"><input id="filter" type="search" placeholder="filter: name, type, reason"> {boxes}</p>',
             '<table id="layers"><thead><tr><th>layer</th><th>type</th><th>inputs</th><th>output</th><th>status</th>'
             "<th>reason</th><th>MACs</th></tr></thead><tbody>"]
    parts += [_row(row, drawn.get(row.name)) for row in report.layers]
    parts.append("</tbody></table>")
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
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


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
