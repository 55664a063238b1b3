"""A model's FakeQuantize math in plain float ops: the exact reference for `lpt verify`.

Each FakeQuantize becomes min/max clamping, Round(half to even) on the level grid and the
output interval's affine map. The plugin runs no LPT on such a model (it has no FakeQuantize),
so its outputs are what the quantized model means, and both the plugin's own LPT (on the
original) and lpt's output can be measured against it: a difference of the same size as the
plugin's own is rounding, a larger one a change of the model.
"""
from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def exact_fake_quantize(model: ov.Model) -> ov.Model:
    """`model` (changed in place) with every FakeQuantize as float math."""
    for fq in [op for op in model.get_ordered_ops() if op.get_type_name() == "FakeQuantize"]:
        x, il, ih, ol, oh = (fq.input_value(i) for i in range(5))
        steps = np.float32(fq.get_attributes()["levels"] - 1)
        clamped = ops.minimum(ops.maximum(x, il), ih)
        levels = ops.round(ops.multiply(ops.divide(ops.subtract(clamped, il), ops.subtract(ih, il)), steps),
                           "half_to_even")
        y = ops.add(ops.multiply(ops.divide(levels, steps), ops.subtract(oh, ol)), ol)
        fq.output(0).replace(y.output(0))
    model.validate_nodes_and_infer_types()
    return model
