"""Replacing an op by its twin of another opset version, as the plugins' opset conversions do
before LPT (LPT matches some ops only in the versions it knows)."""
from __future__ import annotations

from collections.abc import Sequence

from ...ir import Node, Output


def replace_version(node: Node, version: str, keep: Sequence[str], outputs: int, *,
                    inputs: Sequence[Output] | None = None, attrs: dict[str, str] | None = None) -> Node:
    """A `version` twin of `node` with its name, rt_info and port names, the attributes `keep`
    (overridden by `attrs`) and its first `outputs` outputs, reading `inputs` (default: its own
    first input)."""
    graph = node.graph
    new_attrs = {key: node.attrs[key] for key in keep if key in node.attrs}
    new_attrs.update(attrs or {})
    name = node.name
    graph.rename(node, graph.unique_name(f"{name}/{node.version}"))
    new = graph.add_node(node.type, inputs if inputs is not None else [node.input_value(0)], attrs=new_attrs,
                         version=version, name=name,
                         outputs=[(o.element_type, o.shape) for o in node.outputs[:outputs]])
    new.xml_rt_info = node.xml_rt_info
    for old, out in zip(node.outputs, new.outputs):
        out.names = old.names
        old.replace_all_uses_with(out)
    graph.remove(node)
    return new
