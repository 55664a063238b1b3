"""`lpt_cli.transform(..., check=True)` / `transform_file(..., check=True)`: the Python side of `--check`."""
from __future__ import annotations

from pathlib import Path

import openvino as ov
import pytest

import lpt_cli
from lpt_cli.errors import CheckFailed, LptError

DETECTION = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "detection.xml"


@pytest.mark.slow
def test_a_passed_check_is_on_the_result(tmp_path, tiny_models):
    done = lpt_cli.transform_file(tiny_models.conv(tmp_path), tmp_path / "conv_int8.xml", check=True, seed=3)
    assert done.check is not None and done.check.passed and done.check.seed == 3
    assert [o.name for o in done.check.outputs] == ["probs"] and done.check.inputs == (("input", (1, 3, 16, 16)),)
    assert done.output.is_file()


@pytest.mark.slow
def test_a_failed_check_raises_with_every_output_and_leaves_no_file(tmp_path, break_pipeline):
    break_pipeline("constant")
    out = tmp_path / "out" / "detection.xml"
    out.parent.mkdir()
    with pytest.raises(CheckFailed) as failed:
        lpt_cli.transform_file(DETECTION, out, check=True)
    assert isinstance(failed.value, LptError) and failed.value.exit_code == 4
    check = failed.value.check
    assert not check.passed and check.error is None and check.outputs
    worst = check.worst
    assert worst is not None and worst.error > 1e-5 and f"output '{worst.name}' differs" in str(failed.value)
    assert failed.value.transformed.check is check
    assert list(out.parent.iterdir()) == []


@pytest.mark.slow
def test_transform_of_an_in_memory_model_checks_it_too(break_pipeline):
    model = ov.Core().read_model(DETECTION)
    assert isinstance(lpt_cli.transform(model, check=True), ov.Model)
    break_pipeline("constant")
    with pytest.raises(CheckFailed, match="differs from the original"):
        lpt_cli.transform(model, check=True)


def test_check_refuses_the_lowp_dialect_before_reading(tmp_path):
    with pytest.raises(LptError, match="cannot load the lowp dialect"):
        lpt_cli.transform_file(DETECTION, tmp_path / "o.xml", dialect="lowp", check=True)
    assert list(tmp_path.iterdir()) == []
