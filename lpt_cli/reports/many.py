"""Several models in one report: a row per model (its summary) and a total, for a folder of exports.

The total's share is MAC-weighted over all models, as each model's share is over its layers,
so one big model left in f32 weighs more than a few small ones in INT8 (a count share
when no model has MACs). The same form is `lpt report --summary-only` for one model, and
`--format junit` (a test case per model, a failure per model under --fail-under).

On a screen (table, markdown) a model is named relative to the folder it was found in; JSON,
CSV and JUnit name it by its path as given.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..text import cut, markdown_cell, shorten, terminal_width
from .macs import low_precision_share
from .model import SCHEMA_VERSION, Report
from .render import share_line, summary_lines

COLUMNS = ("model", "layers", "weightable", "weightable_low_precision", "macs_total", "macs_low_precision",
           "low_precision_share", "fake_quantize_left", "passed")
_WEIGHT_ONLY = " (weight-only)"
_MARK = "*"  # the table's short form of _WEIGHT_ONLY, said under it
_MARK_NOTE = "* weight-only compressed: no activation quantization, so no layer runs in INT8"


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
    labels: Mapping[str, str] = field(default_factory=dict)  # model path -> its name on a screen
    folder: str = ""  # where the models were found, for the title ("" if given one by one)

    def label(self, report: Report) -> str:
        return self.labels.get(report.model, report.model)

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


def _yes_no(passed: bool | None) -> str:
    return "" if passed is None else ("yes" if passed else "no")


def _cells(many: ManyReport) -> list[list[str]]:
    """COLUMNS per model (by path), then the total row."""
    rows = []
    for r in many.reports:
        s = r.summary
        rows.append([r.model, str(s.layers), str(s.weightable), str(s.weightable_low_precision), str(s.macs_total),
                     str(s.macs_low_precision), f"{s.low_precision_share:.2f}", str(s.fake_quantize_left),
                     _yes_no(many.passed(r))])
    rows.append([_total_label(many), *_total_cells(many)])
    return rows


def _total_label(many: ManyReport) -> str:
    return f"total ({many.total.models} model{'s' if many.total.models != 1 else ''})"


def _total_cells(many: ManyReport) -> list[str]:
    t = many.total
    return [str(t.layers), str(t.weightable), str(t.weightable_low_precision), str(t.macs_total),
            str(t.macs_low_precision), f"{t.low_precision_share:.2f}", str(t.fake_quantize_left),
            "" if many.fail_under is None else f"{t.models - t.below}/{t.models}"]


def render_many(many: ManyReport, fmt: str) -> str:
    """`many` in format `fmt` (one of FORMATS)."""
    return {"table": _table, "json": _json, "csv": _csv, "markdown": _markdown, "junit": _junit}[fmt](many)


def _json(many: ManyReport) -> str:
    return json.dumps(many.to_dict(), indent=2) + "\n"


def _csv(many: ManyReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_cells(many))
    return out.getvalue()


def _title(many: ManyReport) -> str:
    count = f"{len(many.reports)} model{'s' if len(many.reports) != 1 else ''}"
    return f"LPT report: {count}" + (f" in {many.folder}" if many.folder else "")


def _share(report: Report, mark: str = _WEIGHT_ONLY) -> str:
    """The share for people: a weight-only compressed model's 0.00 says why (`mark`)."""
    s = report.summary
    return f"{s.low_precision_share:.2f}" + (mark if s.weight_compressed else "")


def _fit(label: str, width: int) -> str:
    """A model's name in `width` characters: a path keeps its end (the file), a file name its start."""
    return shorten(label, width) if "/" in label else cut(label, width)


def _macs(value: int) -> str:
    """MACs in three significant digits (`4.09G`): a screen column, never split."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return str(value)


def _screen_rows(many: ManyReport, narrow: bool, mark: str = _WEIGHT_ONLY) -> tuple[tuple[str, ...], list[list[str]]]:
    """Headers and rows (the total last) of the table and the markdown; a model by its label
    without `.xml` (every model is one)."""
    gate = (f"share >=\n{many.fail_under:g}%",) if many.fail_under is not None else ()
    if narrow:
        headers = ("model", "layers", "low-precision\nweightable", "MACs", "share %", "FQ\nleft", *gate)
    else:
        headers = ("model", "layers", "weightable", "low precision", "MACs", "low-precision MACs", "share %",
                   "FQ left", *gate)
    rows = []
    for r in many.reports:
        s = r.summary
        numbers = ([str(s.layers), f"{s.weightable_low_precision}/{s.weightable}", _macs(s.macs_total)] if narrow
                   else [str(s.layers), str(s.weightable), str(s.weightable_low_precision), str(s.macs_total),
                         str(s.macs_low_precision)])
        rows.append([many.label(r).removesuffix(".xml"), *numbers, _share(r, mark), str(s.fake_quantize_left),
                     _yes_no(many.passed(r))][:len(headers)])
    t = many.total
    numbers = ([str(t.layers), f"{t.weightable_low_precision}/{t.weightable}", _macs(t.macs_total)] if narrow
               else _total_cells(many)[:5])
    rows.append([_total_label(many), *numbers, f"{t.low_precision_share:.2f}", str(t.fake_quantize_left),
                 _total_cells(many)[-1]][:len(headers)])
    return headers, rows


def _table(many: ManyReport, width: int | None = None) -> str:
    """One line per model at any width: numbers are never split (below 120 columns the MACs
    are shown in G/M/K and the weightable layers as low/all), names are cut from the left."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    width = width or terminal_width()
    narrow = width < 120
    headers, rows = _screen_rows(many, narrow, _MARK)
    table = (Table(title=_title(many), box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False) if narrow
             else Table(title=_title(many)))
    numbers = [max(len(line) for text in (h, *(row[i] for row in rows)) for line in text.split("\n"))
               for i, h in enumerate(headers) if i]
    frame = 3 * (len(headers) - 1) if narrow else 3 * len(headers) + 1
    model_width = max(width - frame - sum(numbers), len(rows[-1][0]))  # the total's label stays whole
    table.add_column(headers[0], no_wrap=True, max_width=model_width)
    for header in headers[1:]:
        table.add_column(header, justify="right", no_wrap=True)
    for i, row in enumerate(rows):
        style = "bold" if i == len(rows) - 1 else ("red" if row[-1] == "no" else "")
        table.add_row(Text(_fit(row[0], model_width)), *(Text(c) for c in row[1:]), style=style,
                      end_section=i == len(rows) - 2)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    console.print(table)
    if any(r.summary.weight_compressed for r in many.reports):
        console.print(_MARK_NOTE, markup=False)
    return buffer.getvalue()


def _markdown(many: ManyReport) -> str:
    headers, rows = _screen_rows(many, narrow=False)
    lines = [f"# {_title(many)}", "", "| " + " | ".join(h.replace("\n", " ") for h in headers) + " |",
             "|" + "---|" * len(headers)]
    for i, row in enumerate(rows):
        shown = [markdown_cell(c) for c in row]
        if i == len(rows) - 1:
            shown = [f"**{c}**" if c else c for c in shown]
        lines.append("| " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"


def _junit(many: ManyReport) -> str:
    """JUnit XML, the format CI systems show natively: a test case per model, failed when the
    model is below --fail-under; its summary as the case's output."""
    import xml.etree.ElementTree as ET

    failures = str(len(many.below))
    suites = ET.Element("testsuites", name="lpt report", tests=str(len(many.reports)), failures=failures)
    suite = ET.SubElement(suites, "testsuite", name="lpt report", tests=str(len(many.reports)), failures=failures,
                          errors="0", skipped="0")
    for report in many.reports:
        case = ET.SubElement(suite, "testcase", classname="lpt.report", name=many.label(report), file=report.model)
        summary = "\n".join([f"model: {report.model}", *summary_lines(report.summary)])
        if many.passed(report) is False:
            failure = ET.SubElement(case, "failure", type="fail_under", message=(
                f"low-precision share {report.summary.low_precision_share:.2f}% is below --fail-under "
                f"{many.fail_under:g}% ({share_line(report.summary)})"))
            failure.text = summary
        ET.SubElement(case, "system-out").text = summary
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
