"""`openvino.Model` <-> IR files, so the Python API takes and returns what NNCF produces.

lpt reads and writes IR files itself; an in-memory model crosses over as an IR written and
read by openvino. `serialize` keeps the weights bit for bit (`save_model` would compress f32
weights to f16 by default).
"""
from __future__ import annotations

from pathlib import Path

import openvino as ov

from ..errors import LptError
from .device import core


def serialize(model: ov.Model, folder: Path) -> Path:
    """Writes `model` as `folder`/model.xml + .bin, as it is; returns the .xml."""
    if not isinstance(model, ov.Model):
        raise TypeError(f"expected an IR path or an openvino.Model, got {type(model).__name__}")
    xml = folder / "model.xml"
    ov.serialize(model, str(xml), str(xml.with_suffix(".bin")))
    return xml


def read_model(xml: Path, hint: str = "") -> ov.Model:
    """The IR `xml` as an openvino.Model; a model openvino refuses is an LptError (`hint` says what to do)."""
    try:
        return core().read_model(str(xml))
    except RuntimeError as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        detail = next((line for line in lines if not line.startswith("Exception from")), type(err).__name__)
        raise LptError(f"openvino cannot load the transformed model: {detail}" + (f" ({hint})" if hint else "")) \
            from None
