"""What the device actually ran: per-op precision of the runtime model, and perf counters.

The CPU plugin's runtime model is the reference for "which layers ran in INT8": each op
carries `runtimePrecision`, `primitiveType` (e.g. `jit_avx2_I8`), `outputPrecisions` and
`originalLayersNames` (the IR layers fused into it, the op's own layer first).
"""
from __future__ import annotations

from dataclasses import dataclass

import openvino as ov

from ..ir.eltypes import REPORTED_LOW_PRECISION

_LOW = frozenset(t.name for t in REPORTED_LOW_PRECISION)
_FLOAT = frozenset({"f32", "f16", "bf16", "f64"})
_NOT_KERNELS = frozenset({"Reorder", "Const", "Input", "Output"})
DEQUANTIZATION_SUFFIX = "/DequantizationMultiply"  # LPT's name for the dequantization it moved after a layer


@dataclass(frozen=True)
class RuntimeLayer:
    name: str
    layer_type: str
    runtime_precision: str
    output_precisions: tuple[str, ...]
    primitive: str
    original_names: tuple[str, ...]

    @property
    def computes_low(self) -> bool:
        """Computed on u8/i8: u8/i8 inputs on an integer primitive (`..._I8`, data movement
        included). A float kernel reading i8 (Swin-T's attention MatMul on AVX2, `brgemm_avx2_f32`)
        or a weight-compressed FullyConnected reporting u8 weights computes in float."""
        return (self.runtime_precision.lower() in _LOW and self.primitive.upper().endswith(("_I8", "_U8"))
                and self.layer_type != "Reorder")

    @property
    def outputs_low(self) -> bool:
        """Its output is u8/i8: a quantizer (a FakeQuantize, or one fused into the op), or integer data."""
        return any(p.lower() in _LOW for p in self.output_precisions[:1]) and self.layer_type != "Reorder"

    @property
    def float_input(self) -> bool:
        """Computed from float data (so a u8/i8 output is a quantization, not integer data moved on)."""
        return self.runtime_precision.lower() in _FLOAT


@dataclass(frozen=True)
class PerfRow:
    """One line of benchmark_app -pc."""

    layer: str
    status: str
    layer_type: str
    exec_type: str
    real_ms: float
    cpu_ms: float


def runtime_layers(compiled: ov.CompiledModel) -> list[RuntimeLayer]:
    found = []
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()

        def get(key: str, info=info) -> str:
            return info[key].astype(str) if key in info else ""

        names = tuple(n for n in get("originalLayersNames").split(",") if n)
        outputs = tuple(p.strip() for p in get("outputPrecisions").split(",") if p.strip())
        found.append(RuntimeLayer(op.get_friendly_name(), get("layerType"), get("runtimePrecision"),
                                  outputs, get("primitiveType"), names))
    return found


def is_int8_kernel(layer: RuntimeLayer) -> bool:
    """An op computing with an integer kernel (primitiveType ending in _I8/_U8); data movement
    (Reorder) and constants/inputs/outputs do not count."""
    return layer.layer_type not in _NOT_KERNELS and layer.primitive.upper().endswith(("_I8", "_U8"))


def int8_kernels(compiled: ov.CompiledModel) -> int:
    """How many runtime ops of `compiled` compute with an integer kernel."""
    return sum(1 for layer in runtime_layers(compiled) if is_int8_kernel(layer))


def by_original_name(layers: list[RuntimeLayer]) -> dict[str, tuple[RuntimeLayer, bool]]:
    """Original layer name -> (runtime op it ran in, whether it is that op's own layer)."""
    found: dict[str, tuple[RuntimeLayer, bool]] = {}
    for layer in layers:
        for i, name in enumerate(layer.original_names):
            if name not in found or (i == 0 and not found[name][1]):
                found[name] = (layer, i == 0)
    return found


def ran_low(layer: RuntimeLayer, name: str, own: bool) -> bool:
    """Whether IR layer `name`, listed in `layer`'s originalLayersNames, computed on integers there.
    A layer fused into a snippets Subgraph does not take the Subgraph's precision, which is its
    narrowest input's (lpt_cli/isa.py, rule subgraph_precision): it did when LPT's dequantization
    of it is fused there too."""
    if layer.layer_type == "Subgraph" and not own:
        return f"{name}{DEQUANTIZATION_SUFFIX}" in layer.original_names
    return layer.computes_low


def perf_counters(request: ov.InferRequest) -> list[PerfRow]:
    return [PerfRow(p.node_name, p.status.name, p.node_type, p.exec_type,
                    p.real_time.total_seconds() * 1e3, p.cpu_time.total_seconds() * 1e3)
            for p in request.profiling_info]


PERF_HEADER = ("layerName", "execStatus", "layerType", "execType", "realTime (ms)", "cpuTime (ms)")


def perf_cells(row: PerfRow) -> tuple[str, ...]:
    """One row of benchmark_app -pc, as text (PERF_HEADER's columns)."""
    return (row.layer, row.status, row.layer_type, row.exec_type, f"{row.real_ms:.3f}", f"{row.cpu_ms:.3f}")


def describe(layer: RuntimeLayer) -> str:
    """`runtimePrecision (primitiveType)`, e.g. `u8 (jit_avx2_I8)`; `f32->u8 (...)` for a quantizer."""
    text = layer.runtime_precision
    if layer.output_precisions and layer.output_precisions[0] != text:
        text += f"->{layer.output_precisions[0]}"
    return f"{text} ({layer.primitive})" if layer.primitive else text
