"""Where a run's outputs go: checked and their folders created before any work, and removed
again when the run fails or is interrupted, so that it leaves nothing behind.

`lpt transform` and `lpt_cli.transform_file` both go through here: an output path is refused
before a model is read (not an .xml, an input, a folder, somewhere that takes no files), and
a folder made for it disappears with a failed run instead of staying behind empty.
"""
from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import LptError


def prepare_output(output: Path, inputs: Sequence[Path]) -> list[Path]:
    """Checks that the IR `output` (.xml, its .bin beside it) can be written without touching
    an input, creates its folder; returns the folders it created, outermost first."""
    if output.suffix.lower() != ".xml":
        raise LptError(f"{output}: the output must be an .xml path (the .bin is written beside it)")
    for target in (output, output.with_suffix(".bin")):
        if target.is_dir():
            raise LptError(f"{target}: is a folder, expected a file to write")
        for source in inputs:
            if target.resolve() == source.resolve() or (target.exists() and source.exists()
                                                         and os.path.samefile(target, source)):
                raise LptError(f"{target}: refusing to overwrite the input model {source}")
    folder = output.parent
    if folder.exists() and not folder.is_dir():
        raise LptError(f"{folder}: is a file, so {output.name} cannot be written inside it")
    created = create_folder(folder, "the output folder")
    probe = folder / f".lpt-probe-{os.urandom(6).hex()}"  # not tempfile: its import costs each run 3 ms
    try:  # a real probe: permissions, read-only mounts and /proc-like folders all show here
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
    except OSError as exc:
        remove_folders(created)
        raise LptError(f"{folder}: cannot write into the output folder: {unwritable(folder, exc)}") from None
    return created


def create_folder(folder: Path, what: str) -> list[Path]:
    """Creates `folder` and its missing parents; returns those it created, outermost first."""
    missing = [path for path in (folder, *folder.parents) if not path.exists()][::-1]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        remove_folders([path for path in missing if path.is_dir()])
        existing = next((path for path in folder.parents if path.exists()), Path("/"))
        raise LptError(f"{folder}: cannot create {what}: {unwritable(existing, exc, str(existing))}") from None
    return missing


def remove_folders(created: Sequence[Path]) -> None:
    """Removes the folders a run created, innermost first, each only if it is empty."""
    for folder in reversed(created):
        with suppress(OSError):  # not empty (something else wrote there) or already gone: it stays
            folder.rmdir()


def unwritable(folder: Path, exc: OSError, subject: str = "it") -> str:
    """Why nothing can be written into the existing `folder` (called `subject`), from the error
    writing there gave.

    A virtual file system such as /proc answers "No such file or directory" about a folder
    that exists; that is said as what it is."""
    if exc.errno == errno.ENOENT and folder.is_dir():
        kind = _file_system(folder)
        where = f"{subject} is on a {kind} file system, which" if kind else subject
        return f"{where} does not take new files or folders"
    return exc.strerror or str(exc)


def _file_system(folder: Path) -> str | None:
    """The type of the file system `folder` is on, from /proc/self/mountinfo (None if unknown)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    resolved, best, kind = folder.resolve(), -1, None
    for line in lines:
        fields, _, tail = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not tail:
            continue
        mount = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), parts[4]))  # `\040` is a space
        if (resolved == mount or mount in resolved.parents) and len(mount.parts) > best:
            best, kind = len(mount.parts), tail.split()[0]
    return kind


class Written:
    """What one run has written so far: files, and the folders it created for them."""

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.folders: list[Path] = []

    def add_ir(self, xml: Path) -> None:
        self.files += [xml, xml.with_suffix(".bin")]

    def discard(self) -> None:
        """Removes every file and created folder of the run (a folder someone filled stays)."""
        for path in self.files:
            path.unlink(missing_ok=True)
        remove_folders(self.folders)


@contextmanager
def all_or_nothing() -> Iterator[Written]:
    """A run whose outputs are removed if it ends by any exception, Ctrl-C included."""
    written = Written()
    try:
        yield written
    except BaseException:
        written.discard()
        raise
