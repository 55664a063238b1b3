"""ConvolutionBackpropDataTransformation: the Convolution rewrite for transposed convolutions.

Weights are laid out [C_in, C_out, k...], so a weights scale or zero point may vary along
dim 1 only; a scale shaped [1, C_out, 1, ...] already matches the output layout and moves
after the layer as it is. The activation zero point keeps its own shape.
"""
from __future__ import annotations

from ....ir import Node, Output
from ...surgery.rewrites import optimize_multiplies_after
from ...surgery.moving import rename_for_result, separate_in_standalone_branch
from .weights_input import (
    decompose_weights_fake_quantize, fake_quantize_on_weights, fold_weights_dequantization, fold_weights_fake_quantize,
    weights_dequantization,
)
from .convolution import ConvolutionTransformation


class ConvolutionBackpropDataTransformation(ConvolutionTransformation):
    name = "ConvolutionBackpropDataTransformation"

    def applies_to(self, node: Node) -> bool:
        if len(node.inputs) not in (2, 3) or node.input_node(0).type != "Multiply":
            return False
        if len(node.inputs) == 3 and node.input_node(2).type != "Constant":
            return False
        return node.input_node(1).type in ("Multiply", "FakeQuantize")

    def input_channels(self, layer: Node) -> int:
        return layer.input_value(1).dims[0]

    def fold_weights(self, layer: Node) -> None:
        """Folds the weights FQ without rounding (when its interval shape is known), or the
        weights dequantization."""
        dq = weights_dequantization(layer, self.defaults)
        if not dq.empty:
            fold_weights_dequantization(layer, self.defaults)
            return
        fq = fake_quantize_on_weights(layer)
        if fq is not None and fq.input_value(1).is_static:
            fold_weights_fake_quantize(layer, round_values=False)

    def transform_convolution(self, node: Node) -> bool:
        separate_in_standalone_branch(node, self.defaults)
        activation_scale = self.move_activation_dequantization(node)
        decompose_weights_fake_quantize(node, self.defaults, self.config.update_precisions)
        if node.input_node(1).type != "Multiply":
            return True  # the weights FQ kept its float form: nothing to move
        optimize_multiplies_after(self.move_weights_dequantization(node))
        rename_for_result(node, activation_scale)
        self.mark_zero_points(node)
        return True

    def normalize_activation_zero_point(self, layer: Node, subtract: Node) -> None:
        """The activation zero point keeps its shape for this layer."""

    def weights_scale_shape(self, layer: Node, scale: Output) -> tuple[int, ...]:
        """The weights scale already has the output layout ([1, C_out, 1, ...] or a scalar)."""
        return tuple(scale.dims)

    def zero_point_shape(self, weights: Output, reshaped: bool) -> tuple[int, ...]:
        """The weights zero point along the output channels: [1, C_out, 1, ...]."""
        shape = [1] * len(weights.dims)
        shape[1] = weights.dims[1]
        return tuple(shape)
