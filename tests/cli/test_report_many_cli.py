"""`lpt report A.xml B.xml FOLDER/`: a row per model and a total in every format, --fail-under per model."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def run(*args: object):
    return CliRunner().invoke(main, ["report", *map(str, args)])


def _copy(name: str, folder: Path) -> Path:
    for suffix in (".xml", ".bin"):
        shutil.copy(MODELS / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder / f"{name}.xml"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """detection.xml and resnet_fp32.xml (0% low precision) in a folder, with a stray .bin-less text file."""
    path = tmp_path_factory.mktemp("many")
    _copy("detection", path)
    _copy("resnet_fp32", path)
    (path / "notes.txt").write_text("not a model")
    return path


def single_summary(model: Path) -> dict:
    result = run(model, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["summary"]


def test_json_has_each_models_summary_and_a_mac_weighted_total(folder):
    result = run(MODELS / "mobilenet.xml", folder, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    names = [m["model"] for m in doc["models"]]
    assert names == [str(MODELS / "mobilenet.xml"), str(folder / "detection.xml"), str(folder / "resnet_fp32.xml")]
    for entry in doc["models"]:
        assert entry["summary"] == single_summary(Path(entry["model"])) and entry["passed"] is None
    total, sums = doc["total"], [m["summary"] for m in doc["models"]]
    assert total["models"] == 3 and total["layers"] == sum(s["layers"] for s in sums)
    assert total["weightable_low_precision"] == sum(s["weightable_low_precision"] for s in sums)
    macs, low = sum(s["macs_total"] for s in sums), sum(s["macs_low_precision"] for s in sums)
    assert 0 < total["low_precision_share"] < 100
    assert total["low_precision_share"] == round(100 * low / macs, 2)


def test_csv_and_markdown_have_a_row_per_model_and_a_total(folder):
    result = run(folder, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["model"] for r in rows] == [str(folder / "detection.xml"), str(folder / "resnet_fp32.xml"),
                                          "total (2 models)"]
    assert rows[1]["low_precision_share"] == "0.00"
    assert int(rows[2]["weightable"]) == int(rows[0]["weightable"]) + int(rows[1]["weightable"])
    md = run(folder, "--format", "markdown").stdout.splitlines()
    table = [line for line in md if line.startswith("| ")]
    assert len(table) == 1 + 3 and table[-1].startswith("| **total (2 models)** |")


def test_table_names_every_model(folder):
    result = run(folder)
    assert result.exit_code == 0, result.output
    names = [line.strip("│ ").split()[0] for line in result.stdout.splitlines() if line.startswith("│ ")][:2]
    assert names == ["detection", "resnet_fp32"]  # in the folder of the title, every one an .xml
    assert f"in {folder}/" in result.stdout
    assert "total (2 models)" in result.stdout and "layers" in result.stdout


def test_fail_under_applies_to_each_model(folder):
    result = run(folder, MODELS / "resnet.xml", "--fail-under", "90", "--format", "json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert {m["model"]: m["passed"] for m in doc["models"]} == {
        str(folder / "detection.xml"): True, str(folder / "resnet_fp32.xml"): False, str(MODELS / "resnet.xml"): True}
    assert doc["total"]["below"] == 1
    assert result.stderr.splitlines() == [
        f"lpt: {folder / 'resnet_fp32.xml'}: low-precision share 0.00% is below --fail-under 90%"]
    passing = run(folder / "detection.xml", MODELS / "resnet.xml", "--fail-under", "90")
    assert passing.exit_code == 0 and passing.stderr == ""


def test_a_folder_of_one_model_is_still_a_table_of_models(tmp_path):
    _copy("resnet", tmp_path)
    rows = list(csv.DictReader(io.StringIO(run(tmp_path, "--format", "csv").stdout)))
    assert [r["model"] for r in rows] == [str(tmp_path / "resnet.xml"), "total (1 model)"]


def test_one_model_named_twice_is_the_single_model_report():
    doc = json.loads(run(MODELS / "resnet.xml", MODELS / "resnet.xml", "--format", "json").stdout)
    assert "layers" in doc and "models" not in doc


@pytest.mark.parametrize("option", [("--layer", "conv_2"), ("--shape", "1,3,32,32"), ("--runtime", "CPU")])
def test_single_model_options_are_refused(folder, option):
    result = run(folder, *option)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"lpt: error: {option[0]} takes one model (2 given)\n"


def test_a_folder_without_models(tmp_path):
    (tmp_path / "readme.txt").write_text("nothing here")
    result = run(tmp_path)
    assert result.exit_code == 2 and result.stderr == f"lpt: error: {tmp_path}: no .xml model in this folder\n"


def test_one_bad_model_fails_the_run_without_partial_output(folder, tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<net")
    result = run(folder, broken)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"lpt: error: {broken}") and result.stderr.count("\n") == 1


def test_progress_goes_to_stderr_only_on_a_terminal(folder, monkeypatch):
    quiet = run(folder, "--format", "csv")
    assert quiet.stderr == ""
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the captured stderr as a terminal
    shown = run(folder, "--format", "csv")
    assert shown.exit_code == 0
    assert "lpt report" in shown.stderr and "/2" in shown.stderr and "resnet_fp32.xml" in shown.stderr
    assert shown.stdout == quiet.stdout
