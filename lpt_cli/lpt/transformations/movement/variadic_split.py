"""VariadicSplit: Split with explicit section lengths (one of them may be -1)."""
from __future__ import annotations

from ....ir import Node
from .split import SplitTransformation


class VariadicSplitTransformation(SplitTransformation):
    name = "VariadicSplitTransformation"

    def applies_to(self, node: Node) -> bool:
        return super().applies_to(node) and node.input_node(2).type == "Constant"

    def section_sizes(self, node: Node, length: int) -> list[int]:
        lengths = [int(v) for v in node.input_node(2).value.reshape(-1)]
        known = sum(v for v in lengths if v >= 0)
        return [length - known if v < 0 else v for v in lengths]
