"""ShuffleChannels: constants that vary along the shuffled axis are shuffled the same way."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...engine.layer_checks import static_output_ranks
from ...surgery.channel_constants import constants, set_constant, to_scalar, with_leading_ones
from ...dequantization.chain import Dequantization
from .move_dequantization import MoveDequantizationTransformation, Refusal


def shuffle(value: np.ndarray, axis: int, group: int) -> np.ndarray:
    """ShuffleChannels on a numpy array: split `axis` into (group, n), swap, flatten back."""
    shape = value.shape
    split = shape[:axis] + (group, shape[axis] // group) + shape[axis + 1:]
    return np.swapaxes(value.reshape(split), axis, axis + 1).reshape(shape)


class ShuffleChannelsTransformation(MoveDequantizationTransformation):
    name = "ShuffleChannelsTransformation"

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if not static_output_ranks(node) or node.input_value(0).rank is None:
            return "dynamic_rank", "the rank is dynamic"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> None:
        rank = node.input_value(0).rank or 0
        axis = node.axis(node.attr_int("axis", 1), rank)
        group = node.attr_int("group", 1)
        channels = node.input_value(0).dims[axis]
        if group <= 0 or (channels > 0 and channels % group):
            raise node.attr_error("group", str(group), f"does not divide the {channels} channels")
        for part, constant in constants(dq):
            owner = dq.subtract if part == "subtract" else dq.multiply
            assert owner is not None, "constants() yields the parts present"
            value = with_leading_ones(constant.value, owner.output().rank or 0)
            if value.size == 1:
                set_constant(dq, part, to_scalar(value))
            elif value.shape[axis] == 1:
                set_constant(dq, part, value)
            else:
                set_constant(dq, part, shuffle(value, axis, group))
