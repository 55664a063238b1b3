"""`lpt transform --trace DIR`: one readable IR per pipeline step, markup as rt_info."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from lpt_cli.cli.main import main
from lpt_cli.ir.reader import read_ir

MODEL = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "resnet.xml"
STEPS = ["01_common_optimizations", "02_pre_lpt", "03_prerequisites", "04_markup", "05_main", "06_cleanup",
         "07_fold_fake_quantize", "08_constant_folding"]


def transform(tmp_path: Path, trace: Path, *extra: str):
    args = ["transform", str(MODEL), "-o", str(tmp_path / "out.xml"), "--trace", str(trace), *extra]
    return CliRunner().invoke(main, args)


def attribute_names(xml: Path) -> set[str]:
    """Names of every rt_info attribute on layers and ports (the reader keeps no input-port rt_info)."""
    return {a.get("name") for a in etree.parse(str(xml)).iter("attribute")}


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("trace")
    result = transform(folder, folder / "trace", "-q")
    assert result.exit_code == 0, result.output
    return folder / "trace"


def test_one_readable_ir_per_step(traced: Path) -> None:
    assert sorted(p.stem for p in traced.glob("*.xml")) == STEPS
    assert sorted(p.stem for p in traced.glob("*.bin")) == STEPS
    for step in STEPS:
        graph = read_ir(traced / f"{step}.xml")
        assert any(n.type == "Convolution" for n in graph)


def test_markup_attributes_appear_from_the_markup_step_on(traced: Path) -> None:
    assert not any(name.startswith("LowPrecision::") for name in attribute_names(traced / "03_prerequisites.xml"))
    names = attribute_names(traced / "04_markup.xml")
    assert {"LowPrecision::Precisions", "LowPrecision::QuantizationGranularity"} <= names


def test_fake_quantize_output_carries_its_precisions(traced: Path) -> None:
    graph = read_ir(traced / "04_markup.xml")
    fq = next(n for n in graph if n.type == "FakeQuantize" and n.outputs[0].xml_rt_info is not None)
    values = {a.get("name"): a.get("value") for a in fq.outputs[0].xml_rt_info.iter("attribute")}
    assert values["LowPrecision::Precisions"] in ("u8", "i8", "u8,i8", "i8,u8")


def test_lowp_ports_in_the_main_step(traced: Path) -> None:
    graph = read_ir(traced / "05_main.xml")
    assert any(n.type == "Convolution" and n.inputs[1].source.element_type.name == "i8" for n in graph)


def test_existing_folder_is_reused_and_files_overwritten(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    trace.mkdir()
    (trace / "04_markup.xml").write_text("stale")
    (trace / "notes.txt").write_text("kept")
    result = transform(tmp_path, trace, "-q")
    assert result.exit_code == 0, result.output
    assert read_ir(trace / "04_markup.xml") is not None
    assert (trace / "notes.txt").read_text() == "kept"


def test_trace_path_that_is_a_file_is_one_line_exit_2(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    trace.write_text("a file")
    result = transform(tmp_path, trace)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpt: error: --trace ") and "not a folder" in lines[0]
    assert not (tmp_path / "out.xml").exists()


def test_summary_names_the_trace(tmp_path: Path) -> None:
    result = transform(tmp_path, tmp_path / "t")
    assert result.exit_code == 0, result.output
    assert "trace:" in result.stderr and "08_constant_folding" in result.stderr


def test_help_documents_trace() -> None:
    text = CliRunner().invoke(main, ["transform", "--help"]).stdout
    assert "--trace DIR" in text and "NN_<step>.xml" in text
