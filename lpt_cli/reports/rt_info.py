"""LPT's markup attributes as rt_info strings, for IR files people open in Netron.

Names are OpenVINO's runtime-attribute type names (`LowPrecision::Precisions`, ...);
values are short forms of OpenVINO's `to_string()` without the shared value's address.
The IR writer takes `markup_rt_info` as its generic `rt_info` callback.
"""
from __future__ import annotations

from typing import Any

from ..ir import Input, Node, Output
from ..lpt.dequantization import attributes as attr
from ..lpt.surgery.constants import DISABLE_CONSTANT_FOLDING

_NAMES = {
    attr.PRECISIONS: "LowPrecision::Precisions",
    attr.PRECISION_PRESERVED: "LowPrecision::PrecisionPreserved",
    attr.AVG_POOL_PRECISION_PRESERVED: "LowPrecision::AvgPoolPrecisionPreserved",
    attr.INTERVALS_ALIGNMENT: "LowPrecision::IntervalsAlignment",
    attr.QUANTIZATION_ALIGNMENT: "LowPrecision::QuantizationAlignment",
    attr.QUANTIZATION_GRANULARITY: "LowPrecision::QuantizationGranularity",
    attr.BIAS: "LowPrecision::Bias",
    attr.DISABLE_CLEANUP: "LowPrecision::DisableCleanup",
    DISABLE_CONSTANT_FOLDING: "DisableConstantFolding",
}


def markup_rt_info(holder: Node | Input | Output) -> dict[str, str]:
    """Attribute name -> value for every annotation on a node or port (unknown keys as they are)."""
    return {_NAMES.get(key, key): _render(value) for key, value in holder.annotations.items()}


def _render(value: Any) -> str:
    if isinstance(value, attr.IntervalsAlignmentAttribute):
        return _intervals(value)
    if isinstance(value, attr.SharedAttribute):
        return _render(value.value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (set, frozenset)):
        return ",".join(sorted(_render(v) for v in value))
    if isinstance(value, (list, tuple)):
        return ",".join(_render(v) for v in value)  # order matters: the first precision is preferred
    return getattr(value, "name", None) or str(value)


def _intervals(attribute: attr.IntervalsAlignmentAttribute) -> str:
    """OpenVINO's IntervalsAlignmentAttribute::to_string, numbers in %g."""
    value = attribute.value
    low, high = value.combined
    min_low, min_high = value.min_interval
    preferable = ",".join(sorted(p.name for p in value.preferable_precisions))
    return (f"levels: {attribute.levels}, combined: {{{low:g}, {high:g}}}, min: {{{min_low:g}, {min_high:g}}}, "
            f"minLevels: {value.min_levels}, preferablePrecisions: {{{preferable}}}")
