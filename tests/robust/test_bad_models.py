"""Broken IRs found by the fuzzer (benchmarks/fuzz.py): each is one line on stderr, exit 2,
naming the file and the layer; no output, the input untouched, no numpy warnings."""
from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.ir.graph import AttributeValueError, Graph


def build_model(folder: Path) -> Path:
    """Parameter -> FakeQuantize -> Convolution (FakeQuantized weights) -> Clamp -> Result, saved by
    OpenVINO itself: every LPT step that reads an attribute here runs."""
    x = ops.parameter([1, 3, 4, 4], np.float32, name="x")
    fq = ops.fake_quantize(x, np.float32(0), np.float32(2.55), np.float32(0), np.float32(2.55), 256, name="fq")
    weights = ops.constant(np.linspace(-1, 1, 2 * 3 * 3 * 3, dtype=np.float32).reshape(2, 3, 3, 3), name="w")
    wq = ops.fake_quantize(weights, np.float32(-1), np.float32(1), np.float32(-1), np.float32(1), 255, name="wq")
    conv = ops.convolution(fq, wq, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    clamp = ops.clamp(conv, -1.0, 6.0, name="clamp")
    path = folder / "m.xml"
    ov.save_model(ov.Model([clamp.output(0)], [x], "m"), str(path), compress_to_fp16=False)
    return path


def transform(model: Path, *extra: str) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(main, ["transform", str(model), "-o", str(model.parent / "out" / "o.xml"),
                                       "-q", *extra])
    return result.exit_code, result.stderr.strip().splitlines(), result.stderr


def assert_clean_error(model: Path, *words: str, extra: tuple[str, ...] = ()) -> str:
    (model.parent / "out").mkdir(exist_ok=True)
    before = {p.name: p.read_bytes() for p in model.parent.iterdir() if p.is_file()}
    code, lines, stderr = transform(model, *extra)
    assert code == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("lpt: error: "), stderr
    assert model.name in lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert list((model.parent / "out").iterdir()) == []
    assert {p.name: p.read_bytes() for p in model.parent.iterdir() if p.is_file()} == before
    return lines[0]


def edit_data(xml: Path, layer: str, key: str, value: str) -> None:
    text = xml.read_text()
    match = re.search(rf'(<layer [^>]*name="{re.escape(layer)}"[^>]*>\s*<data [^>]*?{key}=")([^"]*)(")', text)
    assert match is not None, (layer, key)
    xml.write_text(text[:match.start(2)] + value + text[match.end(2):])


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    return build_model(tmp_path)


def test_the_fixture_model_transforms(model: Path) -> None:
    (model.parent / "out").mkdir()
    code, lines, stderr = transform(model)
    assert code == 0 and lines == [], stderr


@pytest.mark.parametrize("value", ["many", "1.5", "abc", "", "²", "١", "1_0", "99999999999999999999999"])
def test_bad_levels(model: Path, value: str) -> None:
    edit_data(model, "fq", "levels", value)
    line = assert_clean_error(model, "'fq'", "levels=")
    if value:
        assert "integer" in line


def test_clamp_bound_that_is_not_a_number(model: Path) -> None:
    edit_data(model, "clamp", "min", "low")
    assert_clean_error(model, "'clamp'", "min=", "number")


def test_attribute_accessors_validate() -> None:
    graph = Graph("g")
    graph.source = "g.xml"
    node = graph.add_node("X", attrs={"a": "1, 2", "b": "1,,2", "c": "maybe", "d": "nan", "e": "x" * 500,
                                      "f": "True", "g": "-3"})
    assert node.attr_ints("a") == [1, 2] and node.attr_bool("f") is True and node.attr_int("g") == -3
    for call in (lambda: node.attr_ints("b"), lambda: node.attr_bool("c"), lambda: node.attr_float("d"),
                 lambda: node.attr_int("e")):
        with pytest.raises(AttributeValueError) as err:
            call()
        assert str(err.value).startswith("g.xml: layer 0 ") and len(str(err.value)) < 200


@pytest.mark.parametrize("value, word", [(float("nan"), "NaN"), (float("inf"), "infinity"), (1e30, "2^64")])
def test_fake_quantize_interval_out_of_range(model: Path, value: float, word: str) -> None:
    text = model.read_text()
    # every FakeQuantize interval constant of the model is a 4-byte scalar; overwrite the first
    offset = int(re.search(r'<layer [^>]*type="Const"[^>]*>\s*<data [^>]*offset="(\d+)" size="4"', text).group(1))
    blob = bytearray(model.with_suffix(".bin").read_bytes())
    blob[offset:offset + 4] = struct.pack("<f", value)
    model.with_suffix(".bin").write_bytes(bytes(blob))
    assert_clean_error(model, "FakeQuantize 'fq'", word)


def test_shapes_that_disagree_along_an_edge(model: Path) -> None:
    text = model.read_text()
    conv = text.index('name="conv"')
    dim = text.index("<dim>4</dim>", conv)  # first spatial dim of the Convolution's input port
    model.write_text(text[:dim] + "<dim>5</dim>" + text[dim + len("<dim>4</dim>"):])
    assert_clean_error(model, "produces shape", "input port says")


def test_shapes_the_op_cannot_produce(model: Path) -> None:
    """Consistent on both ends of the edge, but not what a Convolution with 2 filters makes."""
    text = model.read_text()
    start = text.index('name="conv"')
    output = text.index("<output>", start)
    first = text.index("<dim>2</dim>", output)
    text = text[:first] + "<dim>7</dim>" + text[first + len("<dim>2</dim>"):]
    clamp_in = text.index("<dim>2</dim>", text.index('name="clamp"'))
    model.write_text(text[:clamp_in] + "<dim>7</dim>" + text[clamp_in + len("<dim>2</dim>"):])
    assert_clean_error(model, "'conv'", "does not fit")


def test_missing_and_extra_inputs_of_known_ops(model: Path) -> None:
    text = model.read_text()
    edge = re.search(r'<edge from-layer="\d+" from-port="\d+" to-layer="(\d+)" to-port="4" />', text)
    port = re.search(r'(<port id="4" precision="FP32" />)', text[text.index('name="fq"'):])
    assert edge is not None and port is not None
    model.write_text(text.replace(edge.group(0), "").replace(port.group(1), "", 1))
    assert_clean_error(model, "FakeQuantize-1 takes 5 inputs, the layer has 4")


@pytest.mark.parametrize("layer_id", ["²", "١", "1_0", "-1"])
def test_layer_ids_are_ascii_integers(model: Path, layer_id: str) -> None:
    model.write_text(model.read_text().replace('<layer id="0"', f'<layer id="{layer_id}"', 1))
    assert_clean_error(model, "layer id must be a non-negative integer")


def test_huge_dimension(model: Path) -> None:
    model.write_text(model.read_text().replace("<dim>4</dim>", f"<dim>{2**64}</dim>", 1))
    assert_clean_error(model, "bad dimension")


def test_nul_byte_is_one_line(model: Path) -> None:
    raw = model.read_bytes()
    at = raw.index(b"<layers>")
    model.write_bytes(raw[:at] + b"\x00" + raw[at:])
    assert_clean_error(model, "malformed XML")


def test_truncated_bin(model: Path) -> None:
    blob = model.with_suffix(".bin")
    blob.write_bytes(blob.read_bytes()[:10])
    assert_clean_error(model, "outside m.bin")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("kind, words", [("fifo", "m.bin, which is a FIFO"),
                                         ("dir", "m.bin: is a folder, expected the weights of m.xml"),
                                         ("device", "m.bin, which is a character device")])
def test_bin_that_is_not_a_file(model: Path, kind: str, words: str) -> None:
    blob = model.with_suffix(".bin")
    blob.unlink()
    if kind == "fifo":
        os.mkfifo(blob)
    elif kind == "dir":
        blob.mkdir()
    else:
        blob.symlink_to("/dev/zero")
    (model.parent / "out").mkdir()
    code, lines, stderr = transform(model)
    assert code == 2 and len(lines) == 1 and words in lines[0], stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_as_model_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "model.xml"
    os.mkfifo(fifo)  # opening it for reading would block forever: it must not be opened
    (tmp_path / "out").mkdir()
    code, lines, stderr = transform(fifo)
    assert code == 2 and len(lines) == 1 and "is a FIFO, not a regular file" in lines[0], stderr


def test_markup_in_paths_is_printed_verbatim(tmp_path: Path) -> None:
    folder = tmp_path / "[" / "bold][red]x"  # the path reads .../[/bold][red]x/m.xml
    folder.mkdir(parents=True)
    model = build_model(folder)
    out = folder / "[red]o.xml"
    result = CliRunner().invoke(main, ["transform", str(model), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"{model} -> {out}" in result.stderr.replace("\n", "")  # rich wraps long lines
    assert out.is_file()


def test_untouched_clean_run_prints_no_warnings(model: Path, recwarn: pytest.WarningsRecorder) -> None:
    """A FakeQuantize interval near float32's limits gives no RuntimeWarning (OpenVINO's math overflows
    silently too); only values beyond 2^64 are refused."""
    text = model.read_text()
    offset = int(re.search(r'<layer [^>]*type="Const"[^>]*>\s*<data [^>]*offset="(\d+)" size="4"', text).group(1))
    blob = bytearray(model.with_suffix(".bin").read_bytes())
    blob[offset:offset + 4] = struct.pack("<f", -1e19)
    model.with_suffix(".bin").write_bytes(bytes(blob))
    (model.parent / "out").mkdir()
    code, lines, stderr = transform(model)
    assert code == 0 and lines == [], stderr
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_interval_shapes_that_only_broadcast(tmp_path: Path) -> None:
    """Valid for OpenVINO: a scalar output_low with a [1] output_high (found by the fuzzer: a numpy
    broadcast error in the decomposition)."""
    x = ops.parameter([1, 3, 4, 4], np.float32, name="x")
    fq = ops.fake_quantize(x, np.float32(0), np.float32(2.55), np.float32(0), np.float32([2.55]), 256, name="fq")
    path = tmp_path / "b.xml"
    ov.save_model(ov.Model([ops.relu(fq).output(0)], [x], "b"), str(path), compress_to_fp16=False)
    (tmp_path / "out").mkdir()
    code, lines, stderr = transform(path)
    assert code == 0 and lines == [], stderr
    ov.Core().compile_model(str(tmp_path / "out" / "o.xml"), "CPU")


def test_reduction_axis_outside_the_rank(tmp_path: Path) -> None:
    """OpenVINO validates axes on read; lpt read them from the .bin into an IndexError."""
    x = ops.parameter([1, 3, 4, 4], np.float32, name="x")
    fq = ops.fake_quantize(x, np.float32(0), np.float32(2.55), np.float32(0), np.float32(2.55), 256, name="fq")
    mean = ops.reduce_mean(fq, ops.constant(np.int64([3]), name="axes"), keep_dims=True, name="mean")
    path = tmp_path / "r.xml"
    ov.save_model(ov.Model([mean.output(0)], [x], "r"), str(path), compress_to_fp16=False)
    offset = int(re.search(r'name="axes" type="Const"[^>]*>\s*<data [^>]*offset="(\d+)"', path.read_text()).group(1))
    blob = bytearray(path.with_suffix(".bin").read_bytes())
    blob[offset:offset + 8] = struct.pack("<q", 7)
    path.with_suffix(".bin").write_bytes(bytes(blob))
    assert_clean_error(path, "'mean' (ReduceMean)", "reduction axis 7 is outside the rank 4", extra=("--config", "default"))



def test_fake_quantize_input_interval_too_narrow(model: Path) -> None:
    """A 1e-45 wide input interval made the levels computation take int(NaN) (fuzzer finding)."""
    text = model.read_text()
    fq_id = re.search(r'<layer id="(\d+)" name="fq" ', text).group(1)
    const_id = re.search(rf'<edge from-layer="(\d+)" from-port="\d+" to-layer="{fq_id}" to-port="2"', text).group(1)
    offset = int(re.search(rf'<layer id="{const_id}" [^>]*>\s*<data [^>]*offset="(\d+)"', text).group(1))
    blob = bytearray(model.with_suffix(".bin").read_bytes())
    blob[offset:offset + 4] = struct.pack("<f", 1e-45)
    model.with_suffix(".bin").write_bytes(bytes(blob))
    assert_clean_error(model, "'fq' (FakeQuantize)", "input interval narrower")


def test_per_channel_intervals_with_an_empty_channel(tmp_path: Path) -> None:
    """A per-channel FakeQuantize with one empty channel (output_high 0 = output_low): lpt compared
    a per-tensor low with the per-channel high and hit a numpy broadcast error (fuzzer finding)."""
    x = ops.parameter([1, 3, 4, 4], np.float32, name="x")
    high = np.float32([1, 2, 3]).reshape(1, 3, 1, 1)
    zeros = np.zeros((1, 3, 1, 1), np.float32)
    fq = ops.fake_quantize(x, zeros, high, zeros, high * np.float32([1, 0, 1]).reshape(1, 3, 1, 1), 256, name="fq")
    weights = ops.constant(np.ones((3, 1, 1, 3, 3), np.float32), name="w")
    conv = ops.group_convolution(fq, weights, [1, 1], [1, 1], [1, 1], [1, 1], name="dw")
    path = tmp_path / "z.xml"
    ov.save_model(ov.Model([conv.output(0)], [x], "z"), str(path), compress_to_fp16=False)
    (tmp_path / "out").mkdir()
    code, lines, stderr = transform(path, "--config", "default")
    assert code == 0 and lines == [], stderr
    ov.Core().compile_model(str(tmp_path / "out" / "o.xml"), "CPU")
