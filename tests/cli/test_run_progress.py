"""`lpt transform`'s progress line on a terminal (run_progress.py): nothing for a run's first
seconds, then the step and the bytes of .bin it moves; and the API reports those bytes."""
from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from lpt_cli.api import transform_file
from lpt_cli.cli.run_progress import progress_line

TRANSFORMER = Path(__file__).resolve().parents[2] / "fixtures" / "models" / "transformer.xml"


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


def test_transform_file_reports_the_weights_read_and_the_bin_written(tmp_path: Path) -> None:
    """The pipeline's reads of weights (BERT-like MatMuls fold `z @ B`) count up without a total;
    writing counts the constants' bytes up to their total (at least the .bin, which stores
    identical blobs once)."""
    moved: list[tuple[int, int | None]] = []
    steps: list[str] = []
    transform_file(TRANSFORMER, tmp_path / "out.xml", progress=steps.append,
                   on_bytes=lambda done, total: moved.append((done, total)))
    read = [done for done, total in moved if total is None]
    written = [(done, total) for done, total in moved if total is not None]
    assert read and read == sorted(read) and moved.index((read[-1], None)) < moved.index(written[0])
    assert [done for done, _ in written] == sorted(done for done, _ in written)
    total = written[-1][1]
    assert written[-1] == (total, total) and total >= (tmp_path / "out.bin").stat().st_size
    assert steps[0] == "reading" and "main" in steps and steps[-1] == "writing"
