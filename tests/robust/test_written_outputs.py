"""The suite-wide check (tests/conftest.py `written_outputs`): an output that does not load is
named with its dialect and why, and fails the test that wrote it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import WrittenOutputs

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir

MODEL = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "mobilenet.xml"


def _written(path: Path, dialect: str) -> Path:
    write_ir(read_ir(MODEL), path, dialect=dialect)
    return path


@pytest.mark.slow
def test_a_refused_runtime_output_and_an_unreadable_lowp_output_are_named(tmp_path: Path) -> None:
    outputs = WrittenOutputs()
    try:
        for name, dialect in (("good", "runtime"), ("bad", "runtime"), ("good_lowp", "lowp"), ("bad_lowp", "lowp")):
            path = _written(tmp_path / f"{name}.xml", dialect)
            text = path.read_text()
            if name == "bad":  # an op type OpenVINO does not know
                path.write_text(text.replace('type="Convolution"', 'type="NoSuchOp"', 1))
            elif name == "bad_lowp":  # not XML any more
                path.write_text(text[: len(text) // 2])
            outputs.record(path, dialect)
        problems = outputs.problems()
    finally:
        outputs.checker.stop()
    assert [line.split(" (")[0] for line in problems] == [str(tmp_path / "bad.xml"), str(tmp_path / "bad_lowp.xml")]
    assert "runtime dialect" in problems[0] and "NoSuchOp" in problems[0]
    assert "lowp dialect" in problems[1] and "lpt's reader refuses it" in problems[1]
    assert outputs.problems() == []  # each output is checked once


@pytest.mark.slow
def test_the_test_that_wrote_a_refused_output_fails_naming_both(tmp_path: Path) -> None:
    """An inner pytest session with this conftest: a test writing an output the plugin refuses
    fails at teardown, naming itself and the output; a test writing a good one passes."""
    shutil.copy(Path(__file__).resolve().parents[1] / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_inner.py").write_text(f"""
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir


def test_good(tmp_path):
    write_ir(read_ir({str(MODEL)!r}), tmp_path / "good.xml")


def test_broken(tmp_path):
    graph = read_ir({str(MODEL)!r})
    next(node for node in graph if node.type == "Clamp").type = "NoSuchOp"
    write_ir(graph, tmp_path / "broken.xml")
""")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout
    assert "2 passed, 1 error" in done.stdout  # test_broken itself passes; its teardown errs
    assert "test_inner.py::test_broken wrote outputs that do not load" in done.stdout
    assert "broken.xml (runtime dialect)" in done.stdout and "NoSuchOp" in done.stdout
    assert "lpt outputs checked: 2 runtime" in done.stdout
