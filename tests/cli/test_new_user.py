"""What a new user trips on (issue #11): every message is one line naming the right file,
checks come before the work, and the report says what happened to each layer."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"


def run(*args: object, **kwargs: object):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def one_error_line(result, exit_code: int = 2) -> str:
    assert result.exit_code == exit_code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lpt: error: ")
    return lines[0]


@pytest.fixture
def resnet(tmp_path: Path) -> Path:
    for suffix in (".xml", ".bin"):
        shutil.copy(MODELS / f"resnet{suffix}", tmp_path / f"resnet{suffix}")
    return tmp_path / "resnet.xml"


# --- paths: one style, the right file -------------------------------------------------------

@pytest.mark.parametrize("command", ["transform", "report", "verify", "benchmark", "diff"])
def test_missing_model_is_one_line_naming_it(tmp_path: Path, command: str) -> None:
    line = one_error_line(run(command, tmp_path / "nope.xml"))
    assert line == f"lpt: error: {tmp_path / 'nope.xml'}: no such file"


def test_folder_as_model(tmp_path: Path) -> None:
    line = one_error_line(run("verify", tmp_path))
    assert line == f"lpt: error: {tmp_path}: is a folder, expected an IR .xml file"


@pytest.mark.parametrize("command", ["transform", "report"])
def test_folder_without_models(tmp_path: Path, command: str) -> None:
    """`lpt transform FOLDER` and `lpt report FOLDER` take every model in it; none is one clear line."""
    line = one_error_line(run(command, tmp_path))
    assert line == f"lpt: error: {tmp_path}: no .xml model in this folder"


def test_onnx_model_says_convert_it_first(tmp_path: Path) -> None:
    onnx = tmp_path / "model.onnx"
    onnx.write_bytes(b"\x08\x07")
    line = one_error_line(run("transform", onnx))
    assert line.startswith(f"lpt: error: {onnx}: an ONNX model;")
    assert "`ovc`" in line and "openvino.convert_model" in line


def test_bin_that_is_a_folder_is_named(tmp_path: Path) -> None:
    shutil.copy(MODELS / "resnet.xml", tmp_path / "y.xml")
    (tmp_path / "y.bin").mkdir()
    line = one_error_line(run("report", tmp_path / "y.xml"))
    assert line == f"lpt: error: {tmp_path / 'y.bin'}: is a folder, expected the weights of y.xml"


def test_unwritable_output_fails_before_the_work(resnet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import lpt_cli.api as api_module

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the model was read before the output path was checked")

    monkeypatch.setattr(api_module, "read_ir", never)
    line = one_error_line(run("transform", resnet, "-o", "/proc/x.xml"))
    assert line.startswith("lpt: error: /proc: cannot write into the output folder")


def test_output_in_a_file_instead_of_a_folder(resnet: Path) -> None:
    line = one_error_line(run("transform", resnet, "-o", resnet.parent / "resnet.bin" / "x.xml"))
    assert "resnet.bin: is a file" in line


def test_output_folder_is_created(resnet: Path) -> None:
    out = resnet.parent / "out" / "deeper" / "x.xml"
    result = run("transform", resnet, "-o", out, "-q")
    assert result.exit_code == 0, result.output
    assert out.is_file() and out.with_suffix(".bin").is_file()


def test_output_that_is_the_input_is_refused_before_the_work(resnet: Path) -> None:
    before = resnet.read_bytes()
    line = one_error_line(run("transform", resnet, "-o", resnet))
    assert "refusing to overwrite the input model" in line
    assert resnet.read_bytes() == before


# --- verify --inputs: only .npz, never pickle ---------------------------------------------

def test_inputs_that_are_not_npz(resnet: Path) -> None:
    typo = resnet.parent / "typo.yaml"
    typo.write_text("input: [1, 2, 3]\n")
    line = one_error_line(run("verify", resnet, "--inputs", typo))
    assert line.startswith(f"lpt: error: {typo}: not an .npz archive")
    assert "pickle" not in line


def test_inputs_with_pickled_objects_are_refused(resnet: Path) -> None:
    npz = resnet.parent / "objects.npz"
    np.savez(npz, input=np.array([{"a": 1}], dtype=object))
    line = one_error_line(run("verify", resnet, "--inputs", npz))
    assert "pickled objects, which lpt never loads" in line and "allow_pickle" not in line


# --- benchmark --fp32: the float model MODEL came from --------------------------------------

def test_fp32_reference_of_another_model_is_refused() -> None:
    other = MODELS / "mobilenet_fp32.xml"
    line = one_error_line(run("benchmark", MODELS / "resnet.xml", "--fp32", other, "--time", "0.1"))
    assert line.startswith(f"lpt: error: {other}: ") and "not the float model resnet.xml was quantized from" in line


def test_fp32_reference_with_other_inputs_is_refused() -> None:
    other = MODELS / "transformer_fp32.xml"
    line = one_error_line(run("benchmark", MODELS / "resnet.xml", "--fp32", other, "--time", "0.1"))
    assert "input 'input'" in line and "rank 3" in line and "rank 4" in line


# --- config: op names are checked like keys ---------------------------------------------------

def test_misspelt_op_in_a_config_is_an_error_with_a_suggestion(resnet: Path) -> None:
    config = resnet.parent / "typo.yaml"
    config.write_text("restrictions:\n  precisions:\n    - {op: Convolutoin, ports: {0: [u8]}}\n")
    line = one_error_line(run("report", resnet, "--config", config))
    assert line == (f"lpt: error: {config}: restrictions.precisions[0].op: unknown operation type "
                    "'Convolutoin'; did you mean 'Convolution'?")


def test_misspelt_key_gets_a_suggestion(resnet: Path) -> None:
    config = resnet.parent / "typo.yaml"
    config.write_text("asymetric_weights: false\n")
    line = one_error_line(run("report", resnet, "--config", config))
    assert line.endswith("asymetric_weights: unknown key; did you mean 'asymmetric_weights'?")


# --- models LPT cannot help with ------------------------------------------------------------

def test_report_of_a_float_model_says_quantize_it_first() -> None:
    result = run("report", MODELS / "resnet_fp32.xml")
    assert result.exit_code == 0, result.output
    assert "no quantization: the model has no FakeQuantize" in result.stdout
    assert "quantize it with NNCF first" in result.stdout


@pytest.mark.parametrize("dialect", ["runtime", "lowp"])
def test_lpt_output_is_recognized_as_already_transformed(resnet: Path, dialect: str) -> None:
    out = resnet.parent / "r.xml"
    assert run("transform", resnet, "-o", out, "--dialect", dialect, "-q").exit_code == 0
    for command in ("report", "transform"):
        line = one_error_line(run(command, out, *(["-o", resnet.parent / "again.xml"] if command == "transform" else [])))
        assert line.startswith(f"lpt: error: {out}: already transformed by LPT: ")
        assert "give the quantized model it was made from" in line
    assert not (resnet.parent / "again.xml").exists()


def test_lpt_stamp_is_rt_info_openvino_reads(resnet: Path) -> None:
    import openvino as ov

    out = resnet.parent / "r.xml"
    assert run("transform", resnet, "-o", out, "-q").exit_code == 0
    assert ov.Core().read_model(out).get_rt_info(["lpt", "dialect"]).astype(str) == "runtime"


# --- report: names, reasons, device -------------------------------------------------------

def test_report_says_renamed_and_folded() -> None:
    doc = json.loads(run("report", MODELS / "resnet.xml", "--config", "default", "--format", "json").stdout)
    rows = {row["name"]: row for row in doc["layers"]}
    renamed = rows["add_14"]  # AddTransformation gave its name to the dequantization below it
    assert renamed["transformed_name"] not in (None, "add_14") and renamed["transformed_name"].startswith("Add")
    folded = rows["add_19"]
    assert folded["status"] == "removed"
    assert folded["reason"]["detail"] == "not in the transformed model: folded into FakeQuantize 'add_19/fq_output_0'"
    table = run("report", MODELS / "resnet.xml", "--config", "default", "--format", "markdown").stdout
    assert f"add_14 (renamed -> {renamed['transformed_name']})" in table


def test_every_float_weightable_layer_has_a_reason() -> None:
    result = run("report", MODELS / "transformer.xml", "--fail-under", "99.9", "--format", "json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    weightable = [r for r in doc["layers"] if r["type"] in ("MatMul", "Convolution", "GroupConvolution")]
    float_ones = [r for r in weightable if r["status"] != "low-precision"]
    assert float_ones and all(r["reason"] is not None for r in float_ones)
    assert {r["reason"]["code"] for r in float_ones} == {"not_quantized"}
    assert all("Softmax" in r["reason"]["detail"] for r in float_ones)  # the attention MatMuls


def test_missing_runtime_device_fails_before_the_report() -> None:
    from lpt_cli.runtime.device import core

    if any(d.startswith("GPU") for d in core().available_devices):
        pytest.skip("this machine has a GPU")
    result = run("report", MODELS / "resnet.xml", "--runtime", "GPU")
    line = one_error_line(result)
    assert "device GPU is not available" in line
    assert result.stdout == ""


# --- help and profiles -----------------------------------------------------------------------

def test_help_lists_full_first_sentences_and_completion() -> None:
    text = " ".join(run("--help", terminal_width=200).stdout.split())
    for sentence in ("Apply OpenVINO's Low Precision Transformations to quantized IR models.",
                     "Run MODEL and its LPT-transformed version on the same inputs and compare the outputs.",
                     "Throughput and latency of MODEL, its LPT-transformed version and an FP32 reference."):
        assert sentence in text
    assert "..." not in text.split("Commands:")[1]
    assert "_LPT_COMPLETE=bash_source lpt" in text


def test_config_list_says_what_each_profile_allows() -> None:
    lines = run("config", "list").stdout.splitlines()
    described = dict(line.split(maxsplit=1) for line in lines)
    assert "u8-only activations on Convolution" in described["cpu-vnni"]
    assert "avx512_core_vnni" in described["cpu-vnni"] and "i8 attention in snippets" in described["cpu-vnni"]
    assert "u8 or i8 activations on Convolution" in described["cpu-amx"]
    assert "here cpu-" in described["cpu"]


def test_cpu_resolution_says_why_without_claiming_vnni() -> None:
    from lpt_cli.isa import resolve_cpu

    found = resolve_cpu("flags\t: fpu avx avx2\n", environ={})
    assert found.profile.name == "cpu-avx2"
    assert found.why == ("oneDNN may use avx2: u8-only activations on Convolution, attention MatMuls as MatMul "
                         "nodes, AVX2 limits on INT8 Deconvolution")
    found = resolve_cpu("flags\t: fpu avx avx2 amx_tile\n", environ={}, tile_permission=lambda: True)
    assert found.profile.name == "cpu-avx2" and "AMX flags without amx_int8, amx_bf16, avx512_fp16" in found.why


# --- transform: what it says about what it wrote ---------------------------------------------

def _layers_in_file(xml: Path) -> int:
    from lxml import etree

    return len(etree.parse(str(xml)).getroot().find("layers"))


def test_transform_summary_counts_the_written_file_and_is_not_wrapped_when_piped(resnet: Path) -> None:
    out = resnet.parent / "r.xml"
    result = run("transform", resnet, "-o", out)
    assert result.exit_code == 0, result.output
    layers_line = next(line for line in result.stderr.splitlines() if "layers:" in line)
    assert f"{_layers_in_file(out)} in r.xml" in layers_line
    lines = result.stderr.splitlines()
    assert all(line.startswith(("  ", str(resnet))) for line in lines)  # no continuation lines
    assert max(map(len, lines)) > 80


def test_transform_json_summary_per_layer(resnet: Path) -> None:
    out = resnet.parent / "r.xml"
    result = run("transform", resnet, "--config", "default", "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    assert doc["layers_written"] == _layers_in_file(out) and doc["output"] == str(out)
    rows = {row["name"]: row for row in doc["layers"]}
    conv = rows["conv_2"]
    assert conv["before"]["input_precisions"] == ["f32", "f32"]
    assert set(conv["after"]["input_precisions"]) <= {"u8", "i8"} and conv["status"] == "low-precision"
    assert conv["transformations"] == ["ConvolutionTransformation"] and not conv["renamed"]
    add = rows["add_14"]
    assert add["renamed"] and add["transformed_name"] != "add_14" and "AddTransformation" in add["transformations"]
    assert sum(doc["applied"].values()) >= sum(len(r["transformations"]) for r in doc["layers"])


def test_config_that_is_a_folder(resnet: Path) -> None:
    line = one_error_line(run("report", resnet, "--config", resnet.parent))
    assert line.startswith(f"lpt: error: {resnet.parent}: is a folder, expected a YAML config file")


def test_output_into_a_closed_pipe_is_not_an_internal_error() -> None:
    """`lpt report ... | head`: the reader went away; exit 141 (as for SIGPIPE), nothing on stderr."""
    import subprocess
    import sys

    model = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "detection.xml"
    child = subprocess.Popen([sys.executable, "-m", "lpt_cli", "report", str(model), "--format", "csv"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # no reader: the first write fails with EPIPE
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141
    assert "internal error" not in stderr and "Traceback" not in stderr


def test_an_integer_fakequantize_output_is_not_taken_for_lpt_output(tmp_path: Path) -> None:
    """Only lpt's stamp marks its output: a FakeQuantize declared u8 (as OpenVINO's own LPT test
    models declare quantized weights and activations) is a valid input."""
    import shutil

    source = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "resnet.xml"
    lines = source.read_text().splitlines(keepends=True)
    fq = next(i for i, line in enumerate(lines) if 'type="FakeQuantize"' in line)
    out = next(i for i in range(fq, len(lines)) if "<output>" in lines[i])
    lines[out + 1] = lines[out + 1].replace('precision="FP32"', 'precision="U8"')
    model = tmp_path / "u8_fq.xml"
    model.write_text("".join(lines))
    shutil.copy(source.with_suffix(".bin"), model.with_suffix(".bin"))
    result = CliRunner().invoke(main, ["transform", str(model), "-o", str(tmp_path / "out.xml"), "-q"])
    assert result.exit_code == 0, result.stderr
    again = CliRunner().invoke(main, ["transform", str(tmp_path / "out.xml"), "-o", str(tmp_path / "again.xml")])
    assert again.exit_code == 2 and "already transformed" in again.stderr
