"""The report as text: a rich table for people, JSON/CSV/Markdown for scripts and PRs."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import FORMATS  # noqa: F401 - render() takes one of these
from ..text import markdown_cell, terminal_width
from .model import LOW, ORIGINAL, LayerRow, Report, Summary

# The JSON layer fields, flat: reason.code -> reason_code, ...
CSV_COLUMNS = ("name", "type", "input_precisions", "output_precision", "status", "reason_code",
               "reason_detail", "transformation", "macs", "transformed_name")
_STYLE = {LOW: "green", ORIGINAL: "yellow"}
_MIN_CUT = 10  # narrowest a cut column gets: enough to recognize a name


def render(report: Report, fmt: str) -> str:
    """`report` in format `fmt` (one of FORMATS)."""
    return {"table": render_table, "json": render_json, "csv": render_csv, "markdown": render_markdown}[fmt](report)


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def _cells(row: LayerRow) -> list[str]:
    reason = row.reason
    return [row.name, row.type, " ".join(row.input_precisions), row.output_precision, row.status,
            reason.code if reason else "", reason.detail if reason else "",
            (reason.transformation or "") if reason else "", "" if row.macs is None else str(row.macs),
            row.transformed_name or ""]


def layer_label(row: LayerRow) -> str:
    """The layer's name, and its new one when LPT renamed it."""
    if row.transformed_name is None or row.transformed_name == row.name:
        return row.name
    return f"{row.name} (renamed -> {row.transformed_name})"


def render_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(_cells(row) for row in report.layers)
    return out.getvalue()


def summary_lines(s: Summary, rows: Sequence[LayerRow] = ()) -> list[str]:
    statuses = ", ".join(f"{k} {v}" for k, v in s.by_status.items())
    lines = [
        f"profile: {s.profile}",
        f"ISA: {s.isa}",
        f"layers: {s.layers} ({statuses})",
        (f"weightable layers in low precision: {s.weightable_low_precision}/{s.weightable}, "
         f"{s.low_precision_share:.2f}% of {s.macs_total} MACs"),
        f"FakeQuantize: {s.fake_quantize_before} in the model, {s.fake_quantize_left} left unquantized after LPT",
    ]
    if s.macs_per_position:
        lines.append("MACs: the model has dynamic dimensions (batch, H/W or sequence); they count as 1, so MACs "
                     "are per output position (give --shape NAME=1,3,224,224 for a full inference)")
    if not s.fake_quantize_before and not s.weight_compressed:
        lines.append("no quantization: the model has no FakeQuantize and no compressed weights, so LPT has "
                     "nothing to do; quantize it with NNCF first (nncf.quantize)")
    if s.weight_compressed:
        kinds = ", ".join(f"{t} x{n}" for t, n in sorted(s.weight_compressed.items()))
        lines.append(f"weight-compressed (no FakeQuantize): {sum(s.weight_compressed.values())} weightable layers "
                     f"keep compressed weights ({kinds}) for the plugin's kernels; activations stay float")
    if s.reasons:
        lines.append("reasons: " + ", ".join(f"{k} {v}" + _which_ops(k, rows) for k, v in sorted(s.reasons.items())))
    return lines


def _which_ops(code: str, rows: Sequence[LayerRow]) -> str:
    """`op_not_supported` names the op types (`(GRUCell, Softmax)`): an op LPT has no
    transformation for is a fact about the op, not about one layer."""
    if code != "op_not_supported":
        return ""
    types = sorted({row.type for row in rows if row.reason is not None and row.reason.code == code})
    return f" ({', '.join(types)})" if types else ""


def render_table(report: Report, width: int | None = None) -> str:
    """A rich table `width` columns wide (default: the terminal's), one line per layer: the
    layer and reason columns share what the short columns leave, cut with an ellipsis,
    never mid-word (the full text: --format csv/json, or --layer NAME). Below 120 columns
    the layout narrows: no vertical rules, inputs and output in one column."""
    width = width or terminal_width()
    narrow = width < 120
    headers: tuple[str, ...]
    caps: tuple[int, ...]
    if narrow:
        headers, caps = ("layer", "type", "precision", "status", "reason"), (10**6, 13, 13, 18, 10**6)
    else:
        headers, caps = ("layer", "type", "inputs", "output", "status", "reason"), (10**6, 16, 11, 6, 18, 10**6)
    cells = []
    for row in report.layers:
        inputs, reason = " ".join(row.input_precisions), f"{row.reason.code}: {row.reason.detail}" if row.reason else ""
        middle = (f"{inputs}->{row.output_precision}",) if narrow else (inputs, row.output_precision)
        cells.append((layer_label(row), row.type, *middle, row.status, reason))
    natural = [min(cap, max([len(h), *(len(c[i]) for c in cells)])) for i, (h, cap) in enumerate(zip(headers, caps))]
    frame = 3 * (len(headers) - 1) if narrow else 3 * len(headers) + 1
    room = width - frame - sum(natural[1:-1])  # what the rules and the short columns leave
    layer_width, reason_width = natural[0], natural[-1]
    if layer_width + reason_width > room:
        layer_width = min(natural[0], max(_MIN_CUT, room // 2, room - natural[-1]))
        reason_width = max(_MIN_CUT, room - layer_width)
    table = (Table(title=f"LPT report: {report.model}", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
             if narrow else Table(title=f"LPT report: {report.model}"))
    for header, column_width in zip(headers, (layer_width, *natural[1:-1], reason_width)):
        table.add_column(header, width=column_width, overflow="ellipsis", no_wrap=True)
    for row, cell in zip(report.layers, cells):
        status = f"[{_STYLE[row.status]}]{row.status}[/]" if row.status in _STYLE else row.status
        table.add_row(*(escape(c) for c in cell[:-2]), status, escape(cell[-1]))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    console.print(table)
    for line in summary_lines(report.summary, report.layers):
        console.print(line, markup=False)
    return buffer.getvalue()


def render_markdown(report: Report) -> str:
    lines = [f"# LPT report: `{report.model}`", ""]
    lines += [f"- {markdown_cell(line)}" for line in summary_lines(report.summary, report.layers)]
    lines += ["", "| layer | type | inputs | output | status | reason | transformation | MACs |",
              "|---|---|---|---|---|---|---|---|"]
    for row in report.layers:
        reason = f"`{row.reason.code}`: {row.reason.detail}" if row.reason else ""
        cells = [layer_label(row), row.type, " ".join(row.input_precisions), row.output_precision, row.status, reason,
                 (row.reason.transformation or "") if row.reason else "", "" if row.macs is None else str(row.macs)]
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
