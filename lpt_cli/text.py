"""Plain-text tables that fit the terminal: columns cut with an ellipsis, never wrapped.

Shared by the report's runtime comparison and the performance counters (`reports` and
`runtime` are peers, so the helper lives beside errors.py).
"""
from __future__ import annotations

import shutil
from collections.abc import Sequence

ELLIPSIS = "…"
MIN_WIDTH = 8  # a cut column keeps enough to recognize a name


def terminal_width(fallback: int = 160) -> int:
    """$COLUMNS, else the terminal's width, else `fallback` (output piped to a file)."""
    return shutil.get_terminal_size(fallback=(fallback, 24)).columns


def markdown_cell(text: str) -> str:
    """`text` as one cell of a markdown table: a `|` would end the cell."""
    return text.replace("|", "\\|")


def fit_widths(natural: Sequence[int], width: int, gap: int = 2, fixed: frozenset[int] = frozenset()) -> list[int]:
    """Column widths summing (with `gap` between columns) to at most `width`: the widest
    column not `fixed` gives way first, none below MIN_WIDTH (or its natural width)."""
    widths = list(natural)
    cuttable = [i for i in range(len(widths)) if i not in fixed]
    while cuttable and sum(widths) + gap * (len(widths) - 1) > width:
        widest = max(cuttable, key=lambda i: widths[i])
        if widths[widest] <= MIN_WIDTH:
            break
        widths[widest] -= 1
    return widths


def cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, an ellipsis marking a cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def table_lines(rows: Sequence[Sequence[str]], width: int, right: frozenset[int] = frozenset()) -> list[str]:
    """`rows` (the first is the header) as aligned lines at most `width` wide; columns in
    `right` are right-aligned and never cut (numbers)."""
    natural = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    widths = fit_widths(natural, width, fixed=right)
    lines = []
    for row in rows:
        cells = [f"{cut(v, w):>{w}}" if i in right else f"{cut(v, w):<{w}}"
                 for i, (v, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines
