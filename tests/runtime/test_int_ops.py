"""Every opset op that takes an integer input, transformed by lpt, runs on the CPU plugin as the
original does (issue 19): indices, lengths, shapes, offsets and counts are never converted, and
integers beyond 2**24 keep their values.

Per op version (tests/runtime/int_ops.py) a tiny model, unquantized and with a FakeQuantize upstream
of its float input, goes through lpt (config cpu) into both dialects. The runtime dialect must be
read, compiled and run by the plugin with outputs equal to the original's bit for bit, and keep
the integer inputs of the op's nodes as the original has them; the lowp dialect must read back
with lpt's reader, and with OpenVINO's when it has no u8/i8 port the original lacks. All models
run in one child process (`PluginRunner`): a model can crash the plugin.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from int_ops import BUILDERS, FLOAT_ONLY, NO_INPUTS, OpVersion, integer_inputs, model, opset_ops, takes_integers

from lpt_cli.ir import legalize
from lpt_cli.ir.graph import Graph
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.runtime.oracle import PluginRunner

pytestmark = pytest.mark.slow

# Ops no test can build or run standalone, with the reason.
_NO_KERNEL = 'opset17; the CPU plugin of openvino 2026.4 has no kernel ("Unsupported operation of type: {}")'
SKIPPED = {"RGBtoNV12": _NO_KERNEL.format("RGBtoNV12"), "BGRtoNV12": _NO_KERNEL.format("BGRtoNV12")}
# Cases where lpt's output is refused or computes otherwise: bugs of lpt, each reduced and reported.
KNOWN_FAILURES = {
    "StringTensorPack-opset15-plain": "lpt's reader has no string element type: \"unknown element type 'STRING'\"",
    "StringTensorUnpack-opset15-plain": "lpt's reader has no string element type: \"unknown element type 'STRING'\"",
    # FakeQuantize -> op -> Result: LPT moves the dequantization behind the op and the runtime dialect writes
    # `Convert -> Multiply(1.0) -> op -> Subtract(z) -> Multiply(s)`. The plugin computes that otherwise than
    # the original, whose FakeQuantize it decomposes and whose dequantization it moves itself; written before
    # the op (`Convert -> Subtract(z) -> Multiply(s) -> op`, as its own decomposition leaves it), all four were
    # bit-exact (measured by hand, openvino 2026.4).
    "AvgPool-opset1-fq": "the plugin rounds the average to u8 before the dequantization (half a level on "
    "every value); on the original it keeps AvgPool's output f32",
    "Clamp-opset1-fq": "the plugin's dequantization behind the Clamp gives q*s - z*s, the original's (q - z)*s: "
    "last bits (1.2e-7 on values up to 1)",
    "ReduceMean-opset1-fq": "as Clamp-opset1-fq: last bits (6e-8)",
    "ReduceSum-opset1-fq": "as Clamp-opset1-fq (the zero point times the count): last bits (5e-7 on 1.7)",
}
LOW_PRECISION = {"u8", "i8"}


def _cases() -> Iterator[object]:
    for op in opset_ops():
        if not takes_integers(op) or op.name in SKIPPED:
            continue
        for quantized in (False, True) if BUILDERS[op.name].float_input else (False,):
            case_id = f"{op.key}-{'fq' if quantized else 'plain'}"
            marks = (
                [pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[case_id])] if case_id in KNOWN_FAILURES else []
            )
            yield pytest.param(op, quantized, id=case_id, marks=marks)


@pytest.fixture(scope="module")
def runner() -> Iterator[PluginRunner]:
    plugin = PluginRunner(timeout=120.0, restart_every=1000)
    yield plugin
    plugin.stop()


def _unchecked_write_ir(graph: Graph, path: Path, dialect: str) -> None:
    """write_ir without the session's load check (tests/conftest.py): this module compiles and
    runs every output itself, in its own child; the check would compile each a second time."""
    getattr(write_ir, "__wrapped__", write_ir)(graph, path, dialect=dialect)


def _transform(op: OpVersion, quantized: bool, folder: Path) -> dict[str, np.ndarray]:
    """folder/m.xml (the op's model), lpt's runtime and lowp dialects of it; the model's inputs."""
    built, feed, kit = model(op, quantized)
    assert kit.fake_quantized if quantized else not kit.fake_quantized, "the builder's FakeQuantize"
    assert any(
        node.get_type_name() == op.name and node.get_type_info().version_id == op.version
        for node in built.get_ordered_ops()
    ), f"the model has no {op.key}"
    ov.save_model(built, folder / "m.xml", compress_to_fp16=False)
    graph = read_ir(folder / "m.xml")
    run_pipeline(graph, load_config("cpu"))
    _unchecked_write_ir(graph, folder / "runtime.xml", "runtime")
    _unchecked_write_ir(graph, folder / "lowp.xml", "lowp")
    return feed


def _same(original: list[np.ndarray], ours: list[np.ndarray]) -> list[str]:
    if len(original) != len(ours):
        return [f"{len(ours)} outputs, the original has {len(original)}"]
    found = []
    for k, (want, got) in enumerate(zip(original, ours)):
        if want.dtype != got.dtype or want.shape != got.shape:
            found.append(f"output {k}: {got.dtype}{list(got.shape)}, the original's is {want.dtype}{list(want.shape)}")
        elif not np.array_equal(want, got, equal_nan=want.dtype.kind in "fc"):
            bad = want != got
            found.append(
                f"output {k}: {int(bad.sum())} of {bad.size} values differ, e.g. {got[bad][:3]} for {want[bad][:3]}"
            )
    return found


def _integer_inputs_kept(op: OpVersion, folder: Path) -> list[str]:
    """Every integer input of the op's nodes in the runtime dialect has the type the original has."""
    ours = {node.name: node for node in read_ir(folder / "runtime.xml") if node.type == op.name}
    found = []
    for node in read_ir(folder / "m.xml"):
        # the layer's name may have moved to its dequantization; an op on constants may have been folded
        twin = ours.get(node.name) or ours.get(f"{node.name}_original")
        if node.type != op.name or twin is None:
            continue
        if twin.version != node.version:  # a plugin's opset conversion (Interpolate-11 -> 4) moves inputs
            have = Counter(slot.source.element_type.name for slot in twin.inputs)
            want = Counter(slot.source.element_type.name for slot in node.inputs if slot.source.element_type.is_integral)
            found += [f"{node.name} ({node.version} -> {twin.version}): {n - have[t]} {t} input(s) gone"
                      for t, n in want.items() if have[t] < n]
            continue
        for port, slot in enumerate(node.inputs):
            was, now = slot.source.element_type, twin.inputs[port].source.element_type
            if was.is_integral and now != was:
                found.append(f"{node.name} input {port}: {was.name} became {now.name}")
    return found


def _low_precision_ports(path: Path) -> Counter[str]:
    return Counter(
        out.element_type.name
        for node in read_ir(path)
        for out in node.outputs
        if out.element_type.name in LOW_PRECISION
    )


def check(op: OpVersion, quantized: bool, folder: Path, runner: PluginRunner) -> list[str]:
    """What is wrong with lpt's dialects of the op's model (empty: nothing)."""
    feed = _transform(op, quantized, folder)
    original = runner.run(folder / "m.xml", feed)
    assert original.ok, f"the original model does not run: {original.error}"
    ours = runner.run(folder / "runtime.xml", feed)
    found = [f"runtime dialect: {ours.error}"] if not ours.ok else _same(original.outputs, ours.outputs)
    found += _integer_inputs_kept(op, folder)
    if not _low_precision_ports(folder / "lowp.xml") - _low_precision_ports(folder / "m.xml"):
        refused = runner.read(folder / "lowp.xml")
        if refused is not None:
            found.append(f"lowp dialect (no u8/i8 port of lpt's): read_model refuses it: {refused}")
    return found


@pytest.mark.parametrize(("op", "quantized"), list(_cases()))
def test_op_with_integer_inputs_runs_as_the_original(
    op: OpVersion, quantized: bool, runner: PluginRunner, tmp_path: Path
) -> None:
    assert check(op, quantized, tmp_path, runner) == []


def test_every_opset_op_is_built_or_has_no_integer_input() -> None:
    """A new op of a new opset fails here until it has a builder (or is shown to take no integer)."""
    ops = opset_ops()
    assert len({op.name for op in ops}) > 200  # the tables were found and read
    unknown = [
        op.key
        for op in ops
        if not takes_integers(op) and op.key not in FLOAT_ONLY and op.name not in FLOAT_ONLY | NO_INPUTS
    ]
    assert unknown == []
    assert set(SKIPPED) <= set(BUILDERS)


@pytest.mark.parametrize("op", [op for op in opset_ops() if takes_integers(op)], ids=lambda op: op.key)
def test_op_with_a_builder_takes_an_integer_input(op: OpVersion) -> None:
    """Its unquantized model gives it an integer tensor, or OpenVINO's validation accepts one."""
    assert integer_inputs(op) != []


@pytest.mark.parametrize(
    "op", [op for op in opset_ops() if op.key in FLOAT_ONLY or op.name in FLOAT_ONLY], ids=lambda op: op.key
)
def test_op_listed_without_integer_input_refuses_one(op: OpVersion) -> None:
    """The op, built on floats, is refused by OpenVINO with an i32 tensor on any one of its inputs."""
    assert integer_inputs(op) == []


@pytest.mark.parametrize(
    "key",
    [
        "Range-opset4",
        "OneHot-opset1",
        "ROIAlign-opset9",
        "EmbeddingBagOffsetsSum-opset3",
        "LSTMSequence-opset5",
        "ConvertPromoteTypes-opset14",
        "NV12toRGB-opset8",
    ],
)
def test_the_check_fails_when_integer_inputs_are_made_float(
    key: str, runner: PluginRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the runtime dialect's old rule (an integer input of an op that mixes integer types
    becomes f32), the per-op check finds what issue 19 reported."""
    monkeypatch.setattr(legalize, "_as_read", lambda node: False)
    monkeypatch.setattr(
        legalize,
        "_data_inputs",
        lambda node: [
            i
            for i in range(len(node.inputs))
            if i not in legalize._AUX_INPUTS.get(node.type, frozenset())
            and node.inputs[i].source.element_type.kind != "bool"
        ],
    )
    op = next(op for op in opset_ops() if op.key == key)
    assert check(op, False, tmp_path, runner) != []
