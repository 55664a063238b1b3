"""FoldConvertTransformation: a Subtract's `Convert(Constant)` operand (typically a u8 zero
point) becomes a Constant of the Convert's output type."""
from __future__ import annotations

from ....ir import Node
from ...dequantization import attributes
from ...surgery.constants import DISABLE_CONSTANT_FOLDING, constant, remove_unused
from ...engine.transformation import Transformation


def _is_converted_constant(node: Node) -> bool:
    """Convert(Constant), unless marked as compressed weights (the plugin's MarkDequantization)."""
    return (node.type == "Convert" and node.input_node(0).type == "Constant"
            and not node.annotations.get(DISABLE_CONSTANT_FOLDING))


class FoldConvertTransformation(Transformation):
    name = "FoldConvertTransformation"

    def transform(self, node: Node) -> bool:
        if attributes.is_cleanup_disabled(node):
            return self.reject(node, "cleanup_disabled", "marked DisableCleanup by an earlier transformation")
        if not any(_is_converted_constant(node.input_node(i)) for i in (1, 0)):
            return self.reject(node, "no_converted_constant", "no Convert(Constant) operand that may be folded")
        for index in (0, 1):
            convert = node.input_node(index)
            if _is_converted_constant(convert):
                out = convert.output()
                out.replace_all_uses_with(constant(self.graph, convert.input_node(0).value, out.element_type))
                remove_unused(convert)
        return True
