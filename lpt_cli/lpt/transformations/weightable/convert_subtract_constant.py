"""ConvertSubtractConstant (the CPU plugin's PreLpt runs it before LPT, step `pre_lpt`): a weights
zero point stored in float becomes a constant of the weights' integer type plus a Convert, the
form the weighted layers' transformations fuse; a zero point that rounds to 0 everywhere is
dropped (low_precision/src/convert_subtract_constant.cpp)."""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ...surgery.rewrites import disable_constant_folding
from ...surgery.constants import cast, remove_unused, round_half_away
from ...engine.transformation import Transformation


def _single_use(node: Node) -> bool:
    return len(node.output().uses) == 1


class ConvertSubtractConstant(Transformation):
    name = "ConvertSubtractConstant"

    def _match(self, multiply: Node) -> tuple[Node, Node, Node] | None:
        """(weights Convert, Subtract, zero point) of Multiply(Subtract(Convert(C), C), C)."""
        if not _single_use(multiply) or len(multiply.inputs) != 2:
            return None
        scale = next((i for i in (1, 0) if multiply.input_node(i).type == "Constant"), None)
        if scale is None or not _single_use(multiply.input_node(scale)):
            return None
        subtract = multiply.input_node(1 - scale)
        if subtract.type != "Subtract" or not _single_use(subtract):
            return None
        convert, zero_point = subtract.input_node(0), subtract.input_node(1)
        if convert.type != "Convert" or zero_point.type != "Constant":
            return None
        weights = convert.input_node(0)
        if weights.type != "Constant" or not (_single_use(convert) and _single_use(weights)
                                              and _single_use(zero_point)):
            return None
        return convert, subtract, zero_point

    def transform(self, node: Node) -> bool:
        found = self._match(node)
        if found is None:
            return False
        convert, subtract, zero_point = found
        quantized = convert.input_value(0).element_type
        if quantized not in self.config.default_precisions:
            return self.reject(node, "weights_precision", f"weights of type {quantized} are not quantized")
        low, high = quantized.range()
        if np.any((zero_point.value < low - 0.5) | (zero_point.value > high + 0.5)):
            return self.reject(node, "zero_point_range", f"the zero point does not fit {quantized}")
        rounded = cast(round_half_away(zero_point.value), quantized)
        flat = rounded.reshape(-1)
        if flat.size and np.all(flat == flat[0]):
            rounded = flat[:1].reshape(())
            if rounded == 0:
                node.set_input(list(node.input_values()).index(subtract.output()), convert.output())
                remove_unused(subtract)
                return True
        integer = self.graph.add_constant(rounded, quantized)
        target = convert.output().element_type
        back = self.graph.add_node("Convert", [integer.output()], outputs=[(target, integer.output().shape)],
                                   attrs={"destination_type": target.name},
                                   name=self.graph.unique_name(f"{zero_point.name}/Convert"))
        disable_constant_folding(back)
        subtract.set_input(1, back.output())
        remove_unused(zero_point)
        return True
