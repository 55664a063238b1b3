"""LinOpSequenceFusion as one of LPT's prerequisites (the rewrites: common_optimizations/lin_op_sequence.py)."""
from __future__ import annotations

from ....ir import Node
from ...common_optimizations.lin_op_sequence import fuse_lin_op_sequence
from ...engine.transformation import Transformation


class LinOpSequenceFusion(Transformation):
    name = "LinOpSequenceFusion"

    def transform(self, node: Node) -> bool:
        return fuse_lin_op_sequence(self.graph, node)
