"""InterpolateTransformation: nearest-neighbour resizing only copies values, so the
dequantization moves after it and the Interpolate runs on the integer data."""
from __future__ import annotations

from ....ir import Node
from ...dequantization.chain import Dequantization
from ...engine.layer_checks import Refusal
from .move_dequantization import MoveDequantizationTransformation

_CONSTANT_INPUTS = {"opset1": (2,), "opset4": (3, 4)}  # Interpolate-11 is not matched


class InterpolateTransformation(MoveDequantizationTransformation):
    name = "InterpolateTransformation"
    layer_checks_first = True

    def applies_to(self, node: Node) -> bool:
        counts = _CONSTANT_INPUTS.get(node.version, ())
        return (len(node.inputs) in counts and node.input_node(0).type == "Multiply"
                and all(node.input_node(i).type == "Constant" for i in range(1, len(node.inputs))))

    def check(self, node: Node, dq: Dequantization) -> Refusal | None:
        problem = _v1_problem(node) if node.version == "opset1" else _v4_problem(node)
        return ("unsupported_mode", problem) if problem else None


def _v1_problem(node: Node) -> str | None:
    if {0, 1} & set(node.attr_ints("axes")):
        return "resizes the batch or channel axis"
    if node.attr("mode") != "nearest":
        return "mode is not nearest"
    pads = node.attr_ints("pads_begin")[:1] + node.attr_ints("pads_end")[:1]
    if any(pads) or node.attr_bool("align_corners"):
        return "pads or align_corners"
    return None


def _v4_problem(node: Node) -> str | None:
    if node.attr("mode") != "nearest":
        return "mode is not nearest"
    if any(node.attr_ints("pads_begin")) or any(node.attr_ints("pads_end")):
        return "pads"
    if node.attr("coordinate_transformation_mode") == "align_corners":
        return "align_corners coordinates"
    return None
