"""lpt: OpenVINO Low Precision Transformations, offline, on IR files.

The Python API (lpt_cli/api.py) loads on first use, so `import lpt_cli` stays cheap:

    import lpt_cli
    int8_model = lpt_cli.transform(quantized_model, config="cpu")   # openvino.Model or IR path in
    report = lpt_cli.report("model.xml", config="gpu")              # typed per-layer report
    lpt_cli.verify("model.xml").passed                              # outputs within tolerance
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads them
    from .api import analysis, benchmark, diff, report, transform, transform_file, verify

__version__ = "0.1.0"
__all__ = ["__version__", "analysis", "benchmark", "diff", "report", "transform", "transform_file", "verify"]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'lpt_cli' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API, which __getattr__ loads on first use (dir() and editors' completion show it)."""
    return sorted(__all__)
