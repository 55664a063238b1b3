"""GroupConvolutionTransformation: the Convolution rewrite, with one activation scale per group.

Each group only reads its own input channels, so the activation scale may differ between
groups; after the layer it becomes one value per output channel of that group. Weights
usually come as [G*C_out, C_in, k...] behind a Reshape to [G, C_out, C_in, k...].
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from .convolution import ConvolutionTransformation
from .weightable_layer import groups_count


class GroupConvolutionTransformation(ConvolutionTransformation):
    name = "GroupConvolutionTransformation"
    reshape_is_required = True

    def applies_to(self, node: Node) -> bool:
        return True

    def input_channels(self, layer: Node) -> int:
        shape = layer.input_value(1).dims
        return shape[0] * shape[2]

    def transform(self, node: Node) -> bool:
        if self.skipped_by_callback(node):
            return self.reject(node, "asymmetric", "zero point not supported by the plugin config")
        if not self.can_be_transformed(node):
            return self.reject(node, "not_quantized", "weights or activation dequantization not supported")
        return self.transform_or_fold(node)

    def activation_scale(self, layer: Node, scales: np.ndarray) -> np.ndarray:
        """One value per output channel: the scale of the group that channel belongs to."""
        flat = np.asarray(scales).reshape(-1)
        groups = groups_count(layer)
        if groups <= 1:
            return super().activation_scale(layer, scales)
        if flat.size == 1:
            return np.asarray(scales)
        in_per_group = layer.input_value(0).dims[1] // groups
        out_shape = layer.output().dims
        out_per_group = out_shape[1] // groups
        per_channel = np.repeat(flat[::in_per_group][:groups], out_per_group)
        return per_channel.reshape((1, out_shape[1], *([1] * (len(out_shape) - 2))))
