"""Boolean masks survive the runtime dialect: they select, they are never dequantized."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from lpt_cli.ir.reader import read_ir
from lpt_cli.ir.legalize import legalize_for_runtime
from lpt_cli.ir.writer import write_ir
from lpt_cli.runtime.oracle import plugin_run

L, D = 16, 8


def sdpa_model(folder: Path) -> Path:
    """q, k, v from one input; a boolean causal mask built from the sequence."""
    x = ops.parameter([1, 2, L, D], np.float32, name="x")
    mask = ops.constant(np.tril(np.ones((L, L), dtype=bool)))
    attn = ops.scaled_dot_product_attention(x, ops.multiply(x, np.float32(0.5)), x, mask, causal=False)
    path = folder / "sdpa.xml"
    ov.save_model(ov.Model([attn], [x], "sdpa"), path, compress_to_fp16=False)
    return path


def test_boolean_mask_input_is_not_converted(tmp_path: Path) -> None:
    graph = legalize_for_runtime(read_ir(sdpa_model(tmp_path)))
    sdpa = next(n for n in graph.nodes.values() if n.type == "ScaledDotProductAttention")
    assert sdpa.input_value(3).element_type.name == "boolean"
    assert sdpa.input_node(3).type == "Constant"


@pytest.mark.slow
def test_runtime_dialect_keeps_the_mask_math(tmp_path: Path) -> None:
    original = sdpa_model(tmp_path)
    out = tmp_path / "out.xml"
    write_ir(legalize_for_runtime(read_ir(original)), out)
    feed = {"x": np.random.default_rng(0).standard_normal((1, 2, L, D)).astype(np.float32)}
    want, got = plugin_run(original, feed), plugin_run(out, feed)
    assert want.ok and got.ok, (want.error, got.error)
    np.testing.assert_array_equal(got.outputs[0], want.outputs[0])
