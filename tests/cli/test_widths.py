"""Output fits the terminal (COLUMNS): one line per layer, cut with an ellipsis, never mid-word wraps."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.text import fit_widths, table_lines

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def run(*args: object, columns: int):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": str(columns)})


@pytest.mark.parametrize("columns", [80, 100, 160])
def test_report_table_is_one_line_per_layer_within_the_width(columns: int) -> None:
    model = MODELS / "detection.xml"
    result = run("report", model, columns=columns)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= columns
    layers = json.loads(run("report", model, "--format", "json", columns=columns).stdout)["layers"]
    table = result.stdout.split("\nprofile: ")[0].splitlines()  # the summary starts at `profile:`
    rows = [line for line in table if re.search(r"(low-precision|original-precision|not-quantized|removed)( |│|$)", line)]
    assert len(rows) == len(layers)  # one line per layer, none wrapped
    for line, layer in zip(rows, layers):
        name = line.strip("│ ").split()[0]
        assert layer["name"].endswith(name.lstrip("…"))  # a name is cut from the left: its end shows
    cut = [line for line in rows if "…" in line]
    assert cut  # the long reasons are cut, not wrapped


def test_report_runtime_fits_80_columns() -> None:
    result = run("report", MODELS / "resnet.xml", "--runtime", "CPU", columns=80)
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 80
    assert "realTime (ms)" in result.stdout and "static prediction vs runtime precision" in result.stdout


def test_columns_give_way_widest_first_and_numbers_stay_whole() -> None:
    assert fit_widths([30, 10, 5], 40) == [21, 10, 5]
    lines = table_lines([("name", "ms"), ("a" * 40, "12.345")], 20, right=frozenset({1}))
    assert all(len(line) <= 20 for line in lines) and lines[1].endswith("12.345") and "…" in lines[1]
