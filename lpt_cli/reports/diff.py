"""Per-layer differences between two reports: two versions of a model, or one model under two configs.

Layers are matched by name. A layer that was in low precision on side A and is not on side B
has *lost* it (what a CI gate between model versions fails on); the opposite *gained* it; a
change of status, reason or precisions that is neither is *changed*. A layer removed on either
side (LPT folded it away: a FakeQuantize taken over by a Concat's) runs in no precision there, so
it is changed, never lost or gained. Layers only one side has
are listed, but do not count as lost: a renamed layer would otherwise fail every gate (the
summaries' low-precision shares still show a drop).

Names OpenVINO generates (`Multiply_1025545` for a Convolution a converter folded a Multiply
into, and `Multiply_1025545/fq_output_0` after it) are numbered differently in every export.
Such layers left unmatched are paired by type in model order, when both sides have as many of
that type, so two exports of one network compare layer by layer.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any

from ..text import markdown_cell, shorten, terminal_width
from .model import LOW, REMOVED, SCHEMA_VERSION, LayerRow, Report

LOST, GAINED, CHANGED, ONLY_A, ONLY_B = "lost", "gained", "changed", "only-a", "only-b"
CHANGES = (LOST, GAINED, CHANGED, ONLY_A, ONLY_B)
_STYLE = {LOST: "red", GAINED: "green"}
_AUTO_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*_\d+(/|$)")


@dataclass(frozen=True)
class LayerChange:
    """One layer that differs; `a`/`b` are its rows in either report (None: not on that side)."""

    name: str
    change: str  # one of CHANGES
    a: LayerRow | None
    b: LayerRow | None

    @property
    def label(self) -> str:
        """The layer's name, or both names of a pair of generated names."""
        if self.a is not None and self.b is not None and self.a.name != self.b.name:
            return f"{self.a.name} ~ {self.b.name}"
        return self.name

    @property
    def type(self) -> str:
        types = dict.fromkeys(row.type for row in (self.a, self.b) if row is not None)
        return "/".join(types)


@dataclass(frozen=True)
class Diff:
    a_label: str  # what side A is: a model path, a config, or both
    b_label: str
    a: Report
    b: Report
    layers: tuple[LayerChange, ...]  # only the layers that differ, in A's order, then B's own

    def changed(self, kind: str) -> tuple[LayerChange, ...]:
        return tuple(c for c in self.layers if c.change == kind)

    @property
    def lost(self) -> tuple[LayerChange, ...]:
        return self.changed(LOST)

    def to_dict(self) -> dict[str, Any]:
        """The `lpt diff --format json` document."""
        return {
            "schema_version": SCHEMA_VERSION,
            "a": _side(self.a_label, self.a), "b": _side(self.b_label, self.b),
            "counts": {kind: len(self.changed(kind)) for kind in CHANGES},
            "layers": [{"name": c.name, "type": c.type, "change": c.change,
                        "a": c.a.to_dict() if c.a else None, "b": c.b.to_dict() if c.b else None}
                       for c in self.layers],
        }


def diff_reports(a: Report, b: Report, a_label: str, b_label: str) -> Diff:
    """The layers whose status, reason or precisions differ between report `a` and report `b`."""
    rows_b = {row.name: row for row in b.layers}
    names_a = {row.name for row in a.layers}
    only_b = [row for row in b.layers if row.name not in names_a]
    paired = _pair_generated([row for row in a.layers if row.name not in rows_b], only_b)
    changes = [change for row in a.layers
               if (change := _compare(row, rows_b.get(row.name) or paired.get(row.name))) is not None]
    taken = {row.name for row in paired.values()}
    changes += [LayerChange(row.name, ONLY_B, None, row) for row in only_b if row.name not in taken]
    return Diff(a_label, b_label, a, b, tuple(changes))


def _pair_generated(only_a: list[LayerRow], only_b: list[LayerRow]) -> dict[str, LayerRow]:
    """A's unmatched layer with a generated name -> B's, by type in model order (equal counts only)."""
    def by_type(rows: list[LayerRow]) -> dict[str, list[LayerRow]]:
        found: dict[str, list[LayerRow]] = {}
        for row in rows:
            if _AUTO_NAME.match(row.name):
                found.setdefault(row.type, []).append(row)
        return found

    side_b = by_type(only_b)
    return {ra.name: rb for op, rows in by_type(only_a).items() if len(rows) == len(side_b.get(op, ()))
            for ra, rb in zip(rows, side_b[op])}


def _compare(a: LayerRow, b: LayerRow | None) -> LayerChange | None:
    if b is None:
        return LayerChange(a.name, ONLY_A, a, None)
    if REMOVED not in (a.status, b.status) and (a.status == LOW) != (b.status == LOW):
        return LayerChange(a.name, LOST if a.status == LOW else GAINED, a, b)
    if _facts(a) != _facts(b):
        return LayerChange(a.name, CHANGED, a, b)
    return None


def _facts(row: LayerRow) -> tuple[object, ...]:
    """What a difference is about (not the transformed name or the wording of a reason)."""
    return row.type, row.status, row.reason.code if row.reason else None, row.input_precisions, row.output_precision


def _side(label: str, report: Report) -> dict[str, Any]:
    s = report.summary
    return {"label": label, "model": report.model, "profile": s.profile,
            "low_precision_share": s.low_precision_share, "weightable": s.weightable,
            "weightable_low_precision": s.weightable_low_precision, "by_status": s.by_status}


def render_diff(diff: Diff, fmt: str) -> str:
    """`diff` in format `fmt` (one of DIFF_FORMATS)."""
    if fmt == "json":
        return json.dumps(diff.to_dict(), indent=2) + "\n"
    return {"table": _table, "markdown": _markdown}[fmt](diff)


def describe(row: LayerRow | None) -> str:
    """A layer's state on one side: status, precisions and the reason, for people."""
    if row is None:
        return "(not in this model)"
    text = f"{row.status} [{' '.join(row.input_precisions)} -> {row.output_precision}]"
    return text + (f" {row.reason.code}: {row.reason.detail}" if row.reason else "")


def summary_lines(diff: Diff) -> list[str]:
    lines = []
    for side, label, report in (("A", diff.a_label, diff.a), ("B", diff.b_label, diff.b)):
        s = report.summary
        lines.append(f"{side}: {label}: weightable layers in low precision {s.weightable_low_precision}/"
                     f"{s.weightable}, {s.low_precision_share:.2f}% of MACs")
    counts = ", ".join(f"{kind} {len(diff.changed(kind))}" for kind in CHANGES)
    lines.append(f"layers that differ: {len(diff.layers)} ({counts})")
    return lines


def _table(diff: Diff, width: int | None = None) -> str:
    """The layers that differ, `width` columns wide (default: the terminal's). A layer's name is
    cut from the left (its distinguishing end shows), A and B wrap between words and a word
    wider than its column is cut, never split. Below 120 columns the type goes under the name."""
    from rich import box
    from rich.console import Console  # rich loads only for a table (`lpt --help` stays fast)
    from rich.table import Table
    from rich.text import Text

    width = width or terminal_width()
    narrow = width < 120
    headers = ("layer", "change", "A", "B") if narrow else ("layer", "type", "change", "A", "B")
    frame = 3 * (len(headers) - 1) if narrow else 3 * len(headers) + 1
    fixed = [max([len(headers[i]), *(len(c.type if headers[i] == "type" else c.change) for c in diff.layers)])
             for i in range(1, len(headers) - 2)]
    room = width - frame - sum(fixed)
    layer_width = min(max([5, *(len(c.label) for c in diff.layers)]), max(16, room // 3))
    side_width = max((room - layer_width) // 2, 8)
    table = (Table(title=f"LPT diff: A = {diff.a_label}, B = {diff.b_label}", box=box.SIMPLE_HEAD, show_edge=False,
                   pad_edge=False) if narrow else Table(title=f"LPT diff: A = {diff.a_label}, B = {diff.b_label}"))
    for header, column_width in zip(headers, (layer_width, *fixed, side_width, side_width)):
        table.add_column(header, width=column_width, overflow="ellipsis", no_wrap=header not in ("A", "B"))
    for c in diff.layers:
        name = shorten(c.label, layer_width) + (f"\n{shorten(c.type, layer_width)}" if narrow else "")
        middle = (Text(c.change, style=_STYLE.get(c.change, "")),) if narrow else (
            Text(c.type), Text(c.change, style=_STYLE.get(c.change, "")))
        table.add_row(Text(name), *middle, Text(describe(c.a)), Text(describe(c.b)))  # Text: `[u8]` is no markup
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    if diff.layers:
        console.print(table)
    else:
        console.print(f"no layer differs between A = {diff.a_label} and B = {diff.b_label}", markup=False)
    for line in summary_lines(diff):
        console.print(line, markup=False)
    return buffer.getvalue()


def _markdown(diff: Diff) -> str:
    lines = [f"# LPT diff: A = `{diff.a_label}`, B = `{diff.b_label}`", ""]
    lines += [f"- {markdown_cell(line)}" for line in summary_lines(diff)]
    if diff.layers:
        lines += ["", "| layer | type | change | A | B |", "|---|---|---|---|---|"]
        for c in diff.layers:
            cells = [c.label, c.type, f"**{c.change}**" if c.change == LOST else c.change, describe(c.a), describe(c.b)]
            lines.append("| " + " | ".join(markdown_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"
