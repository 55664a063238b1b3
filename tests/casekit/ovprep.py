"""Makes OpenVINO models fit for a faithful f32 CPU run: static shapes, stripped FQs, config."""
from __future__ import annotations

import itertools

import numpy as np
import openvino as ov
from openvino import opset1, opset5

from lpt_cli.ir.graph import Graph

# The CPU plugin's own LPT and dynamic quantization would change the math being checked.
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "LP_TRANSFORMS_MODE": False,
              "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0}
STRIPPED_LEVELS = (65535, 65536)  # the CPU plugin drops such FakeQuantize ops instead of computing them
_COMMON_DIMS = (4, 3, 2, 1, 8, 16)


def compile_cpu(model: ov.Model) -> ov.CompiledModel:
    core = ov.Core()
    try:
        return core.compile_model(model, "CPU", CPU_CONFIG)
    except RuntimeError:  # an OpenVINO without one of the properties
        return core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def _candidates(graphs: list[Graph], rank: int, axis: int) -> list[int]:
    """1 on the batch axis; channel-like dims of same-rank constants; small values; then
    values (and products of neighbours) of small integer constants, e.g. reshape patterns."""
    constants = [n.value for g in graphs for n in g if n.type == "Constant"]
    aligned = [v.shape[axis] for v in constants if v.ndim == rank and v.shape[axis] > 1]
    hints: list[int] = []
    for value in constants:
        if value.ndim <= 1 and value.size <= 8 and np.issubdtype(value.dtype, np.integer):
            items = [int(v) for v in value.reshape(-1)]
            hints += items + [a * b for a, b in zip(items, items[1:])]
    head = [1] if axis == 0 else []
    return list(dict.fromkeys(head + aligned[:4] + list(_COMMON_DIMS) + [h for h in hints if 1 < h <= 1 << 20]))


def reshape(model: ov.Model, shapes: dict[str, list[int]]) -> None:
    """Gives each Parameter (by friendly name: ports may have no tensor names) its shape."""
    model.reshape({p.output(0): ov.PartialShape(shapes[p.get_friendly_name()]) for p in model.get_parameters()})


def _valid(model: ov.Model, shapes: dict[str, list[int]]) -> bool:
    """OpenVINO accepts the shapes, and no Reshape changes the element count."""
    trial = model.clone()
    try:
        reshape(trial, shapes)
    except RuntimeError:
        return False
    for op in trial.get_ordered_ops():
        if op.get_type_name() == "Reshape":
            before, after = op.get_input_partial_shape(0), op.get_output_partial_shape(0)
            if before.is_static and after.is_static and np.prod(list(before.to_shape())) != np.prod(list(after.to_shape())):
                return False
    return True


def static_shapes(model_a: ov.Model, model_b: ov.Model, graphs: list[Graph],
                  given: dict[str, list[int]]) -> dict[str, list[int]]:
    """Concrete Parameter shapes (by name) both models accept; `given` ones win."""
    fixed = {p.get_friendly_name(): [d.get_length() if d.is_static else -1 for d in p.get_partial_shape()]
             for p in model_a.get_parameters()}
    fixed.update({name: list(dims) for name, dims in given.items()})
    dynamic = [(name, axis) for name, dims in fixed.items() for axis, d in enumerate(dims) if d < 0]
    options = [_candidates(graphs, len(fixed[name]), axis) for name, axis in dynamic]
    for combo in itertools.islice(itertools.product(*options), 3000):
        shapes = {name: list(dims) for name, dims in fixed.items()}
        for (name, axis), dim in zip(dynamic, combo):
            shapes[name][axis] = dim
        if _valid(model_a, shapes) and _valid(model_b, shapes):
            return shapes
    raise ValueError(f"no concrete dims for {dynamic} suit both graphs; give numerics: {{shapes: ...}}")


def decompose_stripped_fake_quantize(model: ov.Model) -> None:
    """Rewrites FakeQuantize with 65535/65536 levels as its formula in stock ops (il < ih)."""
    for op in model.get_ordered_ops():
        if op.get_type_name() != "FakeQuantize" or int(op.get_attributes()["levels"]) not in STRIPPED_LEVELS:
            continue
        x, il, ih, ol, oh = (op.input_value(k) for k in range(5))
        top = float(int(op.get_attributes()["levels"]) - 1)
        steps = opset1.constant(np.float32(top))
        scaled = opset1.multiply(opset1.divide(opset1.subtract(x, il), opset1.subtract(ih, il)), steps)
        level = opset1.clamp(opset5.round(scaled, "half_to_even"), 0.0, top)
        out = opset1.add(opset1.multiply(opset1.divide(level, steps), opset1.subtract(oh, ol)), ol)
        op.output(0).replace(out.output(0))
    model.validate_nodes_and_infer_types()
