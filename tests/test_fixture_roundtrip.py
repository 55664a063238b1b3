"""Every bundled fixture survives `lpt transform` with no transformation, bit for bit.

With `transformations: {only: []}` only markup runs, which annotates and never rewrites, so
whatever differs between the input and the output model is the reader's or the writer's fault.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "models").glob("*.xml"))


def _outputs(path: Path, seed: int) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    rng = np.random.default_rng(seed)
    inputs = {port.any_name: rng.uniform(-4, 4, list(port.get_shape())).astype(np.float32)
              for port in compiled.inputs}
    result = compiled(inputs)
    return [np.asarray(result[port]) for port in compiled.outputs]


def test_fixtures_are_there() -> None:
    assert len(MODELS) >= 5


@pytest.mark.parametrize("dialect", ["runtime", "lowp"])
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_no_op_transform_is_bit_exact(model: Path, dialect: str, tmp_path: Path) -> None:
    config = tmp_path / "nothing.yaml"
    config.write_text("transformations: {only: []}\n")
    out = tmp_path / "out.xml"
    run = CliRunner().invoke(main, ["transform", str(model), "--config", str(config),
                                    "--dialect", dialect, "-o", str(out), "--quiet"])
    assert run.exit_code == 0, run.output
    for seed in (0, 1):
        expected, actual = _outputs(model, seed), _outputs(out, seed)
        assert len(expected) == len(actual)
        for want, got in zip(expected, actual):
            assert np.array_equal(want, got)
