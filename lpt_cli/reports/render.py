"""The report as text: a rich table for people, JSON/CSV/Markdown for scripts and PRs.

Each format is one document: `--runtime` adds to it (a `runtime` section in JSON, columns in
CSV, a section in Markdown), so `| python -m json.tool` or a CSV reader takes the whole output.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import FORMATS  # noqa: F401 - render() takes one of these
from ..input_sizes import suggested_shape
from ..text import cut_words, markdown_cell, shorten, terminal_width
from .compare import RUNTIME_CSV_COLUMNS, comparison_dict, csv_cells, format_comparison, markdown_comparison
from .model import LOW, ORIGINAL, SCHEMA_VERSION, LayerRow, Report, Summary

if TYPE_CHECKING:
    from .analyze import Analysis
    from .compare import RuntimeView

# The JSON layer fields, flat: reason.code -> reason_code, ...
CSV_COLUMNS = ("name", "type", "input_precisions", "output_precision", "status", "reason_code",
               "reason_detail", "transformation", "macs", "transformed_name")
_STYLE = {LOW: "green", ORIGINAL: "yellow"}
_MIN_LAYER = 16  # narrowest the layer column gets: enough for the end of a name
_MIN_CUT = 10  # narrowest the reason column gets, and the name for a whole reason code


def render(report: Report, fmt: str, runtime: RuntimeView | None = None, notes: Sequence[str] = ()) -> str:
    """`report` in format `fmt` (one of FORMATS, not junit: that is a form of several models),
    with the comparison of `runtime` in the same document; `notes` (which layers are not listed)
    follow the summary of the table and the markdown."""
    if fmt == "json":
        return render_json(report, runtime)
    if fmt == "csv":
        return render_csv(report, runtime)
    if fmt == "markdown":
        return render_markdown(report, runtime, notes)
    text = render_table(report, notes=notes)
    return text if runtime is None else text + "\n" + format_comparison(runtime)


def render_json(report: Report, runtime: RuntimeView | None = None) -> str:
    doc = report.to_dict()
    if runtime is not None:
        doc["runtime"] = comparison_dict(runtime)
    return json.dumps(doc, indent=2) + "\n"


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


def _short_label(row: LayerRow, width: int) -> str:
    """`layer_label` in `width` characters: the name cut from the left, the rename only if
    the name keeps its room."""
    label = layer_label(row)
    if len(label) <= width:
        return label
    suffix = label[len(row.name):]
    if width - len(suffix) >= _MIN_LAYER:
        return shorten(row.name, width - len(suffix)) + suffix
    return shorten(row.name, width)


def render_csv(report: Report, runtime: RuntimeView | None = None) -> str:
    """One row per layer under CSV_COLUMNS (and RUNTIME_CSV_COLUMNS with `runtime`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if runtime is None:
        writer.writerow(CSV_COLUMNS)
        writer.writerows(_cells(row) for row in report.layers)
    else:
        compared = {c.name: c for c in runtime.rows}
        writer.writerow(CSV_COLUMNS + RUNTIME_CSV_COLUMNS)
        writer.writerows(_cells(row) + csv_cells(compared.get(row.name)) for row in report.layers)
    return out.getvalue()


def shape_hint(s: Summary) -> str:
    """`--shape` options for the model's own dynamic inputs at plausible sizes."""
    given = [f"--shape {name}={','.join(map(str, suggested_shape(shape)))}" if shape else f"--shape {name}=D,D,..."
             for name, shape in s.dynamic_inputs.items()]
    return " ".join(given) or "--shape NAME=D,D,..."


def share_line(s: Summary) -> str:
    """The low-precision share, and why it is 0 for a weight-only compressed model."""
    line = (f"weightable layers in low precision: {s.weightable_low_precision}/{s.weightable}, "
            f"{s.low_precision_share:.2f}% of {s.macs_total} MACs")
    return line + (": weight-only (no activation quantization)" if s.weight_compressed else "")


def summary_lines(s: Summary, rows: Sequence[LayerRow] = ()) -> list[str]:
    statuses = ", ".join(f"{k} {v}" for k, v in s.by_status.items())
    lines = [
        f"profile: {s.profile}",
        f"ISA: {s.isa}",
        f"layers: {s.layers} ({statuses})",
        share_line(s),
        f"FakeQuantize: {s.fake_quantize_before} in the model, {s.fake_quantize_left} left unquantized after LPT",
    ]
    if s.macs_per_position:
        lines.append("MACs: the model has dynamic dimensions (batch, H/W or sequence); they count as 1, so MACs "
                     f"are per output position (give {shape_hint(s)} for a full inference)")
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


def _reason(row: LayerRow) -> str:
    return f"{row.reason.code}: {row.reason.detail}" if row.reason else ""


def render_table(report: Report, width: int | None = None, notes: Sequence[str] = ()) -> str:
    """A rich table `width` columns wide (default: the terminal's), one line per layer. The
    reason has priority over the name: the name gets at most 2/5 of what the short columns
    leave (at least _MIN_LAYER, less only for a whole reason code), cut from the left so its
    distinguishing end shows, the reason the rest, cut between words. Below 120 columns there
    are no vertical rules and inputs and output share a column; below 100 the precisions are
    left out (`--layer NAME` and CSV have them)."""
    width = width or terminal_width()
    narrow, tight = width < 120, width < 100
    headers: tuple[str, ...]
    caps: tuple[int, ...]
    if tight:
        headers, caps = ("layer", "type", "status", "reason"), (10**6, 13, 18, 10**6)
    elif narrow:
        headers, caps = ("layer", "type", "precision", "status", "reason"), (10**6, 13, 13, 18, 10**6)
    else:
        headers, caps = ("layer", "type", "inputs", "output", "status", "reason"), (10**6, 16, 11, 6, 18, 10**6)
    cells = []
    for row in report.layers:
        inputs = " ".join(row.input_precisions)
        middle = () if tight else (f"{inputs}->{row.output_precision}",) if narrow else (inputs, row.output_precision)
        cells.append((layer_label(row), row.type, *middle, row.status, _reason(row)))
    natural = [min(cap, max([len(h), *(len(c[i]) for c in cells)])) for i, (h, cap) in enumerate(zip(headers, caps))]
    frame = 3 * (len(headers) - 1) if narrow else 3 * len(headers) + 1
    room = width - frame - sum(natural[1:-1])  # what the rules and the short columns leave
    codes = max((len(row.reason.code) + 1 for row in report.layers if row.reason), default=0)
    layer_width = min(natural[0], max(_MIN_LAYER, room * 2 // 5))  # the reason gets at least the rest
    reason_width = max(min(natural[-1], room - layer_width), min(natural[-1], _MIN_CUT),
                       min(codes, room - _MIN_CUT))  # a reason code is never cut while the name has room
    layer_width = max(min(natural[0], room - reason_width), 1)  # and what the reason leaves
    table = (Table(title=f"LPT report: {report.model}", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
             if narrow else Table(title=f"LPT report: {report.model}"))
    for header, column_width in zip(headers, (layer_width, *natural[1:-1], reason_width)):
        table.add_column(header, width=column_width, overflow="ellipsis", no_wrap=True)
    for row, cell in zip(report.layers, cells):
        status = f"[{_STYLE[row.status]}]{row.status}[/]" if row.status in _STYLE else row.status
        table.add_row(escape(_short_label(row, layer_width)), *(escape(c) for c in cell[1:-2]), status,
                      escape(cut_words(cell[-1], reason_width)))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    console.print(table)
    for line in [*summary_lines(report.summary, report.layers), *notes]:
        console.print(line, markup=False)
    return buffer.getvalue()


def _markdown_rows(rows: Sequence[LayerRow]) -> list[str]:
    lines = ["| layer | type | inputs | output | status | reason | transformation | MACs |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        reason = f"`{row.reason.code}`: {row.reason.detail}" if row.reason else ""
        cells = [layer_label(row), row.type, " ".join(row.input_precisions), row.output_precision, row.status, reason,
                 (row.reason.transformation or "") if row.reason else "", "" if row.macs is None else str(row.macs)]
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return lines


def render_markdown(report: Report, runtime: RuntimeView | None = None, notes: Sequence[str] = ()) -> str:
    lines = [f"# LPT report: `{report.model}`", ""]
    lines += [f"- {markdown_cell(line)}" for line in [*summary_lines(report.summary, report.layers), *notes]]
    lines += ["", *_markdown_rows(report.layers)]
    if runtime is not None:
        lines += markdown_comparison(runtime)
    return "\n".join(lines) + "\n"


def render_layer(analysis: Analysis, name: str, fmt: str, runtime: RuntimeView | None = None) -> str:
    """`--layer NAME` in format `fmt`: the layer's row, the ops around it before and after LPT
    and, with `runtime`, how it ran (its row and the counters of the ops it ran in)."""
    from .chain import chain_dict, chain_lines, require_layer

    require_layer(analysis.before, name)
    report = analysis.report
    row = next((r for r in report.layers if r.name == name), None)
    after_name = (row.transformed_name if row else None) or name
    view = runtime.only(name) if runtime is not None else None
    if fmt == "csv":
        return render_csv(Report(report.model, (row,) if row else (), report.summary), view)
    if fmt == "json":
        doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "model": report.model, "name": name,
                               "layer": row.to_dict() if row else None, "before": chain_dict(analysis.before, name),
                               "after": chain_dict(analysis.after, after_name)}
        if view is not None:
            doc["runtime"] = comparison_dict(view)
        return json.dumps(doc, indent=2) + "\n"
    heading = (f"{row.name} ({row.type}): {row.status}" + (f" — {_reason(row)}" if row.reason else "") if row else
               f"{name}: not a layer the report covers (a parameter, result or constant subgraph)")
    before, after = chain_lines(analysis.before, name), chain_lines(analysis.after, after_name)
    if fmt == "markdown":
        lines = [f"# LPT report: `{report.model}`, layer `{name}`", "", markdown_cell(heading), ""]
        lines += [*_markdown_rows((row,) if row else ()), "", "## Before LPT", "", "```text", *before, "```", "",
                  "## After LPT", "", "```text", *after, "```"]
        if view is not None:
            lines += markdown_comparison(view)
        return "\n".join(lines) + "\n"
    text = "\n".join([heading, "before LPT:", *before, "after LPT:", *after]) + "\n"
    return text if view is None else text + "\n" + format_comparison(view)
