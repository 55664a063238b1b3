"""`lpt transform` on bad input: one clear line on stderr, exit 2, no output, input untouched."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main

# Parameter -> Add(Const) -> Result, 24 bytes of f32 weights.
GOOD_XML = """<?xml version="1.0"?>
<net name="tiny" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2,3" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="bias" type="Const" version="opset1">
      <data element_type="f32" shape="2, 3" offset="0" size="24"/>
      <output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="2" name="add" type="Add" version="opset1">
      <data auto_broadcast="numpy"/>
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port>
             <port id="1" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
      <output><port id="2" precision="FP32" names="y"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="3" name="y/result" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""
GOOD_BIN = np.arange(6, dtype=np.float32).tobytes()
XXE = '<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'

# name -> (xml edit, bin edit, words the message must contain)
BAD_INPUTS = {
    "malformed_xml": (lambda x: x.replace("</edges>", "</edgs>"), None, ["malformed XML"]),
    "xxe_entity": (lambda x: x.replace('<?xml version="1.0"?>\n', XXE).replace('name="x"', 'name="&xxe;"', 1),
                   None, ["entity"]),
    "xxe_in_text": (lambda x: x.replace('<?xml version="1.0"?>\n', XXE).replace("<dim>2</dim>", "<dim>&xxe;</dim>", 1),
                    None, ["entity"]),
    "billion_laughs": (lambda x: x.replace('<?xml version="1.0"?>\n', '<?xml version="1.0"?>\n<!DOCTYPE net ['
                                           '<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n'),
                       None, ["entity"]),
    "not_an_ir": (lambda x: x.replace("<net ", "<network ").replace("</net>", "</network>"), None, ["<net>"]),
    "missing_bin": (None, lambda b: None, ["bias", "tiny.bin", "does not exist"]),
    "truncated_bin": (None, lambda b: b[:20], ["bias", "outside", "20 bytes"]),
    "offset_out_of_range": (lambda x: x.replace('offset="0"', 'offset="400"'), None, ["400+24", "outside"]),
    "size_mismatch": (lambda x: x.replace('size="24"', 'size="20"'), lambda b: b[:20], ["size 20", "24 bytes"]),
    "dangling_edge": (lambda x: x.replace('from-layer="1" from-port="0"', 'from-layer="7" from-port="0"'),
                      None, ["no layer with id 7"]),
    "missing_port": (lambda x: x.replace('to-layer="2" to-port="1"', 'to-layer="2" to-port="5"'),
                     None, ["no input port 5"]),
    "unfed_input": (lambda x: x.replace('<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>', ""),
                    None, ["'add'", "not connected"]),
    "fed_twice": (lambda x: x.replace('<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>',
                                      '<edge from-layer="1" from-port="0" to-layer="2" to-port="0"/>'),
                  None, ["fed twice"]),
    "duplicate_ids": (lambda x: x.replace('<layer id="1"', '<layer id="0"'), None, ["duplicate layer id 0"]),
    "cycle": (lambda x: x.replace('<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>',
                                  '<edge from-layer="2" from-port="2" to-layer="2" to-port="0"/>'),
              None, ["cycle"]),
    "unknown_element_type": (lambda x: x.replace('element_type="f32" shape="2, 3"', 'element_type="q7" shape="2, 3"'),
                             None, ["unknown element type 'q7'"]),
    "unsupported_version": (lambda x: x.replace('version="11"', 'version="7"', 1), None, ["unsupported IR version"]),
}


def make_model(folder: Path, case: str | None = None) -> Path:
    xml, blob = GOOD_XML, GOOD_BIN
    if case is not None:
        edit_xml, edit_bin, _ = BAD_INPUTS[case]
        xml = edit_xml(xml) if edit_xml else xml
        blob = edit_bin(blob) if edit_bin else blob
    path = folder / "tiny.xml"
    path.write_text(xml)
    if blob is not None:
        path.with_suffix(".bin").write_bytes(blob)
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_fails_with_one_line(tmp_path: Path, case: str) -> None:
    model = make_model(tmp_path, case)
    before = snapshot(tmp_path)
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(main, ["transform", str(model), "-o", str(out), "--dialect", "lowp"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpt: error: ")
    assert "tiny.xml" in lines[0]
    for word in BAD_INPUTS[case][2]:
        assert word in lines[0]
    assert result.stdout == ""
    assert snapshot(tmp_path) == before  # no output, no temp files, input untouched


def _run_lpt(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lpt_cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_console_entry_reports_bad_input_in_a_subprocess(tmp_path: Path) -> None:
    model = make_model(tmp_path, "truncated_bin")
    done = _run_lpt(["transform", str(model)], tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("lpt: error: ")
    assert not (tmp_path / "tiny_lpt.xml").exists()


def _imported(stderr: str) -> set[str]:
    """The modules a `python -X importtime` process imported, from the table on its stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("args", [["--help"], ["transform", "--help"]])
def test_help_loads_no_command_stack(tmp_path: Path, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "lpt_cli", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Usage: " in done.stdout
    assert _imported(done.stderr) & {"numpy", "lxml", "yaml", "rich", "openvino"} == set()


@pytest.mark.parametrize("config", ["cpu", "gpu", "gpu-xmx", "default"])
def test_quiet_transform_process_loads_no_yaml_rich_or_openvino(tmp_path: Path, config: str) -> None:
    """A built-in profile is read without PyYAML and -q prints nothing (no rich); the process ends
    without interpreter teardown, so its exit code and output must still be complete."""
    model = make_model(tmp_path)
    out = tmp_path / "out" / "tiny_int8.xml"
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "lpt_cli", "transform", str(model),
                           "--config", config, "-o", str(out), "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    imported = _imported(done.stderr)
    assert "lpt_cli.api" in imported
    assert imported & {"yaml", "rich", "openvino"} == set()
    # the GPU profiles convert the model to f16 before LPT, as the GPU plugin does: half the weight bytes
    weight_bytes = 12 if config.startswith("gpu") else 24
    assert out.read_text().rstrip().endswith("</net>") and out.with_suffix(".bin").stat().st_size == weight_bytes


def test_json_summary_is_complete_on_a_buffered_pipe(tmp_path: Path) -> None:
    """stdout to a pipe is block-buffered: what the process prints is flushed before it exits."""
    model = make_model(tmp_path)
    done = _run_lpt(["transform", str(model), "--format", "json", "-o", str(tmp_path / "o.xml")], tmp_path,
                    PYTHONUNBUFFERED="")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == str(tmp_path / "o.xml")


def test_summary_says_the_same_with_and_without_rich(tmp_path: Path) -> None:
    """Off a terminal the summary is printed without rich; FORCE_COLOR sends it through rich
    (bold paths): the same lines either way."""
    model, out = make_model(tmp_path), tmp_path / "out.xml"
    plain = CliRunner().invoke(main, ["transform", str(model), "-o", str(out)])
    styled = CliRunner().invoke(main, ["transform", str(model), "-o", str(out)], env={"FORCE_COLOR": "1", "COLUMNS": "500"})
    assert plain.exit_code == styled.exit_code == 0, plain.output + styled.output
    assert "\x1b" not in plain.stderr and f"\x1b[1m{out}\x1b[0m" in styled.stderr

    def summary(stderr: str) -> list[str]:
        text = re.sub(r"\d+\.\d+ s\)", "N s)", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stderr))
        return text.splitlines()[-4:]

    assert summary(plain.stderr)[0] == f"{model} -> {out} (runtime dialect, N s)"
    assert summary(styled.stderr) == summary(plain.stderr)


def test_refuses_to_overwrite_the_input(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    before = snapshot(tmp_path)
    result = CliRunner().invoke(main, ["transform", str(model), "-o", str(model)])
    assert result.exit_code == 2
    assert "refusing to overwrite the input model" in result.stderr
    assert snapshot(tmp_path) == before


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    result = CliRunner().invoke(main, ["transform", str(model), "--dialect", "fp8"])
    assert result.exit_code == 2
    assert result.stderr == ("lpt: error: invalid value for '--dialect': 'fp8' is not one of 'runtime', 'lowp'; "
                             "see 'lpt transform --help'\n")


def test_internal_error_is_one_line_unless_debug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import lpt_cli.api as api_module

    def explode(path: Path) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(api_module, "read_ir", explode)
    model = make_model(tmp_path)
    quiet = CliRunner().invoke(main, ["transform", str(model)])
    assert quiet.exit_code == 1
    assert quiet.stderr.strip() == "lpt: internal error: ZeroDivisionError: boom (run with --debug for the traceback)"
    loud = CliRunner().invoke(main, ["--debug", "transform", str(model)])
    assert loud.exit_code == 1 and "Traceback" in loud.stderr
    monkeypatch.setenv("LPT_DEBUG", "1")
    assert "Traceback" in CliRunner().invoke(main, ["transform", str(model)]).stderr


def test_transform_writes_default_output_in_cwd(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    done = _run_lpt(["transform", str(model), "--config", "default"], work)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert (work / "tiny_lpt.xml").is_file() and (work / "tiny_lpt.bin").is_file()
    import openvino as ov

    compiled = ov.Core().compile_model(str(work / "tiny_lpt.xml"), "CPU")
    x = np.ones((2, 3), np.float32)
    assert np.array_equal(compiled(x)[0], x + np.arange(6, dtype=np.float32).reshape(2, 3))


def test_help_teaches_with_examples() -> None:
    result = CliRunner().invoke(main, ["transform", "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output and "--dialect" in result.output
    assert CliRunner().invoke(main, ["--version"]).output.startswith("lpt ")


@pytest.mark.parametrize("method", ["applies_to", "transform"])  # the pass's matcher and its rewrite
def test_internal_error_in_a_pass_names_the_pass_and_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          method: str) -> None:
    from lpt_cli.lpt.transformations.eltwise.add import AddTransformation

    def explode(self: object, node: object) -> bool:
        raise KeyError("scale")

    monkeypatch.setattr(AddTransformation, method, explode)
    model = make_model(tmp_path)
    result = CliRunner().invoke(main, ["transform", str(model), "--config", "default", "-o", str(tmp_path / "o.xml")])
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert line == ("lpt: internal error in AddTransformation at layer 'add' (id 2): KeyError: 'scale' "
                    "(run with --debug for the traceback)")
    assert not (tmp_path / "o.xml").exists()


def test_model_without_fake_quantize_is_left_as_the_plugin_leaves_it(tmp_path: Path) -> None:
    import numpy as np

    from lpt_cli.ir.reader import read_ir

    model = make_model(tmp_path)
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(main, ["transform", str(model), "--config", "cpu", "-o", str(out)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert "no quantization: the model has no FakeQuantize and no compressed weights" in said
    assert "quantize it with NNCF first" in said
    before, after = read_ir(model), read_ir(out)
    assert sorted(n.type for n in before) == sorted(n.type for n in after)
    bias = next(n for n in after if n.type == "Constant")
    assert np.array_equal(bias.value, next(n for n in before if n.type == "Constant").value)
