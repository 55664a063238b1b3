"""Pooling opset conversions CommonOptimizations runs before LPT, which knows MaxPool-1/AvgPool-1.

PyTorch's max_pool2d converts to MaxPool-14; the plugin turns it into MaxPool-8 (except for
`ceil_torch` rounding, which only v14 has) and a MaxPool-8 whose indices nobody reads (and
without dilation) into MaxPool-1. AvgPool-14 becomes AvgPool-1 on the same condition.
"""
from __future__ import annotations

from ...ir import Graph, Node

_MAX_POOL_1 = ("strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad")
_MAX_POOL_8 = (*_MAX_POOL_1, "dilations", "index_element_type", "axis")
_AVG_POOL_1 = ("strides", "pads_begin", "pads_end", "kernel", "exclude-pad", "rounding_type", "auto_pad")


def _replace(node: Node, version: str, keep: tuple[str, ...], outputs: int) -> Node:
    """A `version` twin of `node` with the attributes `keep` and its first `outputs` outputs."""
    graph = node.graph
    attrs = {key: node.attrs[key] for key in keep if key in node.attrs}
    name = node.name
    graph.rename(node, graph.unique_name(f"{name}/{node.version}"))
    new = graph.add_node(node.type, [node.input_value(0)], attrs=attrs, version=version, name=name,
                         outputs=[(o.element_type, o.shape) for o in node.outputs[:outputs]])
    new.xml_rt_info = node.xml_rt_info
    for old, out in zip(node.outputs, new.outputs):
        out.names = old.names
        old.replace_all_uses_with(out)
    graph.remove(node)
    return new


def _torch_rounding(node: Node) -> bool:
    return (node.attr("rounding_type") or "floor").lower() == "ceil_torch"


def convert_max_pool_14(graph: Graph) -> int:
    """MaxPool-14 -> MaxPool-8, unless its rounding is `ceil_torch` (the plugin's callback)."""
    pools = [n for n in graph if n.type == "MaxPool" and n.version == "opset14" and not _torch_rounding(n)]
    for node in pools:
        _replace(node, "opset8", _MAX_POOL_8, len(node.outputs))
    return len(pools)


def convert_max_pool_8(graph: Graph) -> int:
    """MaxPool-8 -> MaxPool-1 when the indices output is unused and there is no dilation."""
    pools = [n for n in graph if n.type == "MaxPool" and n.version == "opset8"
             and not any(out.uses for out in n.outputs[1:]) and all(d == 1 for d in n.attr_ints("dilations"))]
    for node in pools:
        _replace(node, "opset1", _MAX_POOL_1, 1)
    return len(pools)


def convert_avg_pool_14(graph: Graph) -> int:
    """AvgPool-14 -> AvgPool-1, unless its rounding is `ceil_torch`."""
    pools = [n for n in graph if n.type == "AvgPool" and n.version == "opset14" and not _torch_rounding(n)]
    for node in pools:
        _replace(node, "opset1", _AVG_POOL_1, 1)
    return len(pools)
