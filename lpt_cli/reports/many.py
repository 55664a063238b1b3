"""Several models in one report: a row per model (its summary) and a total, for a folder of exports.

The total's share is MAC-weighted over all models, as each model's share is over its layers,
so one big model left in f32 weighs more than a few small ones in INT8 (a count share
when no model has MACs).
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from ..text import markdown_cell, terminal_width
from .macs import low_precision_share
from .model import SCHEMA_VERSION, Report

FORMATS = ("table", "json", "csv", "markdown")
COLUMNS = ("model", "layers", "weightable", "weightable_low_precision", "macs_total", "macs_low_precision",
           "low_precision_share", "fake_quantize_left", "passed")


@dataclass(frozen=True)
class Total:
    models: int
    layers: int
    weightable: int
    weightable_low_precision: int
    macs_total: int
    macs_low_precision: int
    low_precision_share: float
    fake_quantize_left: int
    below: int  # models under --fail-under (0 without it)


@dataclass(frozen=True)
class ManyReport:
    reports: tuple[Report, ...]
    fail_under: float | None = None  # percent; None: no gate

    def passed(self, report: Report) -> bool | None:
        """Whether `report` meets --fail-under (None without one)."""
        return None if self.fail_under is None else report.summary.low_precision_share >= self.fail_under

    @property
    def below(self) -> tuple[Report, ...]:
        return tuple(r for r in self.reports if self.passed(r) is False)

    @property
    def total(self) -> Total:
        sums = [r.summary for r in self.reports]
        weightable = sum(s.weightable for s in sums)
        low = sum(s.weightable_low_precision for s in sums)
        macs = sum(s.macs_total for s in sums)
        macs_low = sum(s.macs_low_precision for s in sums)
        share = low_precision_share(macs_low, macs, low, weightable)
        return Total(len(sums), sum(s.layers for s in sums), weightable, low, macs, macs_low, share,
                     sum(s.fake_quantize_left for s in sums), len(self.below))

    def to_dict(self) -> dict[str, Any]:
        """The `lpt report --format json` document for several models."""
        models = [{"model": r.model, "passed": self.passed(r), "summary": r.to_dict()["summary"]}
                  for r in self.reports]
        return {"schema_version": SCHEMA_VERSION, "fail_under": self.fail_under, "models": models,
                "total": self.total.__dict__}


def _cells(many: ManyReport) -> list[list[str]]:
    """COLUMNS per model, then the total row."""
    rows = []
    for r in many.reports:
        s, passed = r.summary, many.passed(r)
        rows.append([r.model, str(s.layers), str(s.weightable), str(s.weightable_low_precision), str(s.macs_total),
                     str(s.macs_low_precision), f"{s.low_precision_share:.2f}", str(s.fake_quantize_left),
                     "" if passed is None else ("yes" if passed else "no")])
    t = many.total
    rows.append([f"total ({t.models} model{'s' if t.models != 1 else ''})", str(t.layers), str(t.weightable),
                 str(t.weightable_low_precision), str(t.macs_total), str(t.macs_low_precision),
                 f"{t.low_precision_share:.2f}", str(t.fake_quantize_left),
                 "" if many.fail_under is None else f"{t.models - t.below}/{t.models}"])
    return rows


def render_many(many: ManyReport, fmt: str) -> str:
    """`many` in format `fmt` (one of FORMATS)."""
    return {"table": _table, "json": _json, "csv": _csv, "markdown": _markdown}[fmt](many)


def _json(many: ManyReport) -> str:
    return json.dumps(many.to_dict(), indent=2) + "\n"


def _csv(many: ManyReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_cells(many))
    return out.getvalue()


_HEADERS = ("model", "layers", "weightable", "low precision", "MACs", "low-precision MACs", "share %", "FQ left")


def _headers(many: ManyReport) -> tuple[str, ...]:
    return _HEADERS + ((f"share >= {many.fail_under:g}%",) if many.fail_under is not None else ())


def _table(many: ManyReport) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"LPT report: {len(many.reports)} models")
    for i, header in enumerate(_headers(many)):
        table.add_column(header, justify="left" if i == 0 else "right", overflow="fold")
    cells = _cells(many)
    width = len(_headers(many))
    for i, row in enumerate(cells):
        style = "bold" if i == len(cells) - 1 else ("red" if row[-1] == "no" else "")
        table.add_row(*(Text(c) for c in row[:width]), style=style, end_section=i == len(cells) - 2)
    buffer = io.StringIO()
    console = Console(file=buffer, width=terminal_width(),
                      color_system=None, highlight=False)
    console.print(table)
    return buffer.getvalue()


def _markdown(many: ManyReport) -> str:
    headers = _headers(many)
    lines = [f"# LPT report: {len(many.reports)} models", "", "| " + " | ".join(headers) + " |",
             "|" + "---|" * len(headers)]
    cells = _cells(many)
    for i, row in enumerate(cells):
        shown = [markdown_cell(c) for c in row[:len(headers)]]
        if i == len(cells) - 1:
            shown = [f"**{c}**" if c else c for c in shown]
        lines.append("| " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"
