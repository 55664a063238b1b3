"""The Python API: `lpt_cli.transform` / `lpt_cli.report` on IR paths and in-memory openvino Models."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from click.testing import CliRunner

import lpt_cli
from lpt_cli.cli.main import main
from lpt_cli.errors import LptError, LptWarning
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.model import LOW, LayerRow, Report

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "models"
DETECTION = FIXTURES / "detection.xml"


def _ops(model: ov.Model) -> list[tuple[str, str]]:
    return sorted((op.get_type_name(), op.get_friendly_name()) for op in model.get_ordered_ops())


def _u8_activations(model: ov.Model) -> int:
    return sum(1 for op in model.get_ordered_ops() if op.get_type_name() != "Constant"
               and op.get_output_element_type(0).get_type_name() == "u8")


def _run(model: ov.Model) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    inputs = [np.random.default_rng(0).standard_normal(tuple(p.get_shape())).astype(np.float32)
              for p in compiled.inputs]
    return [np.asarray(v) for v in compiled(inputs).values()]


def test_import_is_cheap():
    code = ("import sys, lpt_cli; lpt_cli.__version__; "
            "sys.exit(sum(m in sys.modules for m in ('openvino', 'numpy', 'lpt_cli.api')))")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_reaching_the_api_does_not_load_openvino():
    code = ("import sys, lpt_cli; lpt_cli.report('" + str(DETECTION) + "'); "
            "sys.exit('openvino' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        lpt_cli.not_an_api_function  # noqa: B018


def test_report_is_the_json_report_as_dataclasses():
    rep = lpt_cli.report(DETECTION, config="gpu")
    assert isinstance(rep, Report) and all(isinstance(row, LayerRow) for row in rep.layers)
    cli = CliRunner().invoke(main, ["report", str(DETECTION), "--config", "gpu", "--format", "json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout) == json.loads(json.dumps(rep.to_dict()))
    assert dataclasses.asdict(rep.summary)["low_precision_share"] == rep.summary.low_precision_share


def test_report_of_an_in_memory_model_matches_its_file():
    model = ov.Core().read_model(DETECTION)
    from_memory = lpt_cli.report(model)
    from_file = lpt_cli.report(str(DETECTION))
    assert from_memory.layers == from_file.layers
    assert from_memory.summary == from_file.summary
    assert from_memory.model == f"<openvino.Model {model.get_friendly_name()}>"


def test_config_as_object_name_or_yaml(tmp_path):
    nothing = tmp_path / "nothing.yaml"
    nothing.write_text("transformations:\n  only: []\n")
    with pytest.warns(LptWarning, match="transformations.only is empty"):  # the API warns as Python does
        assert lpt_cli.report(DETECTION, config=nothing).summary.weightable_low_precision == 0
    by_object = lpt_cli.report(DETECTION, config=load_config("gpu"))
    assert by_object.layers == lpt_cli.report(DETECTION, config="gpu").layers
    with pytest.raises(LptError, match="no such config file"):
        lpt_cli.report(DETECTION, config="no-such-profile")


def test_transform_an_in_memory_model():
    model = ov.Core().read_model(DETECTION)
    ops_before = _ops(model)
    out = lpt_cli.transform(model)
    assert isinstance(out, ov.Model)
    assert _ops(model) == ops_before  # the caller's model is untouched
    # the quantized activations are u8 tensors now (runtime dialect: FakeQuantize -> Convert(u8) -> ...)
    assert _u8_activations(model) == 0 < _u8_activations(out)
    assert [o.get_names() for o in out.outputs] == [o.get_names() for o in model.outputs]
    for got, ref in zip(_run(out), _run(model), strict=True):
        assert np.allclose(got, ref, atol=1e-4, rtol=1e-4)


def test_transform_of_a_path_equals_transform_file(tmp_path):
    out = lpt_cli.transform(str(DETECTION), config="gpu")
    done = lpt_cli.transform_file(DETECTION, tmp_path / "det.xml", config="gpu")
    assert done.output.is_file() and done.output.with_suffix(".bin").is_file()
    assert done.config == "gpu" and done.result.applied
    assert _ops(out) == _ops(ov.Core().read_model(done.output))


def test_transform_file_takes_an_in_memory_model_and_the_lowp_dialect(tmp_path):
    done = lpt_cli.transform_file(ov.Core().read_model(DETECTION), tmp_path / "det.xml", dialect="lowp")
    text = done.output.read_text()
    assert 'precision="U8"' in text and "Convolution" in text


def test_lowp_is_refused_when_openvino_cannot_load_it():
    with pytest.raises(LptError, match="openvino cannot load the transformed model.*transform_file"):
        lpt_cli.transform(DETECTION, dialect="lowp")


@pytest.mark.parametrize("bad", [42, b"model.xml"])
def test_a_model_that_is_neither_path_nor_model_is_a_type_error(bad):
    with pytest.raises(TypeError, match="openvino.Model"):
        lpt_cli.report(bad)


def test_a_path_that_is_not_an_xml_is_one_clear_error(tmp_path):
    with pytest.raises(LptError, match="expected an IR .xml"):
        lpt_cli.transform(tmp_path / "model.onnx")


def test_unknown_dialect():
    with pytest.raises(LptError, match="dialect 'fp8'"):
        lpt_cli.transform(DETECTION, dialect="fp8")


def test_shape_gives_macs_of_a_full_inference(tmp_path):
    import openvino.opset13 as ops

    x = ops.parameter(ov.PartialShape([-1, 3, -1, -1]), np.float32, name="x")
    act = ops.fake_quantize(x, 0.0, 2.55, 0.0, 2.55, 256)
    w = ops.fake_quantize(ops.constant(np.ones((8, 3, 3, 3), np.float32)), -1.0, 1.0, -1.0, 1.0, 255)
    conv = ops.convolution(act, w, [1, 1], [1, 1], [1, 1], [1, 1])
    model = ov.Model([conv], [x], "dyn")
    per_position = lpt_cli.report(model)
    full = lpt_cli.report(model, shape={"x": (1, 3, 16, 16)})
    assert per_position.summary.macs_per_position and not full.summary.macs_per_position
    assert full.summary.macs_total == 16 * 16 * per_position.summary.macs_total


@pytest.mark.slow
def test_a_model_straight_from_nncf(tmp_path, tiny_models):
    import nncf

    fp32 = ov.Core().read_model(tiny_models.conv(tmp_path, fp32=True))
    data = [np.random.default_rng(i).uniform(0, 2, (1, 3, 16, 16)).astype(np.float32) for i in range(4)]
    quantized = nncf.quantize(fp32, nncf.Dataset(data), subset_size=4)
    rep = lpt_cli.report(quantized)
    assert {row.name: row.status for row in rep.layers}["conv"] == LOW
    out = lpt_cli.transform(quantized)
    for got, ref in zip(_run(out), _run(quantized), strict=True):
        assert np.allclose(got, ref, atol=1e-4, rtol=1e-4)


def test_diff_of_an_in_memory_model_under_two_configs():
    model = ov.Core().read_model(DETECTION)
    found = lpt_cli.diff(model, config="cpu", config_b="default")
    assert found.lost and all(c.a.status == LOW and c.b.status != LOW for c in found.lost)
    by_path = lpt_cli.diff(DETECTION, config="cpu", config_b="default")
    assert found.layers == by_path.layers and (found.a_label, found.b_label) == ("cpu", "default")


def test_diff_needs_a_second_side():
    with pytest.raises(LptError, match="nothing to compare"):
        lpt_cli.diff(DETECTION)
