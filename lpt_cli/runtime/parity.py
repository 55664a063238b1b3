"""Comparing two CPU-plugin runs of the same model: the original and lpt's runtime output.

The plugin runs its own LPT on the original, so its runtime model says which weightable
layers really run on INT8 kernels; lpt's output must compile to the same kernels, keep those
layers' names and compute the same outputs. These helpers work on `PluginRun`s (see
`oracle.py`), so a crashing compile never reaches the caller.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import numpy as np

from .layers import RuntimeLayer

# Runtime layer types that carry weights (the plugin turns a MatMul on constant weights
# into FullyConnected, a weight-compressed one into FullyConnectedCompressed, an LSTM/GRU
# sequence into RNNSeq: u8 `ref_any_I8` when it folded the dequantizations in front).
WEIGHTABLE_KERNELS = frozenset({"Convolution", "GroupConvolution", "Deconvolution", "FullyConnected", "MatMul",
                                "FullyConnectedCompressed", "RNNSeq"})
# Names OpenVINO generated (`Multiply_42810` for a convolution a converter folded a Multiply
# into): no user knows them and the plugin renumbers them, so `lost_names` skips them.
_AUTO_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*_\d+$")
_DEQUANTIZATION_SUFFIX = "/DequantizationMultiply"


def weightable_kernels(layers: Iterable[RuntimeLayer]) -> Counter[tuple[str, str, str]]:
    """(layerType, runtimePrecision, primitiveType) of the weightable runtime ops, counted."""
    return Counter((layer.layer_type, layer.runtime_precision, layer.primitive) for layer in layers
                   if layer.layer_type in WEIGHTABLE_KERNELS)


def int8_weightable(layers: Iterable[RuntimeLayer]) -> list[RuntimeLayer]:
    """Ops on an integer kernel (`..._I8`/`_i8`) that may hold a weightable layer: the weightable
    kernels, and snippets Subgraphs (an attention MatMul runs inside one). A weight-compressed
    FullyConnected reports u8/u4 weights but computes in f32: the precision alone does not tell."""
    return [layer for layer in layers if layer.layer_type in (*WEIGHTABLE_KERNELS, "Subgraph")
            and layer.primitive.lower().endswith(("_i8", "_u8"))]


def int8_recurrent_cells(layers: Iterable[RuntimeLayer]) -> int:
    """How many recurrent cells (RNNSeq) the plugin runs on integers. It names them after none
    of the IR's layers (it splits a bidirectional sequence in two), so they are counted."""
    return sum(1 for layer in layers if layer.layer_type == "RNNSeq" and layer.primitive.lower().endswith(("_i8", "_u8")))


def ir_layer(layer: RuntimeLayer, weightable: set[str]) -> str | None:
    """The IR weightable layer a runtime op computes, if any (LPT names a MatMul's output
    `NAME/DequantizationMultiply`, and the plugin may list that name first)."""
    for name in layer.original_names:
        for candidate in (name, name.removesuffix(_DEQUANTIZATION_SUFFIX)):
            if candidate in weightable:
                return candidate
    return None


def int8_ir_layers(layers: Iterable[RuntimeLayer], weightable: set[str]) -> set[str]:
    """The IR weightable layers (by name) the plugin runs on an INT8 kernel."""
    return {name for layer in int8_weightable(layers) if (name := ir_layer(layer, weightable))}


def visible_ir_layers(layers: Iterable[RuntimeLayer], weightable: set[str]) -> set[str]:
    """The IR weightable layers the runtime model names at all; a layer fused into an op named
    otherwise (an attention Subgraph) does not say how it ran, so it is compared on no side."""
    return {name for layer in layers if (name := ir_layer(layer, weightable))}


def lost_names(wanted: Iterable[str], layers: Iterable[RuntimeLayer]) -> list[str]:
    """The user-given names of `wanted` that no runtime op lists in originalLayersNames."""
    names = {n for layer in layers for n in layer.original_names}
    return sorted(n for n in wanted if not _AUTO_NAME.match(n) and n not in names
                  and not any(m.startswith(f"{n}/Dequantization") for m in names))


def output_error(reference: np.ndarray, candidate: np.ndarray) -> tuple[float, bool]:
    """max|a - b| / max|a| of one output (`a` the reference), and whether it is absolute instead:
    a reference of zeros (or of subnormals only) has no scale to divide by, so its error is
    max|a - b| itself. NaN and infinities must be where the reference has them, else inf (as for
    shapes that differ)."""
    if reference.shape != candidate.shape:
        return float("inf"), False
    ref, got = reference.astype(np.float64), candidate.astype(np.float64)
    finite = np.isfinite(ref) & np.isfinite(got)
    if not np.all(finite | (ref == got) | (np.isnan(ref) & np.isnan(got))):
        return float("inf"), False
    if not finite.any():
        return 0.0, False
    diff = float(np.abs(ref[finite] - got[finite]).max())
    scale = float(np.abs(ref[finite]).max())
    if scale < np.finfo(np.float32).tiny:
        return diff, True
    return diff / scale, False


def worst_relative_error(reference: list[np.ndarray], candidate: list[np.ndarray]) -> float:
    """The largest `output_error` over the outputs; inf when their counts differ."""
    if len(reference) != len(candidate):
        return float("inf")
    return max((output_error(ref, got)[0] for ref, got in zip(reference, candidate)), default=0.0)


def bit_exact(reference: list[np.ndarray], candidate: list[np.ndarray]) -> bool:
    return len(reference) == len(candidate) and all(
        a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        for a, b in zip(reference, candidate))
