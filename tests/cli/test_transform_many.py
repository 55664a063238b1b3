"""`lpt transform A.xml B.xml` / `lpt transform FOLDER -o OUT/` (issue 21): like `report`, several
models or a folder's; -o is then a folder and each output keeps its model's name; all or nothing."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.ir.provenance import transformed_by_lpt
from lpt_cli.ir.reader import read_ir

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("lpt: error: "), result.stderr
    return result.stderr.rstrip("\n")


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    folder = tmp_path / "exports"
    folder.mkdir()
    for name in ("mobilenet", "resnet"):
        for suffix in (".xml", ".bin"):
            shutil.copy(MODELS / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_a_folder_into_an_output_folder(exports: Path, tmp_path: Path) -> None:
    deploy = tmp_path / "deploy" / "int8"
    result = run("transform", exports, "-o", deploy)
    assert result.exit_code == 0, result.output
    assert names(deploy) == ["mobilenet.bin", "mobilenet.xml", "resnet.bin", "resnet.xml"]
    for name in ("mobilenet", "resnet"):
        assert f"{exports / name}.xml -> {deploy / name}.xml (runtime dialect, " in result.stderr
        assert transformed_by_lpt(read_ir(deploy / f"{name}.xml"))  # lpt's output, stamped


def test_several_models_without_o_go_beside_the_cwd_as_for_one(exports: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = run("transform", exports / "resnet.xml", exports / "mobilenet.xml", "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert names(work) == ["mobilenet_lpt.bin", "mobilenet_lpt.xml", "resnet_lpt.bin", "resnet_lpt.xml"]


def test_one_model_into_an_existing_folder_keeps_its_name(exports: Path, tmp_path: Path) -> None:
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    result = run("transform", exports / "resnet.xml", "-o", deploy, "-q")
    assert result.exit_code == 0, result.output
    assert names(deploy) == ["resnet.bin", "resnet.xml"]


def test_a_model_that_fails_takes_the_others_outputs_with_it(exports: Path, tmp_path: Path) -> None:
    """The second model (name order) is lpt's own output: refused after the first was written."""
    done = run("transform", exports / "resnet.xml", "-o", exports / "zz_resnet_lpt.xml", "-q")
    assert done.exit_code == 0, done.output
    before = names(exports)
    out = tmp_path / "out"
    line = one_error_line(run("transform", exports / "mobilenet.xml", exports / "zz_resnet_lpt.xml", "-o", out))
    assert "zz_resnet_lpt.xml" in line and "lpt" in line
    assert not out.exists()  # neither mobilenet's output nor the folder made for it
    assert names(exports) == before


@pytest.mark.parametrize(("args", "said"), [
    (["-o", "{tmp}/one.xml"], "-o {tmp}/one.xml: several models are written into a folder, not one .xml file"),
    (["-o", "{tmp}/afile"], "-o {tmp}/afile: is a file; several models are written into a folder"),
    (["-o", "{tmp}/out", "--trace", "{tmp}/trace"], "--trace takes one model (2 given)"),
    (["-o", "{tmp}/out", "--format", "json"], "--format json takes one model (2 given)"),
])
def test_what_takes_one_model_is_refused_before_the_work(exports: Path, tmp_path: Path, args: list[str],
                                                         said: str) -> None:
    (tmp_path / "afile").write_text("x")
    before = names(tmp_path)
    line = one_error_line(run("transform", exports, *(a.format(tmp=tmp_path) for a in args)))
    assert line == f"lpt: error: {said.format(tmp=tmp_path)}"
    assert names(tmp_path) == before


def test_two_models_of_one_name_are_refused(exports: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for suffix in (".xml", ".bin"):
        shutil.copy(MODELS / f"resnet{suffix}", other / f"resnet{suffix}")
    line = one_error_line(run("transform", exports / "resnet.xml", other / "resnet.xml", "-o", tmp_path / "out"))
    assert line == (f"lpt: error: {exports / 'resnet.xml'} and {other / 'resnet.xml'} would both be written to "
                    f"{tmp_path / 'out' / 'resnet.xml'}")
    assert not (tmp_path / "out").exists()


def test_an_output_folder_that_is_the_models_folder_is_refused(exports: Path) -> None:
    before = {path.name: path.read_bytes() for path in exports.iterdir()}
    line = one_error_line(run("transform", exports, "-o", exports))
    assert "refusing to overwrite the input model" in line
    assert {path.name: path.read_bytes() for path in exports.iterdir()} == before
