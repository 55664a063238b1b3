"""ConvertInterpolate11ToInterpolate4, which CommonOptimizations runs before LPT in both plugins
(convert_interpolate11_downgrade.cpp). LPT's InterpolateTransformation matches Interpolate-1 and
Interpolate-4 only, and PyTorch's `interpolate`/`nn.Upsample` export as Interpolate-11: without
the downgrade a nearest upsampling stayed float in lpt where the plugin runs it on u8.

Interpolate-4 reads `sizes` and `scales` both: the one v11 does not carry becomes a constant of
ones (i32 sizes, f32 scales), one per axis (as many as the axes input has, else the data's
rank); the attributes are the same. The plugin builds those ones with ShapeOf and Broadcast and
folds them; with the length unknown (an axes input or data of dynamic size) lpt keeps
Interpolate-11, which InterpolateTransformation does not match either way.
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node
from .versions import replace_version

_V4_MODES = frozenset({"nearest", "linear", "linear_onnx", "cubic"})  # the bicubic/bilinear_pillow modes stay v11
_ATTRS = ("mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode", "antialias",
          "pads_begin", "pads_end", "cube_coeff")


def _axes_count(node: Node) -> int | None:
    """How many axes the Interpolate resizes: the length of its axes input, else the data's rank."""
    if len(node.inputs) == 2:
        return node.input_value(0).rank
    shape = node.input_value(2).shape
    return shape[0] if shape is not None and len(shape) == 1 and shape[0] >= 0 else None


def convert_interpolate_11(graph: Graph) -> int:
    """Each Interpolate-11 in a mode Interpolate-4 has becomes its Interpolate-4 twin."""
    changed = 0
    for node in [n for n in graph if n.type == "Interpolate" and n.version == "opset11"]:
        count = _axes_count(node)
        if node.attr("mode") not in _V4_MODES or count is None:
            continue
        by_scales = node.attr("shape_calculation_mode") == "scales"
        ones = graph.add_constant(np.ones(count, np.int32 if by_scales else np.float32)).output()
        sizes, scales = (ones, node.input_value(1)) if by_scales else (node.input_value(1), ones)
        axes = [node.input_value(2)] if len(node.inputs) == 3 else []
        replace_version(node, "opset4", _ATTRS, 1, inputs=[node.input_value(0), sizes, scales, *axes])
        changed += 1
    return changed
