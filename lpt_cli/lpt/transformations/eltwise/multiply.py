"""MultiplyTransformation (the older pass, runnable by name): both scales go after the product.

`(s1*(x1 - z1)) * (s2*(x2 - z2)) = s1*s2 * ((x1 - z1) * (x2 - z2))`: each zero point is
subtracted on the integer data directly, the two integer values are multiplied, and one
Multiply by s1*s2 follows. OpenVINO builds it on WeightableLayerTransformation, so an FQ on
input 1 is first decomposed like weights.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ...dequantization.attributes import disable_cleanup
from ...engine.layer_checks import can_be_transformed
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.rewrites import optimize_subtract
from .eltwise_base import binary, replace_node
from ...surgery.moving import separate_in_standalone_branch
from ...dequantization.precision import is_quantize_supported
from ...engine.transformation import Transformation
from ..weightable.weights_input import decompose_weights_fake_quantize


def _second_input_ok(node: Node, precisions: tuple) -> bool:
    """Input 1 is an FQ with static, equal output-interval shapes, or a usable dequantization."""
    reshape = node.input_node(1) if node.input_node(1).type == "Reshape" else None
    dq = get_dequantization(reshape, precisions, 0) if reshape else get_dequantization(node, precisions, 1)
    fq = reshape.input_node(0) if reshape else node.input_node(1)
    if fq.type != "FakeQuantize" and dq.data is not None and dq.data.node.type == "FakeQuantize":
        fq = dq.data.node
    if fq.type == "FakeQuantize":
        if not is_quantize_supported(fq) or len(fq.inputs) != 5:
            return False
        low, high = fq.input_value(3).shape, fq.input_value(4).shape
        return low is not None and low == high and all(d >= 0 for d in low) and fq.output().rank is not None
    if dq.empty:
        return False
    if dq.subtract_convert is not None and dq.subtract_constant is not None:
        return dq.subtract_constant.output().element_type == dq.source.element_type
    return True


def _scales(dq1: Dequantization, dq2: Dequantization) -> np.ndarray | None:
    """s1*s2, a dequantization-free constant input standing in for its scale; None if not constant."""
    values = []
    for dq in (dq1, dq2):
        if not dq.empty:
            values.append(dq.multiply_constant.value if dq.multiply_constant is not None else None)
        else:
            values.append(dq.source.node.value if dq.source.node.type == "Constant" else None)
    first, second = values
    if first is None or second is None:
        return None
    return np.multiply(first, second)


class MultiplyTransformation(Transformation):
    name = "MultiplyTransformation"
    revisits_created = False

    def transform(self, node: Node) -> bool:
        precisions = tuple(self.config.default_precisions)
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        dq = get_dequantization(node, precisions)
        if dq.multiply is None or not _second_input_ok(node, precisions):
            return self.reject(node, "not_quantized", "input 0 needs a scale and input 1 a quantization")
        separate_in_standalone_branch(node, precisions)
        decompose_weights_fake_quantize(node, precisions, self.config.update_precisions)
        dq1, dq2 = (get_dequantization(node, precisions, i) for i in (0, 1))
        if dq1.multiply is None and dq2.multiply is None:
            return self.reject(node, "no_scale", "neither input has a scale")
        scales = _scales(dq1, dq2)
        if scales is None:
            return self.reject(node, "no_scale", "the scales do not fold to a constant")
        deq, graph = self.config.deq_precision, node.graph
        out_type = node.output().element_type
        scale_constant = dq1.multiply_constant if dq1.multiply_constant is not None else dq2.multiply_constant
        assert scale_constant is not None, "one input has a scale (checked above)"
        new_scales = graph.add_constant(scales.astype(np.float32), scale_constant.constant_data.element_type)
        in1, in2 = self._operand(dq1, new_scales.output()), self._operand(dq2, new_scales.output())
        if any(dq.empty and dq.source.node.type == "Constant" for dq in (dq1, dq2)):
            replace_node(node, binary(graph, "Multiply", in1, in2, out_type))
            return True
        product = binary(graph, "Multiply", in1, in2, deq)
        disable_cleanup(product)
        replace_node(node, binary(graph, "Multiply", product.output(), new_scales.output(), out_type))
        return True

    @staticmethod
    def _operand(dq: Dequantization, scales: Output) -> Output:
        """What replaces a dequantized input: its integer data, minus its zero point if any."""
        if dq.empty:
            return scales
        if dq.subtract is None:
            return dq.source
        subtract = optimize_subtract(dq.subtract)
        if subtract is None:
            return dq.source
        disable_cleanup(subtract)
        return subtract.output()
