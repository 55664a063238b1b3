"""ConvolutionTransformation: a quantized Convolution runs on u8/i8 data and i8 weights.

`conv(s_a * (x - z_a), s_w * (w - z_w)) = s_a * s_w * conv(x - z_a, w - z_w)` when s_a is
one value and s_w varies per output channel only. So the activation scale and the weights
scale leave the layer as one Multiply after it; the zero points stay in front of it as
Subtracts on the integer tensors (the plugins fuse them into the kernel). When the layer
cannot be transformed, its weights are still folded to a float Constant.
"""
from __future__ import annotations

import math

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType
from ...dequantization.attributes import disable_cleanup
from ...dequantization.chain import data_branch, get_dequantization
from ...dequantization.fake_quantize_math import fold_fake_quantize
from ...surgery.rewrites import disable_constant_folding, optimize_multiplies_after, optimize_subtract
from ...surgery.constants import cast, remove_unused
from ...surgery.moving import redirect_consumers, rename_for_result, separate_in_standalone_branch
from .weightable_layer import WeightableLayerTransformation
from .weights_input import (
    decompose_weights_fake_quantize, fold_weights_dequantization, fold_reshape, fold_weights_fake_quantize,
    weights_dequantization, weights_reshape,
)


def insert_multiply_after(layer: Node, scale: np.ndarray, etype: ElementType, out_type: ElementType) -> Node:
    """A Multiply by `scale` (a new Constant of `etype`) that now feeds `layer`'s consumers.

    Named `LAYER/DequantizationMultiply` (OpenVINO leaves it unnamed): the plugin names the fused
    INT8 kernel after it, and users must find their layer in its performance counters."""
    graph = layer.graph
    out = layer.output()
    consumers = out.consumers()
    constant = graph.add_constant(cast(scale, etype), etype)
    multiply = graph.add_node("Multiply", [out, constant.output()], outputs=[(out_type, out.shape)],
                              name=graph.unique_name(f"{layer.name}/DequantizationMultiply"))
    redirect_consumers(consumers, multiply.output(), out)
    return multiply


def bypass_convert(layer: Node, index: int) -> None:
    """The layer reads the input of the Convert on input `index` (u8/i8 data directly)."""
    convert = layer.input_node(index)
    if convert.type == "Convert":
        layer.set_input(index, convert.input_value(0))
        remove_unused(convert)


def broadcast_constant_input(node: Node, index: int, shape: tuple[int, ...]) -> None:
    """Replaces the constant on input `index` of `node` by its value broadcast to `shape`."""
    old = node.input_value(index)
    value = np.broadcast_to(old.node.value, shape) if old.node.type == "Constant" else None
    if value is None:
        return
    constant = node.graph.add_constant(np.array(value), old.element_type)
    node.set_input(index, constant.output())
    remove_unused(old.node)


class ConvolutionTransformation(WeightableLayerTransformation):
    name = "ConvolutionTransformation"

    def applies_to(self, node: Node) -> bool:
        return (len(node.inputs) == 2 and node.input_node(0).type == "Multiply"
                and node.input_node(1).type in ("Multiply", "FakeQuantize"))

    def input_channels(self, layer: Node) -> int:
        return layer.input_value(1).dims[1]

    def transform(self, node: Node) -> bool:
        if self.skipped_by_callback(node):
            return self.reject(node, "asymmetric", "zero point not supported by the plugin config")
        return self.transform_or_fold(node)

    def transform_or_fold(self, node: Node) -> bool:
        """Transforms the layer, or folds its weights when it cannot be transformed."""
        if not self.can_convolution_be_transformed(node):
            self.fold_weights(node)
            self.reject(node, "not_quantized", "weights folded, dequantization kept before the layer")
            return True  # OpenVINO reports the weights folding as a match
        return self.transform_convolution(node)

    def fold_weights(self, layer: Node) -> None:
        """The weights of a layer that stays in float: FQ or dequantization folded to a Constant."""
        dq = weights_dequantization(layer, self.defaults)
        if dq.empty:
            fold_weights_fake_quantize(layer, round_values=None)
        else:
            fold_weights_dequantization(layer, self.defaults)

    def transform_convolution(self, node: Node) -> bool:
        separate_in_standalone_branch(node, self.defaults)
        decomposed = decompose_weights_fake_quantize(node, self.defaults, self.config.update_precisions)
        if self.config.update_precisions and not decomposed:
            return self.reject(node, "weights_not_quantized", "the weights FakeQuantize has no integer precision")
        activation_scale = self.move_activation_dequantization(node)
        if not self.config.update_precisions and not decomposed:
            return False
        optimize_multiplies_after(self.move_weights_dequantization(node))
        rename_for_result(node, activation_scale)
        self.mark_zero_points(node)
        return True

    def activation_scale(self, layer: Node, scales: np.ndarray) -> np.ndarray:
        """The activation scale after the layer: one value (per output channel for groups)."""
        return np.asarray(scales).reshape(-1)[:1]

    def move_activation_dequantization(self, layer: Node) -> Node:
        """Zero point kept (rounded onto u8/i8) before the layer, scale moved after it."""
        dq = get_dequantization(layer, self.defaults)
        if dq.subtract is not None:
            subtract = optimize_subtract(dq.subtract)
            if subtract is not None:
                self.normalize_activation_zero_point(layer, subtract)
        multiply = dq.multiply
        assert multiply is not None and dq.multiply_constant is not None, "can_be_transformed required a scale"
        scale = self.activation_scale(layer, dq.multiply_constant.value)
        out_type = multiply.output().element_type
        layer.set_input(0, multiply.input_value(data_branch(multiply)))
        remove_unused(multiply)
        deq = self.config.deq_precision
        layer.output().element_type = deq
        new_multiply = insert_multiply_after(layer, scale, deq, out_type)
        bypass_convert(layer, 0)
        return new_multiply

    def normalize_activation_zero_point(self, layer: Node, subtract: Node) -> None:
        """Broadcasts the zero point to [1, C_in, 1, ...], the shape the CPU plugin expects."""
        out_shape = subtract.output().shape
        if out_shape is None or out_shape == subtract.input_value(1).shape:
            return
        shape = [1] * len(out_shape)
        shape[1] = self.input_channels(layer)
        broadcast_constant_input(subtract, 1, tuple(shape))

    def weights_scale_shape(self, layer: Node, scale: Output) -> tuple[int, ...]:
        """[1, C_out, 1, ...] for a per-channel weights scale, a scalar for one value."""
        if math.prod(scale.dims) == 1:
            return ()
        out_shape = layer.output().dims
        return (1, out_shape[1], *([1] * (len(out_shape) - 2)))

    def zero_point_shape(self, weights: Output, reshaped: bool) -> tuple[int, ...]:
        """The weights zero point per output channel: [C_out, 1, ...] ([G, C_out/G, 1, ...] for
        5-D group weights without a Reshape)."""
        shape = [1] * len(weights.dims)
        shape[0] = weights.dims[0]
        if not reshaped and len(shape) == 5:
            shape[1] = weights.dims[1]
        return tuple(shape)

    def move_weights_dequantization(self, layer: Node) -> Node:
        """Weights scale moved after the layer, zero point kept on the integer weights."""
        dq = weights_dequantization(layer, self.defaults)
        if dq.data is not None and dq.data.node.type == "FakeQuantize":
            self.fold_fake_quantize_under_dequantization(dq.data.node)
            dq = weights_dequantization(layer, self.defaults)
        reshape = weights_reshape(layer)
        multiply = dq.multiply
        assert multiply is not None, "can_be_transformed required a weights scale"
        scale_value = multiply.input_node(1 - data_branch(multiply)).value
        scale_shape = self.weights_scale_shape(layer, multiply.input_value(1 - data_branch(multiply)))
        weights = multiply.input_value(data_branch(multiply))
        self.rewire_weights(layer, reshape, weights)
        new_multiply = insert_multiply_after(layer, np.reshape(scale_value, scale_shape),
                                             self.config.deq_precision, multiply.output().element_type)
        remove_unused(multiply)
        subtract = weights.node if weights.node.type == "Subtract" else None
        if subtract is not None:
            subtract = optimize_subtract(subtract)
        if subtract is not None:
            broadcast_constant_input(subtract, 1, self.zero_point_shape(subtract.input_value(0), reshape is not None))
        self.remove_weights_convert(layer, subtract)
        self.fold_weights_reshape(layer)
        return new_multiply

    def fold_fake_quantize_under_dequantization(self, fq: Node) -> None:
        """FQ + DQ weights: the FQ (integer output) folds, rounded, into its Constant."""
        folded = fold_fake_quantize(fq, round_values=True)
        if folded is not None:
            fq.output().replace_all_uses_with(folded)
            remove_unused(fq)

    def rewire_weights(self, layer: Node, reshape: Node | None, weights: Output) -> None:
        """The layer (or its weights Reshape) reads `weights` instead of the weights Multiply."""
        if reshape is None:
            layer.set_input(1, weights)
        else:
            reshape.set_input(0, weights)

    def remove_weights_convert(self, layer: Node, subtract: Node | None) -> None:
        """The integer weights go in without their Convert (when no zero point needs it)."""
        reshape = weights_reshape(layer)
        consumer = subtract if subtract is not None else (reshape if reshape is not None else layer)
        index = 0 if consumer is not layer else 1
        bypass_convert(consumer, index)

    def fold_weights_reshape(self, layer: Node) -> None:
        reshape = weights_reshape(layer)
        if reshape is None:
            return
        folded = fold_reshape(reshape.input_value(0), reshape)
        if folded.node.type == "Constant":
            layer.set_input(1, folded)
            remove_unused(reshape)
        else:
            remove_unused(folded.node)

    def mark_zero_points(self, layer: Node) -> None:
        """Cleanup must not fuse the activation zero point; folding must keep the weights one."""
        if layer.input_node(0).type == "Subtract":
            disable_cleanup(layer.input_node(0))
        weights = layer.input_node(1)
        if weights.type == "Reshape":
            weights = weights.input_node(0)
        if weights.type == "Subtract":
            disable_constant_folding(weights)
