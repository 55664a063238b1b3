"""FuseConvertTransformation: removes the Convert to f16/f32 in front of an elementwise op.

`x(u8) -> Convert(f32) -> Multiply/Subtract/Add(c)` becomes the same op reading u8 directly
(a type-relaxed op in OpenVINO: it computes in f32 and keeps its output type), and a
Convert of a Constant (also in front of a FakeQuantize) is folded into the Constant.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType, f16, f32
from ...dequantization import attributes
from ...surgery.constants import DISABLE_CONSTANT_FOLDING, constant, remove_unused
from ...engine.transformation import Transformation

_ELTWISE = ("Multiply", "Subtract", "Add")


def constant_fits(precision: ElementType, value: np.ndarray) -> bool:
    """NetworkHelper::checkConstantValuePrecision: a signed type takes any value, an unsigned
    one only non-negative values."""
    return precision.is_signed or bool(np.all(np.asarray(value, dtype=np.float32) >= 0))


class FuseConvertTransformation(Transformation):
    name = "FuseConvertTransformation"

    def applies_to(self, node: Node) -> bool:
        if node.type == "FakeQuantize":
            parent = node.input_node(0)
            return parent.type == "Convert" and parent.input_node(0).type == "Constant"
        return (node.type in _ELTWISE and node.input_node(0).type == "Convert"
                and node.input_node(1).type == "Constant")

    def transform(self, node: Node) -> bool:
        if attributes.is_cleanup_disabled(node):
            return self.reject(node, "cleanup_disabled", "marked DisableCleanup by an earlier transformation")
        convert = node.input_node(0)
        if convert.output().element_type not in (f16, f32):
            return self.reject(node, "convert_not_to_float", "the Convert does not produce f16/f32")
        parent = convert.input_value(0)
        if convert.annotations.get(DISABLE_CONSTANT_FOLDING):
            return self.reject(node, "decompression_kept", "compressed weights stay as the plugin keeps them")
        if parent.node.type == "Constant":
            folded = constant(self.graph, parent.node.value, convert.output().element_type)
            convert.output().replace_all_uses_with(folded)
            remove_unused(convert)
            return True
        if node.type == "Subtract" and not constant_fits(parent.element_type, node.input_node(1).value):
            return self.reject(node, "negative_zero_point", "an unsigned input cannot take a negative constant")
        self._replace_reading(node, parent)
        return True

    def _replace_reading(self, node: Node, source: Output) -> None:
        """A new `node` that reads `source` instead of the Convert; it takes over the name."""
        graph = self.graph
        out = node.output()
        fused = graph.add_node(node.type, [source, node.input_value(1)], outputs=[(out.element_type, out.shape)],
                               attrs=dict(node.attrs), version=node.version)
        fused.annotations.update(node.annotations)
        out.replace_all_uses_with(fused.output())
        name = node.name
        remove_unused(node)
        graph.rename(fused, name)
