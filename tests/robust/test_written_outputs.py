"""The suite-wide check (tests/conftest.py `written_outputs`): an output that does not load is
named with its dialect and why."""
from __future__ import annotations

from pathlib import Path

from conftest import WrittenOutputs

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir

MODEL = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "mobilenet.xml"


def _written(path: Path, dialect: str) -> Path:
    write_ir(read_ir(MODEL), path, dialect=dialect)
    return path


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
