"""`lpt verify`: same inputs through the original and lpt's model; exit 3 above tolerance."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lpt_cli.cli import verify_cmd
from lpt_cli.cli.main import LptGroup


def run(*args: str):
    group = LptGroup("lpt")
    group.add_command(verify_cmd.verify)
    return CliRunner().invoke(group, ["verify", *map(str, args)], env={"COLUMNS": "100"})


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tiny_models):
    folder = tmp_path_factory.mktemp("verify")
    tiny_models.conv(folder)
    tiny_models.conv(folder, seed=1, name="other")  # same graph, other weights
    tiny_models.conv(folder, name="near", scale=0.0102)  # the same weights, scaled 2% more
    (folder / "nothing.yaml").write_text("transformations:\n  only: []\n")
    return folder


def test_identical_transformation_is_exact(folder):
    result = run(folder / "conv.xml", "--config", folder / "nothing.yaml")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "original vs lpt-transformed on CPU (INFERENCE_PRECISION_HINT f32), random inputs, seed 0"
    assert lines[2].split() == ["output", "lpt", "vs", "original", "lpt", "vs", "exact", "plugin", "vs", "exact",
                                "verdict"]
    probs = lines[3].split()
    assert probs[:2] == ["probs", "0"] and probs[2] == probs[3]  # both models as far from the exact math
    assert lines[3].endswith("  same as the original")
    assert lines[-1] == "verdict: same as the original: 1 of 1 outputs within atol=0.01 rtol=0.01"


def _as_lpt_output(monkeypatch, folder, name):
    """verify runs `folder/name.xml` as lpt's output."""
    def write(analysis, tmp, model):
        for ext in (".xml", ".bin"):
            shutil.copy(folder / f"{name}{ext}", Path(tmp) / f"{name}{ext}")
        return Path(tmp) / f"{name}.xml"

    monkeypatch.setattr("lpt_cli.reports.analyze.write_runtime_model", write)  # verify imports it per run


def test_a_changed_model_exits_3(folder, monkeypatch):
    _as_lpt_output(monkeypatch, folder, "other")
    result = run(folder / "conv.xml", "--config", folder / "nothing.yaml", "--atol", "1e-6", "--rtol", "0")
    assert result.exit_code == 3, result.output
    assert "  lpt changed the model" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("verdict: lpt changed the model: output 'probs' is ")


def test_lpt_output_the_plugin_refuses_is_exit_1_not_bad_input(folder, monkeypatch, tmp_path):
    """The original compiles, lpt's output of it does not: lpt's bug (exit 1), said in one line
    that names the user's model, not the temporary file lpt wrote and removed."""
    (tmp_path / "refused.xml").write_text(
        '<net name="refused" version="11"><layers>'
        '<layer id="0" name="input" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>'
        '<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>'
        '<layer id="1" name="odd" type="NoSuchOperation" version="opset1">'
        '<input><port id="0" precision="FP32"><dim>1</dim></port></input>'
        '<output><port id="1" precision="FP32"><dim>1</dim></port></output></layer>'
        '<layer id="2" name="probs" type="Result" version="opset1">'
        '<input><port id="0" precision="FP32"><dim>1</dim></port></input></layer>'
        '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
        '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>')
    (tmp_path / "refused.bin").write_bytes(b"")
    _as_lpt_output(monkeypatch, tmp_path, "refused")
    result = run(folder / "conv.xml", "--config", folder / "nothing.yaml")
    assert result.exit_code == 1, result.output
    line, = (line for line in result.stderr.splitlines() if line.startswith("lpt: error: "))
    assert line.startswith(f"lpt: error: {folder / 'conv.xml'}: OpenVINO compiles this model but not lpt's output of it (")
    assert "a bug in lpt" in line and "lpt-verify-" not in line


@pytest.mark.slow
def test_rounding_of_the_plugins_size_is_exit_0_not_a_bare_fail(folder, monkeypatch):
    """lpt's output differs from the original beyond --atol/--rtol, but it is no further from
    the exact FakeQuantize math than the original (the plugin's own LPT) is: rounding, exit 0.
    Here the "exact" model is another one, far from both, so both errors are of one size."""
    _as_lpt_output(monkeypatch, folder, "near")
    monkeypatch.setattr("lpt_cli.api._exact_model", lambda model, tmp: folder / "other.xml")
    result = run(folder / "conv.xml", "--config", folder / "nothing.yaml", "--atol", "0", "--rtol", "0")
    assert result.exit_code == 0, result.output
    assert "  same as the plugin's own rounding" in result.stdout
    assert result.stdout.splitlines()[-1].startswith(
        "verdict: same as the plugin's own rounding: 1 of 1 outputs differ from the original beyond atol=0 rtol=0")
    assert "FAIL" not in result.stdout


def test_lpt_pipeline_output_is_reported_per_output(folder):
    result = run(folder / "conv.xml", "--atol", "1e-3", "--rtol", "1e-3")
    assert result.exit_code in (0, 3), result.output
    assert result.stdout.splitlines()[3].startswith("probs ")
    assert ("lpt changed the model" in result.stdout) == (result.exit_code == 3)


def test_inputs_file(folder, tmp_path):
    np.savez(tmp_path / "in.npz", input=np.ones((1, 3, 16, 16), np.float32))
    assert run(folder / "conv.xml", "--config", folder / "nothing.yaml", "--inputs", tmp_path / "in.npz").exit_code == 0
    np.savez(tmp_path / "bad.npz", nope=np.ones(3, np.float32))
    result = run(folder / "conv.xml", "--inputs", tmp_path / "bad.npz")
    assert result.exit_code == 2 and "no array for input 0 'input'" in result.stderr


def test_help_documents_exit_codes():
    text = " ".join(run("--help").stdout.split())
    assert "Exit codes:" in text and "3 lpt changed the model" in text and "130 interrupted" in text
    assert "same as the plugin's own rounding" in text and "Examples:" in text


def test_dynamic_dimensions_are_said_and_shape_is_taken(tmp_path, tiny_models):
    model = tiny_models.dynamic_relu(tmp_path)
    result = run(model, "--config", "default")
    assert result.exit_code == 0, result.output
    assert "lpt: note: input 'x' [?,4]: using 1,4 (give --shape x=...)" in result.stderr
    given = run(model, "--config", "default", "--shape", "x=3,4")
    assert given.exit_code == 0 and "note" not in given.stderr
    bad = run(model, "--shape", "x=3,5")
    assert bad.exit_code == 2 and bad.stderr.strip().splitlines() == [
        "lpt: error: --shape x=3,5: the model input is [?,4]"]


def test_missing_gpu_is_one_line_exit_2_with_a_gpu_profile(folder):
    """`verify -d GPU --config gpu` stays as it is where no GPU is visible: one line, exit 2."""
    from lpt_cli.runtime.device import core

    if any(d.startswith("GPU") for d in core().available_devices):
        pytest.skip("this machine has a GPU")
    result = run(folder / "conv.xml", "--config", "gpu", "-d", "GPU")
    assert result.exit_code == 2
    assert result.stderr.startswith("lpt: error: device GPU is not available") and result.stderr.count("\n") == 1
