"""Model inputs for verify/benchmark: seeded random tensors, or arrays from an .npz file.

Shapes come from the model; a dynamic dimension becomes 1 so any model can be run
without the user spelling out shapes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov

from ..errors import LptError


def input_shapes(compiled: ov.CompiledModel) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    """(name, static shape, dtype) per model input, dynamic dims set to 1."""
    found = []
    for i, port in enumerate(compiled.inputs):
        pshape = port.get_partial_shape()
        if pshape.rank.is_dynamic:
            raise LptError(f"input {i} has a dynamic rank: give its values with --inputs FILE.npz")
        shape = tuple(d.get_length() if d.is_static else 1 for d in pshape)
        name = port.get_any_name() if port.get_names() else f"input{i}"
        found.append((name, shape, np.dtype(port.get_element_type().to_dtype())))
    return found


def random_inputs(compiled: ov.CompiledModel, seed: int) -> list[np.ndarray]:
    """Normal floats, or small non-negative integers (safe as indices), per model input."""
    rng = np.random.default_rng(seed)
    arrays = []
    for _, shape, dtype in input_shapes(compiled):
        if np.issubdtype(dtype, np.floating):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype == np.bool_:
            arrays.append(rng.integers(0, 2, shape).astype(dtype))
        else:
            arrays.append(rng.integers(0, 10, shape).astype(dtype))
    return arrays


def load_inputs(path: str | Path, compiled: ov.CompiledModel) -> list[np.ndarray]:
    """Arrays from `path` matched to the model inputs by name, else by position (arr_0, ...)."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            stored = {key: npz[key] for key in npz.files}
    except (OSError, ValueError) as err:
        raise LptError(f"{path}: cannot read inputs: {err}") from None
    arrays = []
    for i, (name, shape, dtype) in enumerate(input_shapes(compiled)):
        port = compiled.inputs[i]
        key = next((k for k in [*sorted(port.get_names()), name, f"arr_{i}"] if k in stored), None)
        if key is None:
            raise LptError(f"{path}: no array for input {i} '{name}' (stored: {', '.join(stored) or 'none'})")
        arrays.append(np.asarray(stored[key]).astype(dtype, copy=False))
    return arrays


def infer(compiled: ov.CompiledModel, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """One synchronous inference; outputs copied out of the request's buffers."""
    request = compiled.create_infer_request()
    try:
        request.infer(inputs)
    except RuntimeError as err:
        raise LptError(f"inference failed: {str(err).strip().splitlines()[-1]}") from None
    return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]
