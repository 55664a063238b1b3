"""Small OpenVINO models for the IR tests, saved with ov.save_model as OpenVINO writes them."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops


def _save(model: ov.Model, folder: Path, name: str) -> Path:
    path = folder / f"{name}.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def conv_fq_model(folder: Path) -> Path:
    """FakeQuantize on activations, i8 compressed weights, bias, two outputs, model rt_info."""
    rng = np.random.default_rng(1)
    x = ops.parameter([1, 8, 12, 12], np.float32, name="x")
    fq = ops.fake_quantize(x, -1.0, 1.5, -1.0, 1.5, 256, name="fq")
    weights = ops.constant(rng.integers(-127, 128, (16, 8, 3, 3)).astype(np.int8), name="w_i8")
    scale = ops.constant(rng.uniform(0.001, 0.01, (16, 1, 1, 1)).astype(np.float32), name="w_scale")
    deq = ops.multiply(ops.convert(weights, np.float32), scale)
    conv = ops.convolution(fq, deq, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    bias = ops.add(conv, ops.constant(rng.normal(size=(1, 16, 1, 1)).astype(np.float32)), name="bias")
    relu = ops.relu(bias, name="relu")
    pool = ops.max_pool(relu, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], name="pool")
    soft = ops.softmax(ops.reshape(relu, [1, -1], False), 1, name="soft")
    model = ov.Model([soft.output(0), pool.output(0)], [x], "conv_fq")
    model.set_rt_info("test-value", ["custom", "note"])
    return _save(model, folder, "conv_fq")


def exotic_constants_model(folder: Path) -> Path:
    """Constants of bf16, f16, u4, i4, u1, boolean, i64 and u8 types feeding one sum."""
    x = ops.parameter([2, 6], np.float32, name="x")
    values = np.array([[0, 1, 2, 3, 4, 5], [6, 7, 1, 0, 2, 3]], np.float32)
    total = x
    for etype in (ov.Type.bf16, ov.Type.f16, ov.Type.u4, ov.Type.i4, ov.Type.u1, ov.Type.i64, ov.Type.u8):
        const = ops.constant(values - (3 if etype == ov.Type.i4 else 0), etype)
        total = ops.add(total, ops.convert(const, np.float32))
    flags = ops.constant(values > 2)
    total = ops.select(flags, total, ops.negative(total))
    return _save(ov.Model([total], [x], "exotic"), folder, "exotic")


def loop_model(folder: Path) -> Path:
    """A Loop whose body holds its own constants (they live in the same .bin)."""
    x = ops.parameter([1, 4], np.float32, name="x")
    body_x = ops.parameter([1, 4], np.float32, name="body_x")
    step = ops.multiply(ops.add(body_x, ops.constant(np.array([[0.5, 1.5, -2, 3]], np.float32))),
                        ops.constant(np.array([[0.9, 1.1, 0.7, 1.3]], np.float32)))
    body = ov.Model([ops.constant(True).output(0), step.output(0)], [body_x], "body")
    loop = ops.loop(ops.constant(np.int64(3)), ops.constant(True))
    loop.set_function(body)
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(body_x, x.output(0), step.output(0))
    out = loop.get_iter_value(step.output(0), -1)
    scaled = ops.multiply(out, ops.constant(np.full((1, 4), 2.0, np.float32)))
    return _save(ov.Model([scaled], [x], "loop"), folder, "loop")


def random_inputs(model: ov.Model, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2.0, 2.0, tuple(p.get_shape())).astype(np.float32) for p in model.inputs]


def run(path: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(str(path), "CPU")
    result = compiled(inputs)
    return [result[out] for out in compiled.outputs]
