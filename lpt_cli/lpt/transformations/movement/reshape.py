"""Reshape: a per-channel dequantization follows when the channel axis survives the reshape.

Either every axis the constants vary on lies before the first axis the reshape changes, or
the constants vary on the channel only and the reshape merges the channel with what follows
(then each channel value is repeated for the new, larger channel axis).
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ....ir.graph import Shape
from ...engine.layer_checks import is_constant_path
from ...surgery.channel_constants import constants, set_constant, to_scalar, with_leading_ones
from ...dequantization.chain import Dequantization
from ...surgery.constants import is_scalar_like
from .move_dequantization import MoveDequantizationTransformation, Refusal


def _last_varying_dim(dims: tuple[int, ...]) -> int:
    return max((i for i, d in enumerate(dims) if d != 1), default=0)


def _first_changed_dim(left: tuple[int, ...], right: tuple[int, ...]) -> int:
    return next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), min(len(left), len(right)))


def _with_batch(value: np.ndarray, rank: int) -> tuple[int, ...]:
    """A constant shape with ONE leading 1 added when it lacks the batch (OpenVINO's rule)."""
    dims = value.shape
    return (1, *dims) if 1 < len(dims) < rank else dims


class ReshapeTransformation(MoveDequantizationTransformation):
    name = "ReshapeTransformation"
    needs_per_channel = True

    def applies_to(self, node: Node) -> bool:
        if not super().applies_to(node) or len(node.inputs) < 2:
            return False
        multiply = node.input_node(0)
        scales = [multiply.input_node(i) for i in (0, 1) if multiply.input_node(i).type == "Constant"]
        if not scales:
            return False
        # a shape computed at run time can only carry a one-value scale
        return node.input_node(1).type == "Constant" or any(c.constant_data.count == 1 for c in scales)

    def transform(self, node: Node) -> bool:
        if is_constant_path(node):
            return False
        return super().transform(node)

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        parts = constants(dq)
        if not self._ignore_per_tensor_shortcut(node) and all(is_scalar_like(c.value) for _, c in parts):
            return None
        out, inp = node.output().shape, node.input_value(0).shape
        if out is None or len(out) < 2 or out[1] < 0 or inp is None:
            return "dynamic_channel", "the output channel or the input rank is dynamic"
        shapes = [_with_batch(c.value, len(inp)) for _, c in parts]
        for dims in shapes:
            if len(dims) == 1 and dims[0] != 1:
                return "vector_constant", "a 1-D per-channel constant has no channel position to follow"
            if len(dims) > 1 and (out[1] < dims[1] or (all(d >= 0 for d in out) and out[1] % dims[1])):
                return "channel_split", "the reshape splits the dequantized channel axis"
        if len(inp) < 2 or inp[0] != out[0]:
            return "batch_changed", "the reshape changes the batch"
        last = max((_last_varying_dim(d) for d in shapes), default=0)
        first = _first_changed_dim(inp, out)
        if (last, first) != (1, 1) and last >= first:
            return "channel_reshaped", "the reshape changes an axis the dequantization varies on"
        return None

    def _ignore_per_tensor_shortcut(self, node: Node) -> bool:
        if not self.config.param("reshape_ignore_per_tensor_quantization_check", False):
            return False
        uses = node.output().uses
        return len(uses) == 1 and uses[0].node.type == "MatMul"

    def prepare(self, node: Node, dq: Dequantization) -> None:
        in_rank = node.input_value(0).rank or 0
        out = node.output().shape
        for part, constant in constants(dq):
            value = constant.value
            if is_scalar_like(value):
                if value.ndim:
                    set_constant(dq, part, to_scalar(value))
                continue
            set_constant(dq, part, _channel_constant(value, in_rank, out))


def _channel_constant(value: np.ndarray, in_rank: int, out: Shape) -> np.ndarray:
    """The constant as [1, C_out, 1, ...], each input channel value repeated C_out / C_in times."""
    assert out is not None
    if value.ndim > 1:
        value = with_leading_ones(value, in_rank)
    repeat = out[1] // value.shape[1]
    if repeat == 0:
        return value
    if repeat > 1:
        target = list(value.shape)
        target[0 if value.ndim == 2 else 2] = repeat
        value = np.broadcast_to(value, target)
    return np.reshape(value, [1, out[1]] + [1] * (len(out) - 2))
