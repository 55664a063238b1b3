"""Broadcast (v1/v3 with explicit axes mapping): a per-channel dequantization follows when the
channel axis is neither resized nor remapped."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal


class BroadcastTransformation(MoveDequantizationTransformation):
    name = "BroadcastTransformation"
    needs_per_channel = True

    def applies_to(self, node: Node) -> bool:
        return super().applies_to(node) and len(node.inputs) == 3

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if dq.is_per_tensor():
            return None
        channel = dq.channel_dim
        shape = node.input_value(0).shape
        if shape is None or channel >= len(shape) or shape[channel] < 0:
            return "dynamic_channel", "the channel dimension is not static"
        target, mapping = node.input_node(1), node.input_node(2)
        if target.type != "Constant" or mapping.type != "Constant":
            return "non_constant_shape", "target shape or axes mapping is not a Constant"
        target_dims = target.value.reshape(-1).tolist()
        axes = mapping.value.reshape(-1).tolist()
        if channel >= len(target_dims) or target_dims[channel] != shape[channel]:
            return "channel_broadcast", "the channel dimension is broadcast"
        if channel >= len(axes) or axes[channel] != channel:
            return "channel_remapped", "the axes mapping moves the channel dimension"
        return None
