"""Every command's --help (issue 21): examples, exit codes, 80 columns, one label for --config,
and examples that say what the command really does."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
COMMANDS = [["transform"], ["report"], ["verify"], ["benchmark"], ["diff"], ["config"], ["config", "list"],
            ["config", "show"]]


def help_text(*command: str, columns: int = 80) -> str:
    result = CliRunner().invoke(main, [*command, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_has_examples_and_exit_codes_within_80_columns(command: list[str]) -> None:
    text = help_text(*command)
    assert [line for line in text.splitlines() if len(line) > 80] == []
    assert "Examples:" in text and "Exit codes:" in text
    examples = text.split("Examples:")[1].split("\n\n")[0]
    assert f"lpt {command[0]}" in examples
    codes = text.split("Exit codes:")[1]
    assert re.search(r"^\s+0\s", codes, re.MULTILINE) and re.search(r"^\s+2\s", codes, re.MULTILINE)


@pytest.mark.parametrize("command", ["transform", "report", "verify", "benchmark", "diff"])
def test_commands_that_run_say_interrupted_is_130(command: str) -> None:
    codes = help_text(command).split("Exit codes:")[1]
    assert re.search(r"^\s+1\s+internal error", codes, re.MULTILINE)
    assert re.search(r"^\s+130\s+interrupted \(Ctrl-C\)", codes, re.MULTILINE)


@pytest.mark.parametrize("command", ["transform", "report", "verify", "benchmark", "diff"])
def test_config_is_labelled_path_or_name(command: str) -> None:
    options = help_text(command, columns=200).split("Options:")[1]
    assert re.search(r"^\s+--config PATH\|NAME\s", options, re.MULTILINE)


def test_the_trace_example_names_the_files_cpu_writes(tmp_path: Path) -> None:
    """`lpt transform model.xml --trace trace/` (the cpu profile) writes 01_common_optimizations first."""
    lines = help_text("transform").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("lpt transform") and "--trace" in line)
    comment = [lines[start]] + [line for line in lines[start + 1:start + 4] if line.strip().startswith("#")]
    named = re.findall(r"(\d\d_\w+)\.xml", " ".join(comment))
    trace = tmp_path / "trace"
    result = CliRunner().invoke(main, ["transform", str(MODELS / "resnet.xml"), "-o", str(tmp_path / "o.xml"),
                                       "--trace", str(trace), "-q"])
    assert result.exit_code == 0, result.output
    written = sorted(path.stem for path in trace.glob("*.xml"))
    assert named == written[:len(named)] == ["01_common_optimizations", "02_pre_lpt"]
