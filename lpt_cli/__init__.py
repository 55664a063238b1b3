"""lpt: OpenVINO Low Precision Transformations, offline, on IR files.

The Python API (lpt_cli/api.py) loads on first use, so `import lpt_cli` stays cheap:

    import lpt_cli
    int8_model = lpt_cli.transform(quantized_model, config="cpu")   # openvino.Model or IR path in
    report = lpt_cli.report("model.xml", config="gpu")              # typed per-layer report
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads them
    from .api import analysis, diff, report, transform, transform_file

__version__ = "0.1.0"
__all__ = ["__version__", "analysis", "diff", "report", "transform", "transform_file"]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'lpt_cli' has no attribute {name!r}")
