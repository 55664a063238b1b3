"""Whether an IR is lpt's output: lpt stamps what it writes.

Running LPT (or a report of it) on a model LPT already transformed gives nonsense ("62
layers removed"), and a runtime-dialect output looks like any QDQ model, so `lpt transform`
leaves a mark in the model's rt_info, as NNCF does with its `<nncf>` section:
`<rt_info><lpt><version value=.../><dialect value=.../><config value=.../></lpt></rt_info>`.
Only the mark tells: a FakeQuantize with an integer output is also a valid input (OpenVINO's
own LPT tests quantize weights that way).
"""
from __future__ import annotations

import copy
from pathlib import Path

from lxml import etree

from ..errors import LptError
from .graph import Graph


def stamp(graph: Graph, *, version: str, dialect: str, config: str) -> None:
    """Marks `graph` (for its next write) as lpt's output; other rt_info is kept."""
    extras = list(graph.xml_model_extra)
    index = next((i for i, e in enumerate(extras) if e.tag == "rt_info"), None)
    rt_info = copy.deepcopy(extras[index]) if index is not None else etree.Element("rt_info")
    for old in rt_info.findall("lpt"):
        rt_info.remove(old)
    mark = etree.SubElement(rt_info, "lpt")
    for key, value in (("version", version), ("dialect", dialect), ("config", config)):
        etree.SubElement(mark, key, value=value)
    if index is None:
        extras.append(rt_info)
    else:
        extras[index] = rt_info
    graph.xml_model_extra = extras


def transformed_by_lpt(graph: Graph) -> str | None:
    """How `graph` shows it is lpt's output (None: it does not): lpt's stamp."""
    for extra in graph.xml_model_extra:
        mark = extra.find("lpt") if extra.tag == "rt_info" else None
        if mark is not None:
            fields = {child.tag: child.get("value", "") for child in mark}
            return (f"lpt transform wrote it, {fields.get('dialect', '?')} dialect, "
                    f"config {fields.get('config', '?')}")
    return None


def require_not_transformed(graph: Graph, path: Path) -> None:
    """LPT over its own output reports nonsense ("62 layers removed"): refuse it with a clear line."""
    how = transformed_by_lpt(graph)
    if how is not None:
        raise LptError(f"{path}: already transformed by LPT: {how}; give the quantized model it was made from")
