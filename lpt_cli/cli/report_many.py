"""`lpt report A.xml B.xml FOLDER/`: one summary row per model and a total (also the form of
`--summary-only` and `--format junit` for one model).

Every model is analysed before anything is printed, so a model that cannot be read is one
error line (exit 2) and no partial table. A progress bar goes to stderr when it is a terminal.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import LptError


@dataclass(frozen=True)
class Found:
    """The IR files to report on and how a screen names them."""

    paths: list[Path]
    labels: dict[str, str]  # str(path) -> the path relative to the folder it was found in
    folder: str  # the one folder given (and nothing else), for the title; "" otherwise


def model_paths(given: tuple[Path, ...]) -> Found:
    """Files as given, a folder's *.xml files in name order; no repeats."""
    found: list[Path] = []
    labels: dict[str, str] = {}
    for path in given:
        if path.is_dir():
            inside = sorted(p for p in path.glob("*.xml") if p.is_file())
            if not inside:
                raise LptError(f"{path}: no .xml model in this folder")
            found.extend(inside)
            labels.update({str(p): str(p.relative_to(path)) for p in inside})
        else:
            found.append(path)
    folder = str(given[0]).rstrip("/") + "/" if len(given) == 1 and given[0].is_dir() else ""
    return Found(list(dict.fromkeys(found)), labels, folder)


def report_many(found: Found, config_spec: str, fmt: str, fail_under: float | None,
                single_only: Mapping[str, object], shapes: Mapping[str, Sequence[int]] | None = None) -> None:
    """Prints the summary rows; exit 3 when a model is below `fail_under`. `single_only`: the
    options of one model's full report, refused here; `shapes`: `--shape`, for one model."""
    from .. import api
    from ..reports.many import ManyReport, render_many

    paths = found.paths
    used = [option for option, value in single_only.items() if value]
    if used and len(paths) > 1:
        raise LptError(f"{used[0]} takes one model ({len(paths)} given)")
    if used:
        form = "--format junit" if fmt == "junit" else "--summary-only"
        raise LptError(f"{used[0]} is for one model's full report, not {form} (a summary row per model)")
    if shapes and len(paths) > 1:
        raise LptError(f"--shape takes one model ({len(paths)} given)")
    config = api.resolve_config(config_spec)  # once: a bad config fails before any model is read
    reports = []
    with _progress(len(paths)) as starting:
        for path in paths:
            starting(path.name)
            reports.append(api.report(path, config, shapes))
    many = ManyReport(tuple(reports), fail_under, found.labels, found.folder)
    click.echo(render_many(many, fmt), nl=False)
    for report in many.below:
        click.echo(f"lpt: {report.model}: low-precision share {report.summary.low_precision_share:.2f}% "
                   f"is below --fail-under {fail_under:g}%", err=True)
    if many.below:
        click.get_current_context().exit(3)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[str], None]]:
    """A rich progress bar on an interactive stderr (silent otherwise); call it with each model's
    name as its analysis starts."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda _name: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(TextColumn("lpt report"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  console=console, transient=True) as bar:
        task = bar.add_task("", total=total)
        started = 0

        def start(name: str) -> None:
            nonlocal started
            bar.update(task, completed=started, description=name)
            started += 1

        yield start
