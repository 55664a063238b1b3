"""Checks of the paths a command is given, before any work: one style of message for all.

Click's own `Path(exists=True)` answers in another style (with usage, quoting the option
rather than the file) and knows nothing of IR pairs, ONNX files or output folders; these
checks raise LptError, so every problem reads `lpt: error: PATH: what is wrong` (exit 2).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import LptError

# Formats people hand to lpt before converting them, and what to do with each.
_NOT_IR = {
    ".onnx": "an ONNX model; convert it to OpenVINO IR with `ovc` or `openvino.convert_model` first",
    ".pt": "a PyTorch checkpoint; convert it to OpenVINO IR with `openvino.convert_model` first",
    ".pth": "a PyTorch checkpoint; convert it to OpenVINO IR with `openvino.convert_model` first",
    ".pb": "a TensorFlow model; convert it to OpenVINO IR with `ovc` or `openvino.convert_model` first",
    ".tflite": "a TensorFlow Lite model; convert it to OpenVINO IR with `ovc` or `openvino.convert_model` first",
    ".bin": "the weights of an IR; give its .xml (the .bin is read from beside it)",
}


def check_model(path: Path) -> Path:
    """`path` names a readable IR .xml with its .bin beside it."""
    suffix = path.suffix.lower()
    if suffix in _NOT_IR and not path.is_dir():
        if not path.exists():
            raise LptError(f"{path}: no such file")
        raise LptError(f"{path}: {_NOT_IR[suffix]}")
    check_input_file(path, "an IR .xml file")
    if suffix != ".xml":
        raise LptError(f"{path}: expected an IR .xml file (its .bin beside it)")
    weights = path.with_suffix(".bin")
    if weights.is_dir():
        raise LptError(f"{weights}: is a folder, expected the weights of {path.name}")
    return path


def check_input_file(path: Path, what: str) -> Path:
    """`path` is an existing, readable regular file (`what` says which kind is expected)."""
    if not path.exists():
        raise LptError(f"{path}: no such file")
    if path.is_dir():
        raise LptError(f"{path}: is a folder, expected {what}")
    if not os.access(path, os.R_OK):
        raise LptError(f"{path}: not readable (permission denied)")
    return path


def check_output(output: Path, inputs: list[Path]) -> None:
    """`output` (an IR .xml) can be written: not an input, its folder creatable and writable.

    Creates the folder (as `--trace DIR` does), so `-o out/model.xml` works on a fresh tree.
    """
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
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LptError(f"{folder}: cannot create the output folder: {exc.strerror or exc}") from None
    probe = folder / f".lpt-probe-{os.urandom(6).hex()}"  # not tempfile: its import costs each run 3 ms
    try:  # a real probe: permissions, read-only mounts and /proc-like folders all show here
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise LptError(f"{folder}: cannot write into the output folder: {exc.strerror or exc}") from None
