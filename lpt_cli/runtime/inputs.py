"""Model inputs for verify/benchmark: seeded random tensors, or arrays from an .npz file.

Shapes come from the model, from `--shape NAME=1,3,224,224`, or, for a dynamic dimension
nobody gave, from a documented default that makes a realistic input (lpt_cli/input_sizes.py).
Integer inputs named like a mask get ones followed by zeros on the last quarter (a padded
attention mask).
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import openvino as ov

from ..errors import LptError
from ..input_sizes import default_dim


Shapes = dict[str, tuple[int, ...]]  # input name ("" for the only input) -> shape


def parse_shapes(specs: tuple[str, ...]) -> Shapes:
    """`--shape` values: `NAME=1,3,224,224`, or `1,3,224,224` for a model with one input."""
    shapes: Shapes = {}
    for spec in specs:
        name, _, dims = spec.rpartition("=")
        try:
            shape = tuple(int(d) for d in dims.strip().strip("[]").split(","))
        except ValueError:
            raise LptError(f"--shape {spec[:80]!r}: expected NAME=1,3,224,224 (positive integers)") from None
        if not shape or any(d <= 0 or d > 1 << 31 for d in shape):
            raise LptError(f"--shape {spec[:80]!r}: dimensions must be positive integers")
        shapes[name.strip()] = shape
    return shapes


def input_shapes(model: ov.Model | ov.CompiledModel, shapes: Shapes | None = None,
                 notes: list[str] | None = None) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    """(name, static shape, dtype) per input of `model` (read or compiled): the given shape, else
    the model's, with the documented defaults for dynamic dimensions (each such choice is added to `notes`)."""
    shapes = dict(shapes or {})
    if "" in shapes:
        if len(model.inputs) != 1:
            raise LptError(f"--shape without a NAME= needs a model with one input (this one has {len(model.inputs)})")
        shapes = {model.inputs[0].get_any_name() if model.inputs[0].get_names() else "input0": shapes[""]}
    names = [port.get_any_name() if port.get_names() else f"input{i}" for i, port in enumerate(model.inputs)]
    unknown = sorted(set(shapes) - {n for i, port in enumerate(model.inputs) for n in (*port.get_names(), names[i])})
    if unknown:
        raise LptError(f"--shape {unknown[0]}: no such input (inputs: {', '.join(names)})")
    found = []
    for i, port in enumerate(model.inputs):
        pshape = port.get_partial_shape()
        given = next((shapes[n] for n in (*sorted(port.get_names()), names[i]) if n in shapes), None)
        if given is not None:
            if pshape.rank.is_static and (len(given) != pshape.rank.get_length() or any(
                    d.is_static and d.get_length() != g for d, g in zip(pshape, given))):
                raise LptError(f"--shape {names[i]}={','.join(map(str, given))}: the model input is {pshape}")
            shape = given
        elif pshape.rank.is_dynamic:
            raise LptError(f"input '{names[i]}' has a dynamic rank: give --shape {names[i]}=... or --inputs FILE.npz")
        else:
            rank = pshape.rank.get_length()
            shape = tuple(d.get_length() if d.is_static else default_dim(axis, rank) for axis, d in enumerate(pshape))
            if pshape.is_dynamic and notes is not None:
                notes.append(f"input '{names[i]}' {pshape}: using {','.join(map(str, shape))} "
                             f"(give --shape {names[i]}=...)")
        found.append((names[i], shape, np.dtype(port.get_element_type().to_dtype())))
    return found


def random_inputs(model: ov.Model | ov.CompiledModel, seed: int, shapes: Shapes | None = None,
                  notes: list[str] | None = None) -> list[np.ndarray]:
    """Normal floats; small non-negative integers (safe as token ids and indices); padded masks."""
    rng = np.random.default_rng(seed)
    arrays = []
    for name, shape, dtype in input_shapes(model, shapes, notes):
        if np.issubdtype(dtype, np.floating):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype == np.bool_:
            arrays.append(rng.integers(0, 2, shape).astype(dtype))
        elif "mask" in name.lower() and len(shape) >= 2:
            mask = np.ones(shape, dtype=dtype)
            mask[..., shape[-1] - shape[-1] // 4:] = 0
            arrays.append(mask)
        else:
            arrays.append(rng.integers(0, 10, shape).astype(dtype))
    return arrays


def load_inputs(path: str | Path, compiled: ov.CompiledModel) -> list[np.ndarray]:
    """Arrays from `path` matched to the model inputs by name, else by position (arr_0, ...)."""
    if not zipfile.is_zipfile(path):  # np.load would try pickle and suggest allow_pickle=True
        raise LptError(f"{path}: not an .npz archive (expected numpy.savez output, one array per model input)")
    try:
        with np.load(path, allow_pickle=False) as npz:
            stored = {key: npz[key] for key in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        detail = "it holds pickled objects, which lpt never loads" if "pickle" in str(err) else str(err)
        raise LptError(f"{path}: cannot read inputs: {detail.splitlines()[0]}") from None
    arrays = []
    for i, (name, _shape, dtype) in enumerate(input_shapes(compiled)):
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
