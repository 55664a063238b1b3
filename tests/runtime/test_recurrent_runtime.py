"""A GRU sequence whose hidden state LPT dequantizes behind a Transpose: lpt's runtime output makes
the CPU plugin run the same u8 cell (RNNSeq ref_any_I8) as the original, with the same outputs.
Compiled in a child process (lpt_cli.runtime.oracle)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.ir.legalize import legalize_for_runtime
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.writer import write_ir
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.runtime.oracle import plugin_run
from lpt_cli.runtime.parity import int8_recurrent_cells, worst_relative_error

HIDDEN, INPUT, STEPS = 8, 4, 5


def _fake_quantize(x: object, low: float, high: float, levels: int = 256) -> ov.Node:
    return ops.fake_quantize(x, np.float32(low), np.float32(high), np.float32(low), np.float32(high), levels)


def gru_with_transposed_state(folder: Path) -> Path:
    """X -> FakeQuantize -> GRUSequence; H given as [1, hidden, 1] -> FakeQuantize -> Transpose; W, R
    FakeQuantized constants (symmetric, 255 levels)."""
    rng = np.random.default_rng(4)
    x = ops.parameter([1, STEPS, INPUT], np.float32, name="x")
    h = ops.parameter([1, HIDDEN, 1], np.float32, name="h")
    state = ops.transpose(_fake_quantize(h, 0.0, 2.55), ops.constant(np.array([0, 2, 1], np.int64)))
    weights = [_fake_quantize(ops.constant(rng.uniform(-0.5, 0.5, (1, 3 * HIDDEN, n)).astype(np.float32)), -0.5, 0.5,
                              255) for n in (INPUT, HIDDEN)]
    gru = ops.gru_sequence(_fake_quantize(x, 0.0, 2.55), state, ops.constant(np.array([STEPS], np.int32)), *weights,
                           ops.constant(np.zeros((1, 3 * HIDDEN), np.float32)), HIDDEN, "forward")
    path = folder / "gru.xml"
    ov.save_model(ov.Model([gru.output(0)], [x, h], "gru"), path, compress_to_fp16=False)
    return path


def test_a_dequantization_behind_a_transpose_is_written_at_its_head(tmp_path: Path):
    # The plugin's TransposeSinking moves a Transpose below the Convert after it, which leaves no
    # dequantization in front of the cell: the runtime dialect writes Convert -> Multiply first.
    graph = read_ir(gru_with_transposed_state(tmp_path))
    run_pipeline(graph, load_config("cpu"))
    gru = next(n for n in graph if n.type == "GRUSequence")
    behind = gru.input_node(1)
    assert [behind.type, behind.input_node(0).type, behind.input_node(0).input_node(0).type] == [
        "Multiply", "Convert", "Transpose"]
    legal = legalize_for_runtime(graph)
    state = next(n for n in legal if n.type == "GRUSequence").input_node(1)
    assert [state.type, state.input_node(0).type, state.input_node(0).input_node(0).type] == [
        "Transpose", "Multiply", "Convert"]


@pytest.mark.slow
def test_the_plugin_runs_the_same_u8_cell_on_lpts_output(tmp_path: Path):
    source = gru_with_transposed_state(tmp_path)
    graph = read_ir(source)
    run_pipeline(graph, load_config("cpu"))
    write_ir(graph, tmp_path / "rt.xml", dialect="runtime")
    rng = np.random.default_rng(0)
    feed = {"x": rng.uniform(0, 2.55, (1, STEPS, INPUT)).astype(np.float32),
            "h": rng.uniform(0, 2.55, (1, HIDDEN, 1)).astype(np.float32)}
    original, ours = plugin_run(source, feed), plugin_run(tmp_path / "rt.xml", feed)
    assert original.ok and ours.ok, (original.error, ours.error)
    assert int8_recurrent_cells(original.layers) == int8_recurrent_cells(ours.layers) == 1
    assert worst_relative_error(original.outputs, ours.outputs) <= 1e-5

