"""Plain-text tables that fit the terminal: columns cut with an ellipsis, never wrapped.

Names are cut from the left (`…/layer.1/attention/MatMul`): in a real export they share a
long prefix (`__module.model.`), and the end is what tells them apart. Numbers are never cut.
Shared by the reports and the runtime tables (`reports` and `runtime` are peers, so the
helpers live beside errors.py).
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
    """`text` in at most `width` characters, an ellipsis marking a cut (prose: the start matters)."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def cut_words(text: str, width: int) -> str:
    """Prose in at most `width` characters, cut between words (mid-word only when the first
    word alone is wider), an ellipsis marking the cut."""
    if len(text) <= width:
        return text
    head = text[: max(width - 1, 0)]
    space = head.rfind(" ")
    return (head[:space].rstrip(" :;,") if space > 0 else head) + ELLIPSIS


def shorten(name: str, width: int) -> str:
    """An identifier in at most `width` characters, cut from the left so its distinguishing
    end shows: `__module.model.layer.0/aten::add/Add` -> `…layer.0/aten::add/Add`."""
    if len(name) <= width:
        return name
    return ELLIPSIS + name[len(name) - width + 1:] if width > 1 else ELLIPSIS[:width]


# A table cell: plain text (cut at its end), or (text, name): the text, then a name shortened
# from the left into what the column leaves (`fused into …/MVN_0_0/nncf_smooth_quant`).
Cell = str | tuple[str, str]


def _text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0] + cell[1]


def _fit(cell: Cell, width: int, names: bool) -> str:
    if isinstance(cell, tuple):
        head, name = cell
        return cut(head, width) if len(head) + 2 > width else head + shorten(name, width - len(head))
    return shorten(cell, width) if names else cut(cell, width)


def table_lines(rows: Sequence[Sequence[Cell]], width: int, right: frozenset[int] = frozenset(),
                names: frozenset[int] = frozenset(), whole: frozenset[int] = frozenset()) -> list[str]:
    """`rows` (the first is the header) as aligned lines at most `width` wide; columns in
    `right` are right-aligned and never cut (numbers), columns in `names` hold identifiers,
    cut from the left, columns in `whole` are never cut (a verdict)."""
    natural = [max(len(_text(row[i])) for row in rows) for i in range(len(rows[0]))]
    widths = fit_widths(natural, width, fixed=right | whole)
    lines = []
    for row in rows:
        cells = [f"{_text(v):>{w}}" if i in right else f"{_fit(v, w, i in names):<{w}}"
                 for i, (v, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines
