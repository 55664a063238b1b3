"""ClampTransformation: clamp(s*(x - z), lo, hi) = s*(clamp(x, lo/s + z, hi/s + z) - z).

Only a scalar-like scale and zero point can be folded into Clamp's two scalar bounds;
a negative scale swaps them.
"""
from __future__ import annotations

from ...ir import Node
from ..dequantization import get_dequantization
from ..folding import is_scalar_like
from ..base_checks import can_be_transformed
from ..moving import move_dequantization_after, separate_in_standalone_branch
from ..transformation import Transformation


def _bound(value: float) -> str:
    """Clamp bounds as the IR spells doubles (shortest round-trip form)."""
    return repr(float(value))


class ClampTransformation(Transformation):
    name = "ClampTransformation"
    op_types = ("Clamp",)
    revisits_created = False

    def applies_to(self, node: Node) -> bool:
        return node.input_node(0).type == "Multiply"

    def transform(self, node: Node) -> bool:
        precisions = self.config.default_precisions
        if not can_be_transformed(node, precisions):
            return self.reject(node, "not_per_channel", "dynamic rank or per-spatial dequantization")
        dq = get_dequantization(node, precisions)
        if dq.multiply is None or not is_scalar_like(dq.scale):
            return self.reject(node, "not_per_tensor", "Clamp needs a scalar-like scale")
        separate_in_standalone_branch(node, precisions)
        dq = get_dequantization(node, precisions)
        if dq.subtract is not None and not is_scalar_like(dq.shift):
            return self.reject(node, "not_per_tensor", "Clamp needs a scalar-like zero point")
        scale = float(dq.scale.reshape(-1)[0])
        shift = float(dq.shift.reshape(-1)[0]) if dq.subtract is not None else 0.0
        low, high = node.attr_float("min"), node.attr_float("max")
        if low is None or high is None:
            raise node.attr_error("min" if low is None else "max", "", "Clamp needs both min and max")
        if scale < 0:
            low, high = high, low
        assert dq.multiply is not None, "a Clamp moves only a dequantization with a scale"
        out_type = dq.multiply.output().element_type
        move_dequantization_after(node, dq, update_output_precision=False)
        node.attrs["min"] = _bound(low / scale + shift)
        node.attrs["max"] = _bound(high / scale + shift)
        node.output().element_type = out_type
        return True
