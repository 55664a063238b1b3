"""Comparing two CPU-plugin runs of the same model: the original and lpt's runtime output.

The plugin runs its own LPT on the original, so its runtime model says which weightable
layers really run on INT8 kernels; lpt's output must compile to the same kernels, keep those
layers' names and compute the same outputs. These helpers work on `PluginRun`s (see
`oracle.py`), so a crashing compile never reaches the caller.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..ir import Graph
from ..ir.legalize import FUSED_MULTIPLY_NAME
from .layers import DEQUANTIZATION_SUFFIX, RuntimeLayer

# Runtime layer types that carry weights (the plugin turns a MatMul on constant weights
# into FullyConnected, a weight-compressed one into FullyConnectedCompressed).
WEIGHT_KERNELS = frozenset({"Convolution", "GroupConvolution", "Deconvolution", "FullyConnected",
                            "FullyConnectedCompressed"})
WEIGHTABLE_KERNELS = WEIGHT_KERNELS | {"MatMul"}
# An LSTM/GRU sequence's kernel: u8 `ref_any_I8` when the plugin folded the dequantizations in
# front into a quantized cell (ConvertFqRnnToQuantizedRnn), f32 otherwise.
RECURRENT_KERNELS = frozenset({"RNNSeq"})
# Names OpenVINO generated (`Multiply_42810` for a convolution a converter folded a Multiply
# into): no user knows them and the plugin renumbers them, so `lost_names` skips them.
_AUTO_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*_\d+$")
_LOW = frozenset({"u8", "i8"})


def weightable_kernels(layers: Iterable[RuntimeLayer]) -> Counter[tuple[str, str, str]]:
    """(layerType, runtimePrecision, primitiveType) of the weightable runtime ops (recurrent cells
    included), counted."""
    return Counter((layer.layer_type, layer.runtime_precision, layer.primitive) for layer in layers
                   if layer.layer_type in WEIGHTABLE_KERNELS | RECURRENT_KERNELS)


def int8_recurrent_cells(layers: Iterable[RuntimeLayer]) -> int:
    """How many recurrent cells the plugin runs on integers. It names them after none of the IR's
    layers (it splits a bidirectional sequence in two), so they are counted."""
    return sum(1 for layer in layers if layer.layer_type in RECURRENT_KERNELS and on_int8_kernel(layer))


def on_int8_kernel(layer: RuntimeLayer) -> bool:
    """u8/i8 runtime precision on an `..._I8`/`_i8` primitive. A weight-compressed FullyConnected
    reports u8/u4 weights but computes in f32: the precision alone does not tell."""
    return layer.runtime_precision.lower() in _LOW and layer.primitive.lower().endswith("_i8")


# IR op types the plugin runs on a weight kernel that the report does not count as weightable
# (LPT has no transformation for them): a Deconvolution kernel named after one computes it.
_UNREPORTED_KERNEL_OPS = frozenset({"GroupConvolutionBackpropData"})


def unreported_kernel_layers(graph: Graph) -> frozenset[str]:
    """The layers of `graph` the plugin runs on weight kernels the report does not cover."""
    return frozenset(node.name for node in graph if node.type in _UNREPORTED_KERNEL_OPS)


def fused_multiply_aliases(graph: Graph) -> dict[str, str]:
    """Runtime name -> weightable layer, for the MatMuls the plugin names after the Multiply that
    MatMulMultiplyFusion fused into them (an attention MatMul is `scale_27`, not `scores_25`);
    `graph` is lpt's pipeline result, where such a MatMul keeps that name in an annotation."""
    return {node.annotations[FUSED_MULTIPLY_NAME]: node.name for node in graph
            if node.type == "MatMul" and FUSED_MULTIPLY_NAME in node.annotations}


@dataclass(frozen=True)
class Int8Truth:
    """What a runtime model says about the original's weightable layers.

    A kernel of its own tells how a layer ran. A snippets Subgraph does not: its precision is
    its narrowest input's (rule `subgraph_precision` of lpt_cli/isa.py), so an i8 attention
    Subgraph may hold an f32 MatMul; a MatMul in it ran on integers when LPT's dequantization of
    it (`NAME/DequantizationMultiply`) is fused there too. A layer named only inside another op is
    `opaque`: compared on no side. Weight-carrying kernels the plugin named after no original
    layer (`Multiply_9826` for DistilBERT's `out_lin`) are counted by what they compute.
    """

    int8: frozenset[str]
    float: frozenset[str]
    opaque: frozenset[str]
    activations: Mapping[str, str] = field(default_factory=dict)  # an INT8 kernel's u8 or i8, by layer
    unnamed_int8: Counter[str] = field(default_factory=Counter)  # by activation precision
    unnamed_float: int = 0

    @property
    def seen(self) -> frozenset[str]:
        return self.int8 | self.float


def read_int8(layers: Iterable[RuntimeLayer], weightable: Collection[str],
              aliases: Mapping[str, str] | None = None, others: Collection[str] = ()) -> Int8Truth:
    """Which weightable layers (original names) the runtime `layers` ran on INT8 kernels; a weight
    kernel named after one of `others` (`unreported_kernel_layers`) computes no weightable layer."""
    alias = aliases or {}

    def resolve(name: str) -> str | None:
        name = name.removesuffix(DEQUANTIZATION_SUFFIX)
        return name if name in weightable else alias.get(name)

    int8: set[str] = set()
    flt: set[str] = set()
    opaque: set[str] = set()
    activations: dict[str, str] = {}
    unnamed_int8, unnamed_float = Counter[str](), 0
    for layer in layers:
        named = [(name, found) for name in layer.original_names if (found := resolve(name))]
        if layer.layer_type == "Subgraph":  # the layers inside, by the evidence of their dequantization
            listed = set(layer.original_names)
            for name, found in named:
                if not name.endswith(DEQUANTIZATION_SUFFIX):
                    (int8 if f"{name}{DEQUANTIZATION_SUFFIX}" in listed else opaque).add(found)
        elif layer.layer_type in WEIGHTABLE_KERNELS and named:
            own = named[0][1]
            if on_int8_kernel(layer):
                int8.add(own)
                activations[own] = layer.runtime_precision.lower()
            else:
                flt.add(own)
            opaque.update(found for _, found in named[1:])
        elif layer.layer_type in WEIGHT_KERNELS and not any(name in others for name in layer.original_names):
            if on_int8_kernel(layer):
                unnamed_int8[layer.runtime_precision.lower()] += 1
            else:
                unnamed_float += 1
        else:
            opaque.update(found for _, found in named)
    flt -= int8
    return Int8Truth(frozenset(int8), frozenset(flt), frozenset(opaque - int8 - flt), activations, unnamed_int8,
                     unnamed_float)


def judge_prediction(truth: Int8Truth, low: Mapping[str, str], weight_carrying: Collection[str]) -> list[str]:
    """Where a prediction disagrees with the runtime: `low` maps each layer predicted to run in
    low precision to its activation precision (u8/i8); `weight_carrying` are the weightable layers
    with constant weights, which the weight kernels named after no layer compute."""
    problems = []
    missing, extra = sorted(truth.int8 - set(low)), sorted(truth.float & set(low))
    if missing:
        problems.append(f"missing {len(missing)} {missing[:2]}")
    if extra:
        problems.append(f"extra {len(extra)} {extra[:2]}")
    signed = sorted(name for name, ran in truth.activations.items() if name in low and low[name] != ran)
    if signed:
        problems.append(f"{len(signed)} with other activations than the kernel's, e.g. {signed[0]}: "
                        f"{low[signed[0]]} predicted, {truth.activations[signed[0]]} ran")
    unseen = set(weight_carrying) - truth.seen - truth.opaque
    predicted = Counter(low[name] for name in unseen if name in low)
    floats = len(unseen - set(low))
    # Each layer named by no kernel is computed by a kernel named after no layer, of the predicted
    # kind; more such kernels than layers is no disagreement: the plugin may run one layer in two
    # kernels (a MatMul whose result LPT dequantizes twice, for a residual Add and a LayerNorm).
    covered = all(truth.unnamed_int8[kind] >= count for kind, count in predicted.items())
    if not covered or truth.unnamed_float < floats:
        problems.append(f"layers named by no kernel: {dict(predicted)} low and {floats} float predicted; kernels "
                        f"named after no layer: {dict(truth.unnamed_int8)} INT8 and {truth.unnamed_float} float")
    return problems


def lost_names(wanted: Iterable[str], layers: Iterable[RuntimeLayer],
               aliases: Mapping[str, str] | None = None) -> list[str]:
    """The user-given names of `wanted` that no runtime op lists in originalLayersNames (a layer
    listed under its alias, see `fused_multiply_aliases`, is not lost)."""
    names = {n for layer in layers for n in layer.original_names}
    names |= {layer for alias, layer in (aliases or {}).items() if alias in names}
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
