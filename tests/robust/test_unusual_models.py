"""Valid but unusual models keep working: `lpt transform --config cpu` exits 0, the output
compiles on the CPU plugin (child process) and gives the original's outputs on full-size random
inputs (a concrete shape for dynamic dimensions)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.ir.reader import read_ir
from lpt_cli.runtime.oracle import plugin_run

pytestmark = pytest.mark.slow  # every test compiles in child processes
RNG = np.random.default_rng(7)
WEIRD = 'a<b>&"c\'😀 𝔘 名'  # XML specials, non-BMP characters, CJK


def _fq(x: ov.Output | ov.Node, low: float = -1.0, high: float = 1.5) -> ov.Node:
    return ops.fake_quantize(x, np.float32(low), np.float32(high), np.float32(low), np.float32(high), 256)


def _conv(x: ov.Node, c_in: int = 3, c_out: int = 4, etype: type = np.float32) -> ov.Node:
    weights = ops.constant(RNG.uniform(-1, 1, (c_out, c_in, 3, 3)).astype(etype))
    wq = ops.fake_quantize(weights, etype(-1), etype(1), etype(-1), etype(1), 255)
    return ops.convolution(x, wq, [1, 1], [1, 1], [1, 1], [1, 1])


def check(model: ov.Model, folder: Path, feed: dict[str, np.ndarray], *, compress: bool = False,
          tolerance: float = 1e-4, static: bool = False) -> Path:
    """Transforms `model` with the CLI and compares the plugin's outputs; returns the output IR.
    `static`: both models are given the feed's shapes first (the plugin compiles no dynamic rank)."""
    source, out = folder / "model.xml", folder / "out.xml"
    ov.save_model(model, str(source), compress_to_fp16=compress)
    result = CliRunner().invoke(main, ["transform", str(source), "-o", str(out), "--config", "cpu", "-q"])
    assert result.exit_code == 0, result.output
    if static:
        source, out = (_reshaped(path, feed) for path in (source, out))
    original, transformed = plugin_run(source, feed), plugin_run(out, feed)
    assert original.ok, original.error
    assert transformed.ok, transformed.error
    assert len(transformed.outputs) == len(original.outputs) > 0
    for got, want in zip(transformed.outputs, original.outputs, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tolerance, atol=tolerance)
    return out


def _reshaped(path: Path, feed: dict[str, np.ndarray]) -> Path:
    model = ov.Core().read_model(path)
    model.reshape({name: list(value.shape) for name, value in feed.items()})
    static = path.with_name(f"{path.stem}_static.xml")
    ov.save_model(model, str(static), compress_to_fp16=False)
    return static


def _feed(name: str, shape: tuple[int, ...], dtype: type = np.float32) -> dict[str, np.ndarray]:
    return {name: RNG.uniform(-2, 2, shape).astype(dtype)}


@pytest.mark.parametrize("shape", [[-1, 3, -1, -1], [-1, -1, -1, -1]], ids=["dynamic", "fully_dynamic"])
def test_dynamic_dimensions(tmp_path: Path, shape: list[int]) -> None:
    x = ops.parameter(ov.PartialShape(shape), np.float32, name="x")
    y = ops.relu(_conv(_fq(x)))
    check(ov.Model([y], [x], "dyn"), tmp_path, _feed("x", (2, 3, 12, 10)))


def test_dynamic_rank(tmp_path: Path) -> None:
    x = ops.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    y = ops.multiply(ops.relu(_fq(x)), ops.constant(np.float32(0.5)))
    check(ov.Model([y], [x], "dynrank"), tmp_path, _feed("x", (2, 5, 3)), static=True)


def test_fp16_model(tmp_path: Path) -> None:
    x = ops.parameter([1, 3, 12, 12], np.float16, name="x")
    fq = ops.fake_quantize(x, np.float16(-1), np.float16(1.5), np.float16(-1), np.float16(1.5), 256)
    y = ops.relu(_conv(fq, etype=np.float16))
    check(ov.Model([y], [x], "fp16"), tmp_path, _feed("x", (1, 3, 12, 12), np.float16), tolerance=2e-2)


def test_f16_constants(tmp_path: Path) -> None:
    """Weights and an interval stored as `Const f16 -> Convert f32`, as compressed IRs hold them."""
    x = ops.parameter([1, 3, 12, 12], np.float32, name="x")
    high = ops.convert(ops.constant(np.float16(1.5)), np.float32)
    fq = ops.fake_quantize(x, np.float32(-1), high, np.float32(-1), high, 256)
    weights = ops.convert(ops.constant(RNG.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float16)), np.float32)
    wq = ops.fake_quantize(weights, np.float32(-1), np.float32(1), np.float32(-1), np.float32(1), 255)
    y = ops.relu(ops.convolution(fq, wq, [1, 1], [1, 1], [1, 1], [1, 1]))
    check(ov.Model([y], [x], "f16c"), tmp_path, _feed("x", (1, 3, 12, 12)))
    assert sum(n.type == "Constant" and n.outputs[0].element_type.name == "f16"
               for n in read_ir(tmp_path / "model.xml")) == 2


def test_multiple_inputs_and_outputs(tmp_path: Path) -> None:
    a = ops.parameter([1, 3, 8, 8], np.float32, name="a")
    b = ops.parameter([1, 4, 8, 8], np.float32, name="b")
    conv = _conv(_fq(a))
    total = ops.add(conv, ops.relu(_fq(b, 0.0, 2.0)))
    pool = ops.max_pool(conv, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2])
    model = ov.Model([total.output(0), pool.output(0), ops.relu(b).output(0)], [a, b], "multi")
    check(model, tmp_path, {**_feed("a", (1, 3, 8, 8)), **_feed("b", (1, 4, 8, 8))})


def test_rank_zero_tensors(tmp_path: Path) -> None:
    x = ops.parameter([], np.float32, name="x")
    y = ops.add(ops.multiply(_fq(x), ops.constant(np.float32(3.0))), ops.constant(np.float32(1.0)))
    check(ov.Model([y], [x], "scalar"), tmp_path, _feed("x", ()))


def test_no_fake_quantize(tmp_path: Path) -> None:
    x = ops.parameter([1, 3, 12, 12], np.float32, name="x")
    weights = ops.constant(RNG.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32))
    y = ops.relu(ops.convolution(x, weights, [1, 1], [0, 0], [0, 0], [1, 1]))
    check(ov.Model([y], [x], "float"), tmp_path, _feed("x", (1, 3, 12, 12)), tolerance=1e-6)


def test_unicode_and_xml_special_names(tmp_path: Path) -> None:
    x = ops.parameter([1, 3, 8, 8], np.float32, name=f"in {WEIRD}")
    x.output(0).set_names({f"in {WEIRD}"})
    fq = _fq(x)
    fq.set_friendly_name(f"fq {WEIRD}")
    conv = _conv(fq)
    conv.set_friendly_name(f"conv {WEIRD}")
    y = ops.relu(conv, name=f"relu {WEIRD}")
    y.output(0).set_names({f"out {WEIRD}", f"other {WEIRD}"})
    out = check(ov.Model([y], [x], f"model {WEIRD}"), tmp_path, _feed(f"in {WEIRD}", (1, 3, 8, 8)))
    names = {node.name for node in read_ir(out)}
    assert {f"in {WEIRD}", f"relu {WEIRD}"} <= names
    compiled = ov.Core().read_model(out)
    assert compiled.output(0).get_names() == {f"out {WEIRD}", f"other {WEIRD}"}


def test_twenty_thousand_layers(tmp_path: Path) -> None:
    """The CPU plugin does not compile this chain (the original either) within 10 minutes, so
    the lowp output is checked: exit 0 and every layer read back."""
    x = ops.parameter([1, 8], np.float32, name="x")
    y: ov.Node = _fq(x, 0.0, 2.0)
    for _ in range(10_000):  # Tanh and Relu: 20,000 layers that LPT neither folds nor moves
        y = ops.relu(ops.tanh(y))
    source, out = tmp_path / "model.xml", tmp_path / "out.xml"
    ov.save_model(ov.Model([y], [x], "long"), str(source), compress_to_fp16=False)
    result = CliRunner().invoke(main, ["transform", str(source), "-o", str(out), "--config", "cpu", "-q",
                                       "--dialect", "lowp"])
    assert result.exit_code == 0, result.output
    assert sum(node.type in ("Tanh", "Relu") for node in read_ir(out)) == 20_000


def _body_layers(xml: Path) -> list[list[tuple[str, str]]]:
    """(type, name) of every layer of every sub-graph body, per body."""
    from lxml import etree

    return [[(layer.get("type"), layer.get("name")) for layer in body.iter("layer")]
            for body in etree.parse(str(xml)).getroot().iter("body", "then_body", "else_body")]


def _subgraph_model(kind: str) -> tuple[ov.Model, dict[str, np.ndarray]]:
    """FQ -> Convolution -> a `kind` op whose body computes on the result -> Relu."""
    x = ops.parameter([1, 3, 6, 6], np.float32, name="x")
    conv = ops.reshape(_conv(_fq(x)), [1, 4, 36], False)
    feed = _feed("x", (1, 3, 6, 6))
    if kind == "Loop":
        inner = ops.parameter([1, 4, 36], np.float32, name="inner")
        step = ops.add(ops.multiply(inner, ops.constant(np.float32(0.5))), ops.constant(np.float32(1.0)))
        body = ov.Model([ops.constant(True).output(0), step.output(0)], [inner], "body")
        loop = ops.loop(ops.constant(np.int64(3)), ops.constant(True))
        loop.set_function(body)
        loop.set_special_body_ports([-1, 0])
        loop.set_merged_input(inner, conv.output(0), step.output(0))
        result = loop.get_iter_value(step.output(0), -1)
    elif kind == "If":
        flag = ops.parameter([], np.bool_, name="flag")
        then_in, else_in = (ops.parameter([1, 4, 36], np.float32, name=n) for n in ("then_in", "else_in"))
        then_out = ops.result(ops.multiply(then_in, ops.constant(np.float32(2.0))))
        else_out = ops.result(ops.add(else_in, ops.constant(np.float32(-1.0))))
        branch = ops.if_op(flag)
        branch.set_then_body(ov.Model([then_out], [then_in], "then"))
        branch.set_else_body(ov.Model([else_out], [else_in], "else"))
        branch.set_input(conv.output(0), then_in, else_in)
        result = branch.set_output(then_out, else_out)
        model = ov.Model([ops.relu(result).output(0)], [x, flag], "If")
        return model, {**feed, "flag": np.array(False)}
    else:
        step_in = ops.parameter([1, 4, 1], np.float32, name="step_in")
        state = ops.parameter([1, 4, 1], np.float32, name="state")
        new_state = ops.add(ops.multiply(state, ops.constant(np.float32(0.9))), step_in)
        iterator = ops.tensor_iterator()
        iterator.set_body(ov.Model([new_state], [step_in, state], "body"))
        iterator.set_sliced_input(step_in, conv.output(0), 0, 1, 1, -1, 2)
        iterator.set_merged_input(state, ops.constant(np.zeros((1, 4, 1), np.float32)).output(0), new_state.output(0))
        result = iterator.get_iter_value(new_state.output(0), -1)
    return ov.Model([ops.relu(result).output(0)], [x], kind), feed


@pytest.mark.parametrize("kind", ["Loop", "If", "TensorIterator"])
def test_sub_graph_bodies_pass_through_intact(tmp_path: Path, kind: str) -> None:
    model, feed = _subgraph_model(kind)
    out = check(model, tmp_path, feed)
    assert _body_layers(out) == _body_layers(tmp_path / "model.xml") != []
    assert "Convolution" in {node.type for node in read_ir(out)}


def test_convert_port_precision_that_disagrees_with_its_destination_type(tmp_path: Path) -> None:
    """OpenVINO types a Convert by its destination_type and ignores the port's precision; so
    does lpt (the fuzzer's `precision="U8"` on an i8 -> f32 weights Convert gave a refused output)."""
    x = ops.parameter([1, 3, 8, 8], np.float32, name="x")
    weights = ops.convert(ops.constant(RNG.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)), np.float32)
    scaled = ops.multiply(weights, ops.constant(np.full((4, 1, 1, 1), 0.01, np.float32)))
    y = ops.relu(ops.convolution(_fq(x), scaled, [1, 1], [1, 1], [1, 1], [1, 1]))
    source, out = tmp_path / "model.xml", tmp_path / "out.xml"
    ov.save_model(ov.Model([y], [x], "convert"), str(source), compress_to_fp16=False)
    text = source.read_text()
    convert = text.index('type="Convert"')
    port = text.index('precision="FP32"', text.index("<output>", convert))
    source.write_text(text[:port] + 'precision="U8"' + text[port + len('precision="FP32"'):])
    result = CliRunner().invoke(main, ["transform", str(source), "-o", str(out), "--config", "cpu", "-q"])
    assert result.exit_code == 0, result.output
    feed = _feed("x", (1, 3, 8, 8))
    original, transformed = plugin_run(source, feed), plugin_run(out, feed)
    assert original.ok and transformed.ok, transformed.error
    np.testing.assert_allclose(transformed.outputs[0], original.outputs[0], rtol=1e-4, atol=1e-4)
