"""`lpt transform`'s progress line on a terminal (run_progress.py): nothing for a run's first
seconds, then the step and the bytes of .bin it moves; and the API reports those bytes."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
from rich.console import Console

from lpt_cli.api import transform_file
from lpt_cli.cli.run_progress import progress_line

def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def test_nothing_is_drawn_before_the_delay() -> None:
    console, out = _terminal()
    with progress_line(console, delay=3600) as progress:
        progress.step("main")
        progress.moved(10_000_000, None)
        progress.bar.refresh()
    assert "lpt transform" not in out.getvalue() and "main" not in out.getvalue()


def test_after_the_delay_the_line_names_the_step_and_its_bytes() -> None:
    console, out = _terminal()
    with progress_line(console, delay=0) as progress:
        progress.step("main")
        progress.moved(3_000_000, None)
        progress.bar.refresh()
        assert "main 3.0 MB of weights read" in out.getvalue()
        progress.step("writing")
        progress.moved(1_000_000, 2_000_000)
        progress.bar.refresh()
        assert "writing 1.0 MB / 2.0 MB" in out.getvalue()


def _residual_model(path: Path) -> Path:
    """Two residual blocks `h + MatMul(FQ(h), W)` on asymmetric i8 activations: the second Add
    reads the `z @ W` folded from its MatMul's weights."""
    rng = np.random.default_rng(0)

    def mat_mul(x: ov.Node) -> ov.Node:
        weights = ops.convert(ops.constant(rng.integers(-127, 128, (64, 64)).astype(np.int8)), np.float32)
        scaled = ops.multiply(weights, ops.constant(rng.uniform(1e-3, 1e-2, (64, 1)).astype(np.float32)))
        return ops.matmul(ops.fake_quantize(x, -4.0, 4.0, -4.0, 4.0, 256), scaled, False, True)

    x = ops.parameter([1, 8, 64], np.float32, name="x")
    h = ops.add(x, mat_mul(x))
    ov.save_model(ov.Model([ops.add(h, mat_mul(h))], [x], "residual"), path, compress_to_fp16=False)
    return path


def test_transform_file_reports_the_weights_read_and_the_bin_written(tmp_path: Path) -> None:
    """The pipeline's reads of weights count up without a total; writing counts the constants'
    bytes up to their total (at least the .bin, which stores identical blobs once)."""
    moved: list[tuple[int, int | None]] = []
    steps: list[str] = []
    transform_file(_residual_model(tmp_path / "m.xml"), tmp_path / "out.xml", progress=steps.append,
                   on_bytes=lambda done, total: moved.append((done, total)))
    read = [done for done, total in moved if total is None]
    written = [(done, total) for done, total in moved if total is not None]
    assert read == [64 * 64] and moved.index((read[-1], None)) < moved.index(written[0])
    assert [done for done, _ in written] == sorted(done for done, _ in written)
    total = written[-1][1]
    assert written[-1] == (total, total) and total >= (tmp_path / "out.bin").stat().st_size
    assert steps[0] == "reading" and "main" in steps and steps[-1] == "writing"
