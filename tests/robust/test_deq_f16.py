"""`deq_precision: f16` on an f32 model: the runtime-dialect output compiles and runs on the CPU
plugin (child process). The mobilenet fixture's intervals divided by its scales pass f16's range:
a fused FakeQuantize with inf intervals was refused ("could not append an elementwise post-op")."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.ir.reader import read_ir
from lpt_cli.runtime.oracle import plugin_run

MOBILENET = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "mobilenet.xml"


@pytest.mark.slow
def test_f16_dequantization_output_compiles_and_runs(tmp_path: Path) -> None:
    config = tmp_path / "f16.yaml"
    config.write_text("deq_precision: f16\n")
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(main, ["transform", str(MOBILENET), "-o", str(out), "--config", str(config), "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    intervals = [node.input_node(i).value for node in read_ir(out) if node.type == "FakeQuantize"
                 for i in range(1, 5) if node.input_node(i).type == "Constant"]
    assert intervals and all(np.isfinite(v).all() for v in intervals)
    feed = {"input": np.random.default_rng(0).uniform(-2, 2, (1, 3, 32, 32)).astype(np.float32)}
    ran = plugin_run(out, feed)
    assert ran.ok, ran.error
    original = plugin_run(MOBILENET, feed)
    assert [o.shape for o in ran.outputs] == [o.shape for o in original.outputs]
    assert all(np.isfinite(o).all() for o in ran.outputs)
