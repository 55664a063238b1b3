"""Reading the output on an 80-column screen: no number or name split across lines, names cut
from the left (their distinguishing end shows), reasons first, paths relative to the folder,
only the layers asked for (--status), shape subgraphs left out of the table."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
PREFIX = "__module.model.encoder.layer.0.attention.self/aten::linear/"


def run(*args: object, columns: int = 80):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    """Named like a torch export (one long prefix, names differing at the end): x [?,16] -> three
    quantized MatMuls -> Reshape to [batch, -1], the batch from a shape subgraph (ShapeOf -> Gather
    -> Concat)."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(0)
    x = ops.parameter(ov.PartialShape([-1, 16]), np.float32, name="input_ids")
    data = x.output(0)
    for i in range(3):
        act = ops.fake_quantize(data, 0.0, 2.55, 0.0, 2.55, 256)
        act.set_friendly_name(f"{PREFIX}MatMul_{i}/fq_input_0")
        w = ops.fake_quantize(ops.constant(rng.uniform(-1, 1, (16, 16)).astype(np.float32)), -1.0, 1.0, -1.0, 1.0, 255)
        matmul = ops.matmul(act, w, False, True)
        matmul.set_friendly_name(f"{PREFIX}MatMul_{i}")
        data = ops.relu(matmul).output(0)
    batch = ops.gather(ops.shape_of(x), ops.constant(np.array([0], np.int64)), ops.constant(np.int64(0)))
    target = ops.concat([batch, ops.constant(np.array([-1], np.int64))], 0)
    path = tmp_path_factory.mktemp("export") / "export.xml"
    ov.save_model(ov.Model([ops.reshape(data, target, False)], [x], "export"), path)
    return path


def _layer_lines(text: str) -> list[str]:
    """The table's rows: the lines naming a status before the summary (which starts at `profile:`
    and may wrap at 80 columns)."""
    table = text.split("\nprofile: ")[0]
    return [line for line in table.splitlines()
            if re.search(r"(low-precision|original-precision|not-quantized|removed)( |│|$)", line)]


def test_names_are_cut_from_the_left_at_80_columns(export):
    result = run("report", export, "--shape-subgraphs")
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 80
    names = [line.split()[0] for line in _layer_lines(result.stdout)]
    layers = json.loads(run("report", export, "--format", "json").stdout)["layers"]
    assert len(names) == len(layers)
    assert not any(name.startswith("__module.mo") for name in names)  # not the shared prefix, cut
    for shown, layer in zip(names, layers):
        assert layer["name"].endswith(shown.lstrip("…"))
    matmuls = [name for name, layer in zip(names, layers) if layer["type"] == "MatMul"]
    assert [name[-8:] for name in matmuls] == ["MatMul_0", "MatMul_1", "MatMul_2"]


def test_shape_subgraphs_are_left_out_of_the_table_and_said(export):
    table = run("report", export, columns=200).stdout
    every = run("report", export, "--shape-subgraphs", columns=200).stdout
    assert not any("ShapeOf" in line for line in _layer_lines(table))
    assert any("ShapeOf" in line for line in _layer_lines(every))
    assert len(_layer_lines(every)) - len(_layer_lines(table)) == 3  # ShapeOf, Gather, Concat
    assert "not listed: 3 layers of shape subgraphs (ShapeOf and what computes on shapes only; " \
           "--shape-subgraphs lists them)" in table
    layers = json.loads(run("report", export, "--format", "json").stdout)["layers"]
    assert any(layer["type"] == "ShapeOf" for layer in layers)  # JSON has every layer


def test_status_lists_only_the_layers_that_need_attention():
    model = MODELS / "detection.xml"
    every = json.loads(run("report", model, "--config", "default", "--format", "json").stdout)
    result = run("report", model, "--config", "default", "--status", "original-precision", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    wanted = [layer["name"] for layer in every["layers"] if layer["status"] == "original-precision"]
    assert wanted and [layer["name"] for layer in doc["layers"]] == wanted
    assert doc["summary"] == every["summary"]  # the whole model's
    table = run("report", model, "--config", "default", "--status", "original-precision").stdout
    assert len(_layer_lines(table)) == len(wanted)
    assert f"listed: the {len(wanted)} layers with status original-precision (--status)" in table


def test_the_reason_code_has_priority_over_the_name_at_80_columns():
    text = run("report", MODELS / "detection.xml", "--config", "default", "--status", "original-precision").stdout
    rows = _layer_lines(text)
    codes = ("no_dequantization_upstream", "fq_standalone", "consumer_not_supported", "not_aligned", "op_not_supported")
    assert rows and all(any(code in row for code in codes) for row in rows)


def test_several_models_at_80_columns_never_split_a_number_and_name_them_in_the_folder(tmp_path):
    for name in ("resnet", "mobilenet_fp32"):
        for suffix in (".xml", ".bin"):
            shutil.copy(MODELS / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    result = run("report", tmp_path, "--fail-under", "90")
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80 and "LPT report: 2 models in" in result.stdout
    doc = json.loads(run("report", tmp_path, "--format", "json").stdout)
    for model in doc["models"]:
        s = model["summary"]
        row = next(line for line in lines if line.startswith(Path(model["model"]).stem + " "))
        assert row.split()[1:4] == [str(s["layers"]), f"{s['weightable_low_precision']}/{s['weightable']}",
                                    row.split()[3]]
        assert f"{s['low_precision_share']:.2f}" in row.split()
    assert doc["models"][0]["model"] == str(tmp_path / "mobilenet_fp32.xml")  # JSON: the path as found


def test_diff_at_80_columns_splits_no_name():
    result = run("diff", MODELS / "resnet.xml", MODELS / "detection.xml")
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    names = [layer["name"] for layer in json.loads(run("diff", MODELS / "resnet.xml", MODELS / "detection.xml",
                                                       "--format", "json").stdout)["layers"]]
    assert "add_19/fq_output_0" in names
    firsts = [line.split()[0] for line in lines if line and not line.startswith((" ", "─"))]
    for name in names:
        assert any(name.endswith(first.lstrip("…")) and len(first) > 4 for first in firsts), name


def test_runtime_comparison_cuts_names_from_the_left():
    from lpt_cli.reports.compare import Comparison, Observed, RuntimeView, format_comparison

    name = f"{PREFIX}MatMul_7"
    seen = Observed("u8 (jit_gemm_I8)", True, name, True, "FullyConnected")
    fused = Observed("f32", False, name, False, "FullyConnected")
    view = RuntimeView("CPU", (Comparison(name, "MatMul", "low-precision", seen, seen),
                               Comparison(f"{name}/fq_output_0", "FakeQuantize", "low-precision", fused, fused)),
                       {}, {})
    text = format_comparison(view, 80)
    assert max(map(len, text.splitlines())) <= 80
    rows = [line for line in text.splitlines() if line.startswith("…")]
    assert rows[0].startswith("…") and "MatMul_7 " in rows[0] and "u8 (jit_gemm_I8)" in rows[0]
    assert "fused into …" in rows[1] and rows[1].rstrip().endswith("_7")


def test_transform_names_both_paths_when_the_file_names_are_the_same(tmp_path):
    out = tmp_path / "resnet.xml"
    result = run("transform", MODELS / "resnet.xml", "-o", out)
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stderr.splitlines() if line.strip().startswith("layers:"))
    assert f"in {MODELS / 'resnet.xml'}, " in line and f" in {out};" in line
