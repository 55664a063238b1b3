"""Broadcast (v1, v3 with or without an axes-mapping input): a per-channel dequantization follows
when the broadcast leaves the channel dimension as it is (and, in explicit mode, maps it to itself).

The target shape need not be a Constant: OpenVINO compares the channel dimension of the output
with the input's (a Broadcast of a constant to a shape computed at run time, as PyTorch's
`zeros(batch, ...)` exports, moves its dequantization too).
"""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal


class BroadcastTransformation(MoveDequantizationTransformation):
    name = "BroadcastTransformation"
    op_versions = ("opset1", "opset3")
    needs_per_channel = True

    def applies_to(self, node: Node) -> bool:
        # Broadcast-1 always has its axes-mapping input in OpenVINO (a dummy one when the IR gives
        # two); Broadcast-3 matches with two inputs or three.
        return super().applies_to(node) and len(node.inputs) in (2, 3)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if dq.is_per_tensor():
            return None
        channel = dq.channel_dim
        shape, out = node.input_value(0).shape, node.output().shape
        if shape is None or channel >= len(shape) or shape[channel] < 0:
            return "dynamic_channel", "the channel dimension is not static"
        if out is None or channel >= len(out) or out[channel] != shape[channel]:
            return "channel_broadcast", "the channel dimension is broadcast"
        if node.attrs.get("mode", "numpy").strip().lower() == "explicit" and len(node.inputs) == 3:
            mapping = node.input_node(2)
            if mapping.type != "Constant":
                return "non_constant_shape", "the axes mapping is not a Constant"
            axes = mapping.value.reshape(-1).tolist()
            if channel >= len(axes) or axes[channel] != channel:
                return "channel_remapped", "the axes mapping moves the channel dimension"
        return None
