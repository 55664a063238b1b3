"""`lpt transform`'s progress on a terminal: one rich line on stderr naming the step (reading,
each pipeline step, writing, the check's steps), with the bytes of .bin it moves (weights read by
the pipeline, the .bin written against its size), shown only once the run has taken
`DELAY` seconds: a run that ends sooner prints its summary alone. The line goes when the run ends.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, RenderableType
from rich.filesize import decimal
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

DELAY = 2.0  # seconds before the line shows


class _Delayed(Progress):
    """A rich Progress that renders nothing until `delay` seconds after it was made."""

    def __init__(self, *columns: Any, delay: float, **options: Any) -> None:
        self._shown_after = time.monotonic() + delay  # first: Progress renders while it is made
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterable[RenderableType]:
        if time.monotonic() >= self._shown_after:
            yield from super().get_renderables()


@contextmanager
def progress_line(console: Console, delay: float = DELAY) -> Iterator[RunProgress]:
    """The line for the run inside the `with` (rich's refresh thread draws it)."""
    progress = RunProgress(console, delay)
    with progress.bar:
        yield progress


class RunProgress:
    """The progress line; `step(name)` and `moved(done, total)` are the API's `progress` and
    `on_bytes`."""

    def __init__(self, console: Console, delay: float = DELAY) -> None:
        self.bar = _Delayed(TextColumn("lpt transform"), BarColumn(), TextColumn("{task.description}"),
                            TextColumn("{task.fields[amount]}"), TimeElapsedColumn(),
                            console=console, transient=True, delay=delay)
        self._task = self.bar.add_task("", total=None, amount="")

    def step(self, name: str) -> None:
        self.bar.update(self._task, description=name, total=None, completed=0, amount="")

    def moved(self, done: int, total: int | None) -> None:
        """Bytes of .bin moved in the step: a bar against `total`, or a count of weights read."""
        if total is None:
            self.bar.update(self._task, amount=f"{decimal(done)} of weights read")
        else:
            self.bar.update(self._task, total=total, completed=done, amount=f"{decimal(done)} / {decimal(total)}")
