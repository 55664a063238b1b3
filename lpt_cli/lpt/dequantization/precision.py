"""Quantization levels, the precision an FQ interval maps to, and the integer range per type.

LPT's choice of u8 vs i8 (and whether a zero point is needed) hangs on a few hard-coded
thresholds; they live here so decomposition, weights and markup decide identically.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...ir import Node
from ...ir.eltypes import LOW_PRECISION, ElementType, element_type

INT4, INT4_NARROW = 16, 15
INT8, INT8_NARROW = 256, 255
INT16, INT16_NARROW = 65536, 65535
INT32, INT32_NARROW = 4294967296, 4294967295
ALL_LEVELS = frozenset({INT4, INT4_NARROW, INT8, INT8_NARROW, INT16, INT16_NARROW, INT32, INT32_NARROW})
_FULL_RANGE_LEVELS = frozenset({INT4, INT8, INT16, INT32})

_ZERO_THRESHOLD = 1e-6
_ASYMMETRY_THRESHOLD = 0.002



def is_supported_level(levels: int) -> bool:
    return levels in ALL_LEVELS


def is_supported_precision(etype: ElementType | None) -> bool:
    """DataPrecision::isSupported: the integer types LPT quantizes to."""
    return etype in LOW_PRECISION


@dataclass(frozen=True)
class QuantizationDetails:
    """The levels and the four interval vectors of a FakeQuantize (float64, flattened)."""

    levels: int
    input_low: np.ndarray
    input_high: np.ndarray
    output_low: np.ndarray
    output_high: np.ndarray

    @property
    def channels(self) -> int:
        return self.output_low.size


def constant_intervals(fq: Node) -> bool:
    """outputLayoutIsSupported: inputs 1..4 of the FQ are Constants."""
    return len(fq.inputs) == 5 and all(fq.input_node(i).type == "Constant" for i in range(1, 5))


def is_quantize_supported(fq: Node) -> bool:
    """Constant intervals and a level count LPT knows."""
    return constant_intervals(fq) and is_supported_level(fq_levels(fq))


def fq_levels(fq: Node) -> int:
    return fq.attr_int("levels", 0) or 0


def get_details(fq: Node) -> QuantizationDetails | None:
    """QuantizationDetails::getDetails, or None when an interval is not a Constant."""
    if not constant_intervals(fq):
        return None
    values = [np.asarray(fq.input_node(i).value, dtype=np.float64).reshape(-1) for i in range(1, 5)]
    return QuantizationDetails(fq_levels(fq), *values)


def check(etype: ElementType, levels: int) -> bool:
    """DataPrecision::check: does `levels` fit the integer type?"""
    name = etype.name
    if name in ("i4", "u4", "nf4"):
        return levels in (INT4, INT4_NARROW)
    if name in ("i8", "u8"):
        return levels in (INT8, INT8_NARROW)
    if name in ("i16", "u16"):
        return levels in (INT16, INT16_NARROW)
    if name in ("i32", "u32"):
        return levels in (INT32, INT32_NARROW)
    return False


def min_value(etype: ElementType, levels: int) -> float:
    """DataPrecision::getMinValue (narrow range raises the signed minimum by one)."""
    name = etype.name
    if etype.kind == "uint" or name == "u4":
        return 0.0
    signed: dict[str, dict[int | None, float]] = {
        "i4": {None: -8.0},
        "i8": {16: -8.0, 15: -7.0, 256: -128.0, 255: -127.0},
        "i16": {65536: -32768.0, 65535: -32767.0},
        "i32": {INT32: -2147483648.0, INT32_NARROW: -2147483647.0},
    }
    if name in signed:
        table = signed[name]
        if None in table:
            return table[None]
        if levels in table:
            return table[levels]
    floats = {"f16": -1.0e15, "bf16": -3.38953139e38, "f32": float(np.finfo(np.float32).min)}
    if name in floats:
        return floats[name]
    raise ValueError(f"no minimum for {name} with {levels} levels")


def max_value(etype: ElementType, levels: int) -> float:
    """DataPrecision::getMaxValue; like OpenVINO, u8 is 255 and i8 127 for every non-16 level count."""
    table = {
        "u4": 15.0, "u16": 65535.0, "u32": 4294967296.0, "i4": 7.0, "i16": 32767.0, "i32": 2147483648.0,
        "f16": 1.0e15, "bf16": 3.38953139e38, "f32": float(np.finfo(np.float32).max),
    }
    if etype.name == "u8":
        return 15.0 if levels == INT4 else 255.0
    if etype.name == "i8":
        return 7.0 if levels == INT4 else 127.0
    if etype.name in table:
        return table[etype.name]
    raise ValueError(f"no maximum for {etype.name}")


@dataclass(frozen=True)
class PrecisionDetails:
    """getPrecisionDetails: the interval's natural precision (None: needs a zero point / mixed)."""

    precision: ElementType | None
    has_negative_output: bool
    has_zero_point: bool


def _precision_for(levels: int, signed: bool) -> ElementType | None:
    prefix = "i" if signed else "u"
    if levels in (INT4, INT8, INT8_NARROW):
        return element_type(prefix + "8")
    if levels in (INT16, INT16_NARROW):
        return element_type(prefix + "16")
    if levels in (INT32, INT32_NARROW):
        return element_type(prefix + "32")
    return None


def get_precision_details(levels: int, output_low: np.ndarray | Sequence[float],
                          output_high: np.ndarray | Sequence[float]) -> PrecisionDetails:
    """LayerTransformation::getPrecisionDetails with OpenVINO's hard-coded thresholds.

    OpenVINO loops over the channels; the same float32 steps run here on all channels at once
    (a per-channel weights FakeQuantize has hundreds: the loop in Python was a third of the
    pipeline on EfficientNet-V2-S)."""
    # OpenVINO computes in float32; the thresholds are sensitive to it.
    low, high = np.asarray(output_low, dtype=np.float32), np.asarray(output_high, dtype=np.float32)
    if low.shape != high.shape:  # broadcast before flattening: a per-tensor low may go with a per-channel high
        low, high = np.broadcast_arrays(low, high)
    low, high = low.reshape(-1), high.reshape(-1)
    low_non_zero = np.abs(low) >= _ZERO_THRESHOLD
    normal = ~((np.abs(low) < _ZERO_THRESHOLD) & (np.abs(high) < _ZERO_THRESHOLD))  # not [0, 0] (NaN is not 0)
    if not normal.any():
        signed = bool(np.any(low < 0))
        return PrecisionDetails(_precision_for(levels, signed), False, False)
    straddles = normal & low_non_zero & (np.signbit(low) != np.signbit(high))  # low < 0 < high
    one_sided = normal & ~straddles
    has_zp = bool(np.any(one_sided & low_non_zero)) or bool(np.any(straddles & (high == 0)))
    ratio = straddles & (high != 0)
    if not has_zp and ratio.any():
        expected = np.float32(-np.float32(levels) / (np.float32(levels) - np.float32(2))) \
            if levels in _FULL_RANGE_LEVELS else np.float32(-1.0)
        actual = low[ratio] / high[ratio]
        has_zp = bool(np.any(np.abs((actual - expected) / np.minimum(actual, expected)) > np.float32(_ASYMMETRY_THRESHOLD)))
    signed, unsigned = not one_sided.any(), not straddles.any()
    precision = _precision_for(levels, signed) if not has_zp and signed != unsigned else None
    return PrecisionDetails(precision, bool(straddles.any()), has_zp)


@dataclass(frozen=True)
class DataPrecision:
    """The integer type an FQ quantizes to, its [min, max], and whether a zero point is needed."""

    precision: ElementType
    min: float
    max: float
    has_zero_point: bool

    @classmethod
    def of(cls, precision: ElementType, levels: int, has_zero_point: bool) -> DataPrecision:
        return cls(precision, min_value(precision, levels), max_value(precision, levels), has_zero_point)


def get_data_precision(details: QuantizationDetails, required: Sequence[ElementType]) -> DataPrecision | None:
    """LayerTransformation::getDataPrecision (weights): the natural precision if allowed, else
    the first required one with a zero point; None when the levels do not fit the type."""
    natural = get_precision_details(details.levels, details.output_low, details.output_high)
    if natural.precision is not None and not required:
        return DataPrecision.of(natural.precision, details.levels, natural.has_zero_point)
    if not required:
        return None
    if natural.precision is not None and natural.precision in required:
        chosen, has_zp = natural.precision, natural.has_zero_point
    else:
        chosen, has_zp = required[0], True
    if not check(chosen, details.levels):
        return None
    return DataPrecision.of(chosen, details.levels, has_zp)


def precisions_for_levels(levels: int) -> tuple[ElementType, ...]:
    """Integer types an activation FQ with `levels` may use (16 and 15 levels still map to 8 bits)."""
    if levels in (INT16, INT16_NARROW):
        return element_type("u16"), element_type("i16")
    if levels in (INT32, INT32_NARROW):
        return element_type("u32"), element_type("i32")
    return element_type("u8"), element_type("i8")
