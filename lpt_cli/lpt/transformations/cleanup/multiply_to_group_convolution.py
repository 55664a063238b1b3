"""MultiplyToGroupConvolutionTransformation: a per-channel dequantization left in front of
nothing quantized becomes a 1x1 depthwise GroupConvolution on the integer data, so the
plugin can run it in low precision: `Multiply(Subtract(Convert(x), zp), s)` ->
`Multiply(Add(GroupConvolution(x, identity), -zp), s)`.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType, f32
from ....ir.shapes import broadcast_shapes
from ...dequantization import attributes
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.fold_dequantization import fold_dequantization
from ...surgery.constants import cast, constant, remove_unused
from ...engine.transformation import Transformation

GROUP_SIZE = 1  # OpenVINO's default; plugins may set another


class MultiplyToGroupConvolutionTransformation(Transformation):
    name = "MultiplyToGroupConvolutionTransformation"

    def transform(self, node: Node) -> bool:
        problem = self._problem(node)
        if problem is not None:
            return self.reject(node, *problem)
        const_index = 1 if node.input_node(1).type == "Constant" else 0
        data_index = 1 - const_index
        dq = get_dequantization(node, self.config.default_precisions, data_index)
        if dq.data is None:
            return self.reject(node, "no_data", "no dequantization data in front of the Multiply")
        channels_in = node.input_value(data_index).dims[1]
        if channels_in < 0:
            return self.reject(node, "dynamic_channels", "the data channel dimension is not static")
        if dq.subtract_convert is not None:
            dq = fold_dequantization(node, data_index, self.config.default_precisions)
        weights_type = self._weights_precision(node, const_index, dq)
        channels_out = node.output().dims[1]
        rank = len(node.output().dims)
        weights = constant(self.graph, _identity_weights(channels_in, channels_out, rank), weights_type)
        last = self._group_convolution(dq.source, weights, channels_out, rank)
        if dq.subtract_constant is not None:  # (set together with dq.subtract)
            shift = -cast(dq.subtract_constant.value, f32).astype(np.float32)
            bias = self.graph.add_constant(shift, f32).output()
            last = self.graph.add_node("Add", [last, bias], outputs=[(f32, broadcast_shapes(last.shape, bias.shape))]
                                       ).output()
        old_data = node.input_value(data_index)
        scale = node.input_value(const_index)
        node.set_input(0, last)
        node.set_input(1, scale)
        remove_unused(old_data.node)
        return True

    def _problem(self, node: Node) -> tuple[str, str] | None:
        """canBeTransformed: why the Multiply cannot become a GroupConvolution, or None."""
        if attributes.is_cleanup_disabled(node):
            return "cleanup_disabled", "marked DisableCleanup by an earlier transformation"
        out = node.output().shape
        if out is None or len(out) not in (4, 5):
            return "rank", "output rank is not 4 or 5"
        data = node.input_value(0).shape
        if out[1] < 0 or out[1] % GROUP_SIZE != 0 or data is None or data[1] < 0:
            return "dynamic_channels", "the channel dimension is not static"
        first, second = node.input_node(0), node.input_node(1)
        if second.type == "Constant":
            data_index, const_shape = 0, second.constant_data.shape
            if first.type == "Constant" or (first.type == "Subtract" and first.input_node(0).type == "Constant"):
                return "constant_data", "both inputs are constant"
        elif first.type == "Constant":
            data_index, const_shape = 1, first.constant_data.shape
        else:
            return "no_constant", "no Constant input"
        if any(dim != 1 for dim in const_shape[2:]):
            return "not_per_channel", "the constant varies along spatial axes"
        allowed = self._restriction()
        if self.config.update_precisions and allowed:
            inputs = allowed[0][1]
            precision = get_dequantization(node, self.config.default_precisions, data_index).data
            if not inputs or precision is None or precision.element_type not in inputs:
                return "precision", "the data precision is not allowed for GroupConvolution"
        return None

    def _restriction(self) -> list[tuple[int, tuple[ElementType, ...]]]:
        """The GroupConvolution precision restriction for any rank, as (port, precisions) in config order."""
        restriction = self.config.precision_restriction("GroupConvolution", None)
        return list(restriction.ports.items()) if restriction is not None else []

    def _weights_precision(self, node: Node, const_index: int, dq: Dequantization) -> ElementType:
        if not self.config.update_precisions:
            return dq.source.element_type
        allowed = self._restriction()
        if len(allowed) > 1 and allowed[1][1]:
            return allowed[1][1][0]
        precisions = attributes.precisions_of(node.inputs[const_index]) or list(self.config.default_precisions)
        return precisions[0]

    def _group_convolution(self, data: Output, weights: Output, channels_out: int, rank: int) -> Output:
        spatial = rank - 2
        ones, zeros = ", ".join(["1"] * spatial), ", ".join(["0"] * spatial)
        shape = None if data.shape is None else (data.shape[0], channels_out, *data.shape[2:])
        conv = self.graph.add_node(
            "GroupConvolution", [data, weights], outputs=[(f32, shape)],
            attrs={"strides": ones, "pads_begin": zeros, "pads_end": zeros, "dilations": ones, "auto_pad": "explicit"})
        return conv.output()


def _identity_weights(channels_in: int, channels_out: int, rank: int) -> np.ndarray:
    """[group, C_out/group, C_in/group, 1...]: 1 where the in-group output index equals the kernel."""
    group = channels_out // GROUP_SIZE
    per_group_out = channels_out // group
    kernels = channels_in // group
    weights = np.zeros((group, per_group_out, kernels), dtype=np.float32)
    for out_channel in range(channels_out):
        index_in_group = out_channel % per_group_out
        if index_in_group < kernels:
            weights[out_channel // per_group_out, index_in_group, index_in_group] = 1.0
    return weights.reshape((group, per_group_out, kernels) + (1,) * (rank - 2))

