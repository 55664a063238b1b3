"""Output shapes for graphs built from case files, inferred by OpenVINO on a shadow model.

Case files give shapes only for Parameters and Constants, but the pipeline needs every
value's shape, as the IR reader would give it. Each node is mirrored in an OpenVINO
model built op by op; low-precision and float values are mirrored as f32, because LPT's
ops are type-relaxed (a Convolution on u8 giving f32) and stock OpenVINO would refuse
them. Only shapes (and the types of integer side outputs) are taken from the mirror.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import openvino as ov
from openvino.utils.node_factory import NodeFactory

from lpt_cli.ir.eltypes import ElementType, element_type
from lpt_cli.ir.graph import Shape

_FACTORIES: dict[str, NodeFactory] = {}


def shadow_type(etype: ElementType) -> ov.Type:
    """The type a value of `etype` has in the mirror: f32 for data, itself for shape math."""
    if etype.is_real or (etype.is_integral and etype.bits <= 16):
        return ov.Type.f32
    return getattr(ov.Type, etype.name)


def to_shape(pshape: ov.PartialShape) -> Shape:
    """An OpenVINO partial shape in our notation (-1 for any non-static dimension)."""
    if pshape.rank.is_dynamic:
        return None
    return tuple(d.get_length() if d.is_static else -1 for d in pshape)


def parameter(etype: ElementType, shape: Shape) -> ov.Output:
    dims = ov.PartialShape.dynamic() if shape is None else ov.PartialShape([int(d) for d in shape])
    return ov.opset13.parameter(dims, shadow_type(etype)).output(0)


def constant(value: np.ndarray, etype: ElementType) -> ov.Output:
    dtype = shadow_type(etype).to_dtype()
    return ov.opset13.constant(np.asarray(value).astype(dtype)).output(0)


def operation(op: str, version: str, inputs: list[ov.Output], attrs: dict[str, Any]) -> ov.Node:
    """Creates `op` of opset `version` on the mirror's values; raises when OpenVINO refuses."""
    if op in ("ReadValue", "Assign"):  # stateful ops need a variable: mirror their value's shape
        if inputs:
            return ov.opset13.convert(inputs[0], inputs[0].get_element_type())
        dims = [int(d) for d in str(attrs.get("variable_shape", "")).replace(",", " ").split()]
        return ov.opset13.parameter(dims, ov.Type.f32)
    factory = _FACTORIES.get(version)
    if factory is None:
        factory = _FACTORIES[version] = NodeFactory(version)
    attrs = dict(attrs)
    if op == "Convert":
        attrs["destination_type"] = shadow_type(element_type(str(attrs["destination_type"]))).get_type_name()
    return factory.create(op, inputs, attrs)
