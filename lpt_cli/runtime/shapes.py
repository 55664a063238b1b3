"""Static shapes of weightable layers for a given input shape (`lpt report --shape`).

lpt has no shape inference of its own; openvino reshapes the model to the shapes the user
gives and says each weightable layer's data, weights and output shapes, so the report's MACs
are those of a real inference instead of one output position.
"""
from __future__ import annotations

from pathlib import Path

import openvino as ov

from ..errors import LptError
from ..ir.op_facts import Fact, ops_with
from .inputs import Shapes

WEIGHTABLE = ops_with(Fact.WEIGHTED)
LayerShapes = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def weightable_shapes(xml_path: str | Path, shapes: Shapes) -> dict[str, LayerShapes]:
    """Layer name -> (data, weights, output) static shapes after reshaping the inputs to `shapes`."""
    model = ov.Core().read_model(str(xml_path))
    names = [port.get_any_name() if port.get_names() else f"input{i}" for i, port in enumerate(model.inputs)]
    if "" in shapes:
        if len(model.inputs) != 1:
            raise LptError(f"--shape without a NAME= needs a model with one input (this one has {len(names)})")
        shapes = {names[0]: shapes[""]}
    unknown = sorted(set(shapes) - set(names))
    if unknown:
        raise LptError(f"--shape {unknown[0]}: no such input (inputs: {', '.join(names)})")
    try:
        model.reshape({name: ov.PartialShape(list(shape)) for name, shape in shapes.items()})
    except RuntimeError as err:
        raise LptError(f"--shape: the model cannot take these shapes: {str(err).strip().splitlines()[-1]}") from None
    found: dict[str, LayerShapes] = {}
    for op in model.get_ordered_ops():
        if op.get_type_name() not in WEIGHTABLE:
            continue
        parts = [op.get_input_partial_shape(0), op.get_input_partial_shape(1), op.get_output_partial_shape(0)]
        if all(p.is_static for p in parts):
            data, weights, out = (tuple(d.get_length() for d in p) for p in parts)
            found[op.get_friendly_name()] = (data, weights, out)
    return found
