"""ClampTransformation: clamp(s*(x - z), lo, hi) = s*(clamp(x, lo/s + z, hi/s + z) - z).

Only a scalar-like scale and zero point can be folded into Clamp's two scalar bounds;
a negative scale swaps them.
"""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from ...engine.layer_checks import Refusal
from ...surgery.constants import is_scalar_like
from ...surgery.moving import move_dequantization_after
from .move_dequantization import MoveDequantizationTransformation


def _bound(value: float) -> str:
    """Clamp bounds as the IR spells doubles (shortest round-trip form)."""
    return repr(float(value))


class ClampTransformation(MoveDequantizationTransformation):
    name = "ClampTransformation"
    revisits_created = False
    layer_checks_first = True
    needs_dequantization = False  # `check` asks for a scalar-like scale

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        if dq.multiply is None or not is_scalar_like(dq.scale):
            return "not_per_tensor", "Clamp needs a scalar-like scale"
        return None

    def prepare(self, node: Node, dq: Dequantization) -> Refusal | None:
        if dq.subtract is not None and not is_scalar_like(dq.shift):
            return "not_per_tensor", "Clamp needs a scalar-like zero point"
        return None

    def move(self, node: Node, dq: Dequantization) -> None:
        """The bounds take the dequantization in; the output stays in the dequantization's type."""
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
