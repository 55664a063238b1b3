"""`lpt transform --check`: the output runs on the CPU plugin as the original does, or it is removed.

The tests that compile (slow) run the CLI in-process; the two compiles of each run happen in
child processes. A wrong output is made by planting a bug in lpt's pipeline (`break_pipeline`).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from test_transform_cli import make_model, snapshot

RESNET = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "resnet.xml"


def transform(*args: object):
    return CliRunner().invoke(main, ["transform", *map(str, args)])


def error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpt: error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def reshape_model(folder: Path) -> Path:
    """x [?] -> Reshape to [2, 3] -> Relu: the plugin runs it only on an input of 6 values."""
    x = ops.parameter(ov.PartialShape([-1]), np.float32, name="x")
    x.output(0).set_names({"x"})
    shaped = ops.reshape(x, ops.constant(np.array([2, 3], np.int64)), False)
    path = folder / "reshape.xml"
    ov.save_model(ov.Model([ops.relu(shaped)], [x], "reshape"), path, compress_to_fp16=False)
    return path


@pytest.mark.slow
def test_check_passes_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "resnet_int8.xml"
    result = transform(RESNET, "--check", "-o", out)
    assert result.exit_code == 0, result.output
    assert out.is_file() and out.with_suffix(".bin").is_file()
    assert ("  check: passed on this CPU, 1 output within 1e-05 of the original's max (worst 'output_0' "
            in result.stderr)
    assert "seed 0)" in result.stderr and "check inputs" not in result.stderr  # static shapes


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_output_that_differs_exits_4_and_is_removed(tmp_path: Path, break_pipeline, fmt: str) -> None:
    break_pipeline("constant")
    model, out = make_model(tmp_path), tmp_path / "out.xml"
    before = snapshot(tmp_path)
    result = transform(model, "--config", "default", "--check", "-o", out, "--format", fmt)
    assert result.exit_code == 4, result.output
    line = error_line(result)
    assert line.startswith("lpt: error: --check: output 'y' differs from the original: ")
    assert line.endswith(" of its max, above the limit 1e-05 (1 of 1 outputs differ); out.xml removed")
    assert snapshot(tmp_path) == before  # no output, no temporary file, the input untouched
    if fmt == "json":
        check = json.loads(result.stdout)["check"]
        assert check["passed"] is False and check["error"] is None
        assert [(o["name"], o["passed"]) for o in check["outputs"]] == [("y", False)]
        assert check["outputs"][0]["error"] > 1e-5
    else:
        assert result.stdout == ""


@pytest.mark.slow
def test_an_output_the_plugin_refuses_is_lpts_fault(tmp_path: Path, break_pipeline, written_outputs) -> None:
    break_pipeline("op")
    model, out = make_model(tmp_path), tmp_path / "out.xml"
    result = transform(model, "--config", "default", "--check", "-o", out)
    assert written_outputs.problems()  # the test suite's own check saw it too, as it should
    assert result.exit_code == 1, result.output
    line = error_line(result)
    assert line.startswith("lpt: error: --check: the CPU plugin runs the original but not lpt's output (")
    assert "NoSuchOp" in line and line.endswith("; out.xml removed: a bug in lpt, please report it")
    assert not out.exists() and not out.with_suffix(".bin").exists()


@pytest.mark.slow
@pytest.mark.parametrize(("shape", "said"), [
    (["--shape", "x=5"], "cannot run the original model"),
    ([], "dynamic dimensions got default sizes: input 'x' [?]: using 1 (give --shape x=...)"),
])
def test_an_original_the_plugin_cannot_run_is_bad_input(tmp_path: Path, shape: list[str], said: str) -> None:
    model, out = reshape_model(tmp_path), tmp_path / "out.xml"
    result = transform(model, "--check", *shape, "-o", out)
    assert result.exit_code == 2, result.output
    line = error_line(result)
    assert line.startswith(f"lpt: error: --check: the CPU plugin cannot run the original model {model}: ")
    assert said in line
    assert not out.exists() and not out.with_suffix(".bin").exists()
    assert transform(model, "--check", "--shape", "x=6", "-o", out).exit_code == 0  # the right size runs


@pytest.mark.slow
def test_dynamic_dimensions_default_or_take_shape(tmp_path: Path, tiny_models) -> None:
    model = tiny_models.dynamic_relu(tmp_path)
    by_default = transform(model, "--check", "-o", tmp_path / "a.xml")
    assert by_default.exit_code == 0, by_default.output
    assert "  check inputs: input 'x' [?,4]: using 1,4 (give --shape x=...)" in by_default.stderr
    given = transform(model, "--check", "--shape", "x=3,4", "--seed", "7", "-o", tmp_path / "b.xml", "--format", "json")
    assert given.exit_code == 0, given.output
    check = json.loads(given.stdout)["check"]
    assert check["inputs"] == {"x": [3, 4]} and check["default_shapes"] == [] and check["seed"] == 7
    assert check["passed"] is True and len(check["outputs"]) == 1


def test_a_wrong_shape_fails_before_anything_is_written(tmp_path: Path, tiny_models) -> None:
    model = tiny_models.dynamic_relu(tmp_path)
    for shape, said in (("x=3,5", "--shape x=3,5: the model input is [?,4]"), ("y=3,4", "--shape y: no such input")):
        result = transform(model, "--check", "--shape", shape, "-o", tmp_path / "out" / "o.xml")
        assert result.exit_code == 2, result.output
        assert said in error_line(result)
        assert not (tmp_path / "out").exists()  # not even the folder made for the output


def test_a_dynamic_rank_is_refused_up_front(tmp_path: Path) -> None:
    x = ops.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    x.output(0).set_names({"x"})
    ov.save_model(ov.Model([ops.relu(x)], [x], "any_rank"), tmp_path / "m.xml")
    result = transform(tmp_path / "m.xml", "--check", "--shape", "x=2,3", "-o", tmp_path / "o.xml")
    assert result.exit_code == 2
    assert "input 'x' of " in error_line(result) and "has a dynamic rank, which the CPU plugin does not compile" \
        in result.stderr
    assert not (tmp_path / "o.xml").exists()


@pytest.mark.parametrize(("args", "said"), [
    (["--check", "--dialect", "lowp"], "--check runs the output on the CPU plugin, which cannot load the lowp dialect"),
    (["--shape", "x=1,2"], "--shape sets the inputs of --check: add --check"),
    (["--seed", "3"], "--seed sets the inputs of --check: add --check"),
    (["--check", "--config", "gpu"], "--check compares on this CPU in f32; --config gpu converts the model to f16"),
])
def test_usage_errors_before_any_work(tmp_path: Path, args: list[str], said: str) -> None:
    model = make_model(tmp_path)
    before = snapshot(tmp_path)
    result = transform(model, *args, "-o", tmp_path / "new" / "out.xml")
    assert result.exit_code == 2
    assert said in error_line(result)
    assert snapshot(tmp_path) == before  # not even the output folder


def test_help_shows_check_and_exit_codes() -> None:
    text = CliRunner().invoke(main, ["transform", "--help"]).output
    assert "lpt transform model.xml --check -o out.xml" in text
    for code in ("0 written", "1 internal error", "2 bad input", "4 --check: an output differs", "130 interrupted"):
        assert code in " ".join(text.split())
