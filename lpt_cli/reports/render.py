"""The report as text: a rich table for people, JSON/CSV/Markdown for scripts and PRs."""
from __future__ import annotations

import csv
import io
import json
import shutil

from rich.console import Console
from rich.table import Table

from . import FORMATS  # noqa: F401 - render() takes one of these
from .model import LOW, ORIGINAL, LayerRow, Report, Summary

CSV_COLUMNS = ("name", "type", "input_precisions", "output_precision", "status", "reason_code",
               "reason_detail", "transformation", "macs")
_STYLE = {LOW: "green", ORIGINAL: "yellow"}


def render(report: Report, fmt: str) -> str:
    """`report` in format `fmt` (one of FORMATS)."""
    return {"table": render_table, "json": render_json, "csv": render_csv, "markdown": render_markdown}[fmt](report)


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def _cells(row: LayerRow) -> list[str]:
    reason = row.reason
    return [row.name, row.type, " ".join(row.input_precisions), row.output_precision, row.status,
            reason.code if reason else "", reason.detail if reason else "",
            (reason.transformation or "") if reason else "", "" if row.macs is None else str(row.macs)]


def render_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(_cells(row) for row in report.layers)
    return out.getvalue()


def summary_lines(s: Summary) -> list[str]:
    statuses = ", ".join(f"{k} {v}" for k, v in s.by_status.items())
    lines = [
        f"profile: {s.profile}",
        f"ISA: {s.isa}",
        f"layers: {s.layers} ({statuses})",
        f"weightable layers in low precision: {s.weightable_low_precision}/{s.weightable}, "
        f"{s.low_precision_share:.2f}% of {s.macs_total} MACs",
        f"FakeQuantize: {s.fake_quantize_before} in the model, {s.fake_quantize_left} left unquantized after LPT",
    ]
    if s.macs_per_position:
        lines.append("MACs: the model has dynamic dimensions (batch, H/W or sequence); they count as 1, so MACs "
                     "are per output position (give --shape NAME=1,3,224,224 for a full inference)")
    if s.weight_compressed:
        kinds = ", ".join(f"{t} x{n}" for t, n in sorted(s.weight_compressed.items()))
        lines.append(f"weight-compressed (no FakeQuantize): {sum(s.weight_compressed.values())} weightable layers "
                     f"keep compressed weights ({kinds}) for the plugin's kernels; activations stay float")
    if s.reasons:
        lines.append("reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(s.reasons.items())))
    if s.unimplemented:
        lines.append(f"not implemented in lpt (skipped): {', '.join(s.unimplemented)}")
    return lines


def render_table(report: Report) -> str:
    table = Table(title=f"LPT report: {report.model}")
    for column in ("layer", "type", "inputs", "output", "status", "reason"):
        table.add_column(column, overflow="fold")
    for row in report.layers:
        reason = f"{row.reason.code}: {row.reason.detail}" if row.reason else ""
        status = f"[{_STYLE[row.status]}]{row.status}[/]" if row.status in _STYLE else row.status
        table.add_row(row.name, row.type, " ".join(row.input_precisions), row.output_precision, status, reason)
    width = shutil.get_terminal_size(fallback=(160, 24)).columns
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False)
    console.print(table)
    for line in summary_lines(report.summary):
        console.print(line, markup=False)
    return console.file.getvalue()


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    lines = [f"# LPT report: `{report.model}`", ""]
    lines += [f"- {_md(line)}" for line in summary_lines(report.summary)]
    lines += ["", "| layer | type | inputs | output | status | reason |", "|---|---|---|---|---|---|"]
    for row in report.layers:
        reason = f"`{row.reason.code}`: {row.reason.detail}" if row.reason else ""
        cells = [row.name, row.type, " ".join(row.input_precisions), row.output_precision, row.status, reason]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
