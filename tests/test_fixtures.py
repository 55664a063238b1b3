"""The checked-in model fixtures are what real users feed LPT, and can be regenerated."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import openvino as ov
import pytest

from conftest import GENERATOR, load_generator

NAMES = load_generator().ARCHITECTURES
MODELS = GENERATOR.parent / "models"


def _weight_dequantizations(model: ov.Model) -> int:
    """How many `i8 Constant -> Convert -> Multiply` weight chains the model has."""
    count = 0
    for op in model.get_ops():
        source = op.input_value(0).get_node() if op.get_type_name() == "Convert" else None
        if source is not None and source.get_type_name() == "Constant" and source.get_element_type() == ov.Type.i8:
            count += any(use.get_node().get_type_name() == "Multiply" for use in op.output(0).get_target_inputs())
    return count


@pytest.mark.parametrize("name", NAMES)
def test_quantized_fixture_has_fake_quantize_and_i8_weights(name: str, ensure_model: Callable[..., Path]) -> None:
    model = ov.Core().read_model(ensure_model(name, "small"))
    types = [op.get_type_name() for op in model.get_ops()]
    assert types.count("FakeQuantize") >= 5
    assert _weight_dequantizations(model) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_float_fixture_is_not_quantized(name: str, ensure_model: Callable[..., Path]) -> None:
    model = ov.Core().read_model(ensure_model(name, "small", fp32=True))
    assert "FakeQuantize" not in {op.get_type_name() for op in model.get_ops()}


def test_checked_in_fixtures_stay_small() -> None:
    assert sum(path.stat().st_size for path in MODELS.iterdir()) < 3_000_000


def test_unknown_model_is_refused(ensure_model: Callable[..., Path]) -> None:
    with pytest.raises(ValueError, match="unknown model"):
        ensure_model("vgg", "small")


def _op_types(xml: Path) -> list[str]:
    return sorted(op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops())


@pytest.mark.slow
def test_generation_is_reproducible(tmp_path: Path) -> None:
    """Two runs give the same bytes, and the checked-in files have the same structure.

    Bytes are compared between fresh runs, not with the checked-in files: a newer NNCF or
    OpenVINO may calibrate or serialize slightly differently without the fixture being wrong.
    """
    runs = [tmp_path / "a", tmp_path / "b"]
    for out in runs:
        subprocess.run([sys.executable, str(GENERATOR), "--only", "mobilenet", "--size", "small",
                        "--out", str(out)], check=True, capture_output=True)
    for suffix in (".xml", ".bin"):
        first, second = (out / f"mobilenet{suffix}" for out in runs)
        assert first.read_bytes() == second.read_bytes(), f"two runs differ in mobilenet{suffix}"
    assert _op_types(runs[0] / "mobilenet.xml") == _op_types(MODELS / "mobilenet.xml")
