"""MaxPoolTransformation: max commutes with a non-decreasing affine map, so the DQ moves after it."""
from __future__ import annotations

import numpy as np

from ...ir import Node
from ..dequantization import get_dequantization
from ..base_checks import dequantization_refusal
from ..moving import move_dequantization_after, separate_in_standalone_branch
from ..transformation import Transformation

_V1_ATTRS = ("strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad")


def downgradable(node: Node) -> bool:
    """A MaxPool-8 that equals a MaxPool-1: its indices output is unused and it has no dilation."""
    return (node.version == "opset8" and not any(out.uses for out in node.outputs[1:])
            and all(d == 1 for d in node.attr_ints("dilations")))


def downgrade(node: Node) -> Node:
    """The MaxPool-1 that replaces the MaxPool-8 `node` (same name, data output only)."""
    graph, out = node.graph, node.output()
    attrs = {key: node.attrs[key] for key in _V1_ATTRS if key in node.attrs}
    name = node.name
    graph.rename(node, graph.unique_name(f"{name}/v8"))
    new = graph.add_node("MaxPool", [node.input_value(0)], outputs=[(out.element_type, out.shape)],
                         attrs=attrs, version="opset1", name=name)
    new.output().names = out.names
    out.replace_all_uses_with(new.output())
    graph.remove(node)
    return new


class MaxPoolTransformation(Transformation):
    name = "MaxPoolTransformation"
    op_types = ("MaxPool",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        # `max_pool_v8_as_v1`: the plugin's common optimizations turn such a MaxPool-8 into a
        # MaxPool-1 before LPT runs (CPU and GPU alike), so LPT sees it as one.
        version_ok = node.version == "opset1" or (self.config.param("max_pool_v8_as_v1", False)
                                                   and downgradable(node))
        return version_ok and node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        refusal = dequantization_refusal(node, precisions)
        if refusal is not None:
            return self.reject(node, *refusal)
        if np.any(get_dequantization(node, precisions).scale < 0):
            return self.reject(node, "negative_scale", "a negative scale does not commute with max")
        if node.version != "opset1":
            node = downgrade(node)
        separate_in_standalone_branch(node, precisions)
        move_dequantization_after(node, get_dequantization(node, precisions))
        return True
