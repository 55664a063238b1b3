"""A model's FakeQuantize math in plain float ops (no FakeQuantize: the plugin runs no LPT on it).

    python repros/fq_reference.py MODEL.xml OUT.xml

Each FakeQuantize becomes min/max clamping, Round(half to even) on the level grid and the
output interval's affine map, so `plugin_run(OUT.xml)` is a reference for both the plugin's
own LPT and lpt's output of MODEL.xml: which of the two left the FakeQuantize semantics.
"""
from __future__ import annotations

import sys

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def as_float_math(model: ov.Model) -> ov.Model:
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


if __name__ == "__main__":
    ov.save_model(as_float_math(ov.Core().read_model(sys.argv[1])), sys.argv[2], compress_to_fp16=False)
