"""OpenVINO IR as lpt sees it: a graph, its reader and its writer. Knows no transformation.

The names below load on first use (PEP 562), so importing a light submodule of the package
(e.g. for DIALECTS in a CLI option) does not pull numpy in.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the type checker sees the classes; at run time they load on first use
    from .eltypes import ElementType, element_type
    from .graph import Graph, GraphError, Input, Node, Output, Shape

DIALECTS = ("runtime", "lowp")  # how the writer spells low-precision ops (see writer.py)

_LAZY = {"ElementType": "eltypes", "element_type": "eltypes", "Graph": "graph", "GraphError": "graph",
         "Input": "graph", "Node": "graph", "Output": "graph", "Shape": "graph"}

__all__ = ["DIALECTS", "ElementType", "Graph", "GraphError", "Input", "Node", "Output", "Shape", "element_type"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
