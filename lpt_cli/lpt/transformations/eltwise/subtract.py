"""SubtractTransformation (runnable by name): a constant subtracted after a dequantization joins it.

`s*(x - z) - c = s*(x - (z + c/s))`: the constant moves above the scale and merges with the
zero point, so the chain stays Convert -> Subtract -> Multiply.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...engine.layer_checks import can_be_transformed
from ...dequantization.chain import get_dequantization
from .eltwise_base import binary, replace_node
from ...engine.transformation import Transformation


class SubtractTransformation(Transformation):
    name = "SubtractTransformation"
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.input_node(0).type in ("Convert", "Multiply") and node.input_node(1).type == "Constant"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        graph, out_type = node.graph, node.output().element_type
        dq = get_dequantization(node, precisions)
        subtract = node
        if dq.multiply is not None:
            data = dq.multiply.input_value(0 if dq.multiply.input_node(1) is dq.multiply_constant else 1)
            shift: np.ndarray = subtract.input_node(1).value.astype(np.float32) / dq.scale.astype(np.float32)
            new_subtract = binary(graph, "Subtract", data,
                                  graph.add_constant(shift, subtract.input_value(1).element_type).output(),
                                  data.element_type)
            assert dq.multiply_constant is not None, "dq.scale was read from it"
            multiply = binary(graph, "Multiply", new_subtract.output(), dq.multiply_constant.output(), out_type)
            replace_node(subtract, multiply)
            subtract = new_subtract
        if dq.subtract is not None:
            shift = subtract.input_node(1).value.astype(np.float32) + dq.shift.astype(np.float32)
            data = dq.subtract.input_value(0 if dq.subtract.input_node(1) in
                                           (dq.subtract_constant, dq.subtract_convert) else 1)
            merged = binary(graph, "Subtract", data,
                            graph.add_constant(shift, subtract.input_value(1).element_type).output(),
                            subtract.output().element_type)
            replace_node(subtract, merged)
        return True
