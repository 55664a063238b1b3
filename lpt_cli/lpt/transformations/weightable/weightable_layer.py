"""WeightableLayerTransformation: what Convolution, GroupConvolution and
ConvolutionBackpropData check before they move dequantization across a layer with weights.

A weights dequantization can only move after the layer if it varies along the output
channels alone (the layer sums over everything else), so the checks are mostly about
which weights dimensions a scale, zero point or FQ interval may vary along. The
activation side needs one scale per tensor (per group for a GroupConvolution).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ....ir import Node
from ....ir.eltypes import ElementType, i8, u8
from ...dequantization.chain import Dequantization, constant_is_per_channel, get_dequantization
from ...surgery.rewrites import optimize_subtract
from ...engine.layer_checks import can_be_transformed as base_can_be_transformed
from ...dequantization.precision import DataPrecision, is_quantize_supported, is_supported_precision, max_value, min_value
from ...engine.transformation import Transformation
from .weights_input import data_precision_on_weights, fake_quantize_on_weights, weights_dequantization, weights_reshape


def weights_dq_axes(layer: Node) -> tuple[int, ...]:
    """Weights dimensions a weights dequantization may vary along (the output channels)."""
    if layer.type == "Convolution":
        return (0,)
    if layer.type == "ConvolutionBackpropData":
        return (1,)
    if layer.type == "GroupConvolution":
        return (0,) if weights_reshape(layer) is not None else (0, 1)
    return ()


def check_const_shape(axes: Sequence[int], shape: Sequence[int]) -> bool:
    """The constant has one value, or varies only along `axes`."""
    size = math.prod(shape)
    if size == 1:
        return True
    volume = 1
    for axis in axes:
        volume *= shape[axis] if axis < len(shape) else 1
    return size == volume


def groups_count(layer: Node) -> int:
    """Groups of a (Group)Convolution: weights dim 0 of a GroupConvolution, else 1."""
    if layer.type == "GroupConvolution":
        shape = layer.input_value(1).shape
        return shape[0] if shape else 1
    return 1


def is_group(layer: Node) -> bool:
    return layer.type in ("Convolution", "GroupConvolution") and groups_count(layer) != 1


def _dq_constants_fit(dq: Dequantization, axes: Sequence[int]) -> bool:
    return all(const is None or check_const_shape(axes, const.constant_data.shape)
               for const in (dq.subtract_constant if dq.subtract else None,
                             dq.multiply_constant if dq.multiply else None))


def is_quantized_static(layer: Node, reshape_is_required: bool, defaults: Sequence[ElementType]) -> bool:
    """isQuantizedStatic: the weights are an FQ with supported intervals, or a dequantized
    integer Constant / FQ whose constants vary only along the output channels."""
    parent = layer.input_node(1)
    if reshape_is_required:
        parent = parent.input_node(0) if parent.type == "Reshape" else parent
        if parent.type == "FakeQuantize":
            return is_quantize_supported(parent)
        dq = get_dequantization(parent, defaults, in_place=True)
    elif parent.type == "FakeQuantize":
        return is_quantize_supported(parent)
    else:
        dq = get_dequantization(layer, defaults, 1)
    axes = weights_dq_axes(layer)
    if dq.empty or not _dq_constants_fit(dq, axes):
        return False
    data = dq.source.node
    if data.type == "Convert":
        data = data.input_node(0)
    if data.type == "Constant":
        if not is_supported_precision(dq.source.element_type):
            return False
        return not (dq.subtract_constant is not None and dq.subtract_convert is not None
                    and dq.subtract_constant.output().element_type != dq.source.element_type)
    if data.type == "FakeQuantize":
        return all(check_const_shape(axes, data.input_node(i).constant_data.shape)
                   for i in range(1, len(data.inputs)) if data.input_node(i).type == "Constant")
    return False


def can_subtract_be_handled(dq: Dequantization, update_precisions: bool) -> bool:
    """A zero point can stay on the integer data: u8/i8 data and a constant of that type."""
    if dq.empty or dq.subtract is None or not update_precisions:
        return True
    source = dq.convert.input_value(0) if dq.convert is not None else dq.subtract.input_value(0)
    if source.element_type not in (u8, i8):
        return False
    parent = dq.subtract.input_node(1)
    if parent.type == "Constant":
        return True
    return (parent.type == "Convert" and parent.input_node(0).type == "Constant"
            and parent.input_value(0).element_type == source.element_type)


def check_subtract_zero_point(subtract: Node | None) -> bool:
    """checkZeroPoint(Subtract): an 8-bit zero point must lie in the type's range (+-0.5)."""
    if subtract is None:
        return True
    parent = subtract.input_node(0)
    source = (parent if parent.type == "Convert" else subtract).input_value(0).element_type
    if source not in (u8, i8):
        return source.name in ("f32", "f16")
    low, high = min_value(source, 256) - 0.5, max_value(source, 256) + 0.5
    shift = subtract.input_node(1)
    if shift.type == "Convert":
        return True
    if shift.type != "Constant":
        return False
    values = shift.value.astype(np.float32)
    return bool(np.all((values >= low) & (values <= high)))


def check_fake_quantize_zero_point(fq: Node, precision: DataPrecision) -> bool:
    """checkZeroPoint(FakeQuantize): the zero point the FQ would need fits the integer range."""
    if not precision.has_zero_point:
        return True
    lows, highs = (np.ascontiguousarray(v).reshape(-1) for v in np.broadcast_arrays(
        np.asarray(fq.input_node(3).value, dtype=np.float32), np.asarray(fq.input_node(4).value, dtype=np.float32)))
    mn, mx = np.float32(precision.min), np.float32(precision.max)
    with np.errstate(divide="ignore", invalid="ignore"):
        shifts = np.where(highs != lows, (mn * highs - mx * lows) / (highs - lows), np.float32(0))
    return bool(np.all((shifts >= mn - np.float32(0.5)) & (shifts <= mx + np.float32(0.5))))


class WeightableLayerTransformation(Transformation):
    """Base of the Convolution-like transformations: the weights and activation checks."""

    reshape_is_required: ClassVar[bool] = False  # GroupConvolution looks through a weights Reshape

    @property
    def defaults(self) -> tuple[ElementType, ...]:
        return tuple(self.config.default_precisions)

    def is_quantized(self, layer: Node) -> bool:
        return is_quantized_static(layer, self.reshape_is_required, self.defaults)

    def skipped_by_callback(self, layer: Node) -> bool:
        """The plugin callback: symmetric-only activations or weights per the config."""
        if not self.config.asymmetric_quantization and is_asymmetric_quantization(layer, self.defaults):
            return True
        return not self.config.asymmetric_weights and is_asymmetric_on_weights(layer, self.defaults)

    def can_be_transformed(self, layer: Node) -> bool:
        """WeightableLayerTransformation::canBeTransformed."""
        if not self.is_quantized(layer) or not base_can_be_transformed(layer, self.defaults):
            return False
        if layer.input_value(0).rank is None or not layer.input_value(1).is_static:
            return False
        dq = get_dequantization(layer, self.defaults)
        if not (_group_activation_ok(layer, dq) if is_group(layer) else _activation_ok(dq)):
            return False
        fq = _weights_fake_quantize(layer, self.defaults)
        if fq is not None:
            return _weights_fake_quantize_ok(layer, fq)
        return _weights_dequantization_ok(layer, weights_dequantization(layer, self.defaults))

    def can_convolution_be_transformed(self, layer: Node) -> bool:
        """canConvolutionBeTransformed: the base checks plus zero points that fit 8 bits."""
        if not self.can_be_transformed(layer):
            return False
        dq = get_dequantization(layer, self.defaults)
        update = self.config.update_precisions
        if not can_subtract_be_handled(dq, update) or not check_subtract_zero_point(dq.subtract):
            return False
        if update and not dq.empty and not dq.is_low_precision:
            return False
        weights_dq = weights_dequantization(layer, self.defaults)
        if not weights_dq.empty:
            return check_subtract_zero_point(weights_dq.subtract)
        precision = data_precision_on_weights(layer, self.defaults)
        fq = fake_quantize_on_weights(layer)
        return precision is not None and fq is not None and check_fake_quantize_zero_point(fq, precision)


def is_asymmetric_quantization(layer: Node, defaults: Sequence[ElementType]) -> bool:
    """isAsymmetricQuantization: the activation dequantization has a zero point."""
    dq = get_dequantization(layer, defaults)
    return not dq.empty and dq.subtract is not None


def is_asymmetric_on_weights(layer: Node, defaults: Sequence[ElementType]) -> bool:
    """isAsymmetricOnWeights: the weights need a zero point. Like OpenVINO, a weights
    Subtract is optimized (rounded onto the integer weights) while asking."""
    dq = weights_dequantization(layer, defaults)
    if dq.empty:
        precision = data_precision_on_weights(layer, defaults)
        return precision is not None and precision.has_zero_point
    return dq.subtract is not None and optimize_subtract(dq.subtract) is not None


def _activation_ok(dq: Dequantization) -> bool:
    """Non-group layers need one activation scale (a per-channel constant of equal values is fine)."""
    if dq.multiply is None or dq.multiply_constant is None:
        return False
    scales = dq.multiply_constant.value.reshape(-1).astype(np.float32)
    return bool(np.all(scales == scales[0])) if scales.size else True


def _group_activation_ok(layer: Node, dq: Dequantization) -> bool:
    """Group layers accept per-channel scales that are constant inside each group."""
    if dq.empty or dq.multiply is None or dq.multiply_constant is None:
        return False
    if not constant_is_per_channel(dq.multiply, dq.multiply_constant, dq.channel_dim):
        return False
    scales = dq.multiply_constant.value.reshape(-1).astype(np.float32)
    if scales.size == 1:
        return True
    groups = groups_count(layer)
    per_group = layer.input_value(0).dims[1] // groups
    if per_group >= 1 and scales.size == groups * per_group:
        # the scales split exactly into the groups: one comparison for all of them (a depthwise
        # layer has a group per channel; a numpy call per group was most of this pass's time)
        grouped = scales.reshape(groups, per_group)
        if (grouped != grouped[:, :1]).any():
            return False
    else:
        for group in range(groups):
            chunk = scales[group * per_group:(group + 1) * per_group]
            if np.any(chunk != chunk[0]):
                return False
    rank = layer.output().rank
    return rank is not None and 3 <= rank <= 5


def _weights_fake_quantize(layer: Node, defaults: Sequence[ElementType]) -> Node | None:
    """The FQ on the weights: at the weights port (or under its Reshape), or as the data of
    the weights dequantization (the FQ + DQ form)."""
    reshape = weights_reshape(layer)
    node = (reshape.input_node(0) if reshape is not None else layer.input_node(1))
    if node.type == "FakeQuantize":
        return node
    data = weights_dequantization(layer, defaults).data
    return data.node if data is not None and data.node.type == "FakeQuantize" else None


def _weights_fake_quantize_ok(layer: Node, fq: Node) -> bool:
    """The FQ intervals vary along the output channels only and match the weights dims."""
    if not is_quantize_supported(fq) or len(fq.inputs) != 5:
        return False
    low, high = fq.input_value(3).shape, fq.input_value(4).shape
    out = fq.output().shape
    if low is None or high is None or low != high or out is None:
        return False
    size = math.prod(low)
    axes = weights_dq_axes(layer)
    volume = 1
    for axis in axes:
        if out[axis] < 0:
            return False
        if size != 1:
            if len(low) <= axis or (low[axis] != 1 and out[axis] != low[axis]):
                return False
            volume *= low[axis]
    return not axes or size == 1 or size == volume


def _weights_dequantization_ok(layer: Node, dq: Dequantization) -> bool:
    """Compressed weights: a low-precision Constant whose DQ constants vary per output channel."""
    if dq.empty or dq.data is None or dq.data.node.type != "Constant":
        return False
    if not is_supported_precision(dq.data.element_type):
        return False
    if dq.subtract_constant is not None and dq.subtract_convert is not None \
            and dq.subtract_constant.output().element_type != dq.data.element_type:
        return False
    axes = weights_dq_axes(layer)
    return not axes or _dq_constants_fit(dq, axes)
