"""Element types of OpenVINO IR: names, IR precision spellings, numpy dtypes, value ranges.

One table so the reader, the writer and the transformations agree on what a type is.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ElementType:
    """One OpenVINO element type; `name` is the IR v11 spelling (`f32`, `u8`, ...)."""

    name: str
    precision: str  # spelling in <port precision="...">
    bits: int
    kind: str  # "float", "int", "uint", "bool", "packed"
    dtype: np.dtype | None  # numpy storage; None for packed sub-byte types

    @property
    def is_real(self) -> bool:
        return self.kind == "float"

    @property
    def is_integral(self) -> bool:
        return self.kind in ("int", "uint") or (self.kind == "packed" and self.name != "nf4")

    @property
    def is_signed(self) -> bool:
        return self.kind in ("int", "float") or self.name == "i4"

    @property
    def is_packed(self) -> bool:
        return self.kind == "packed"

    def nbytes(self, count: int) -> int:
        """Bytes that `count` elements take in a .bin (sub-byte types are packed)."""
        return (count * self.bits + 7) // 8

    def range(self) -> tuple[float, float]:
        """Representable [min, max] of an integral type."""
        if self.kind == "uint" or self.name == "u4" or self.name == "u1":
            return 0.0, float(2**self.bits - 1)
        if self.kind == "int" or self.name == "i4":
            return float(-(2 ** (self.bits - 1))), float(2 ** (self.bits - 1) - 1)
        if self.kind == "bool":
            return 0.0, 1.0
        info = np.finfo(np.float32 if self.dtype is None else self.dtype)
        return float(info.min), float(info.max)

    def __str__(self) -> str:
        return self.name


_TABLE = [
    ElementType("f64", "FP64", 64, "float", np.dtype(np.float64)),
    ElementType("f32", "FP32", 32, "float", np.dtype(np.float32)),
    ElementType("f16", "FP16", 16, "float", np.dtype(np.float16)),
    ElementType("bf16", "BF16", 16, "float", np.dtype(np.uint16)),  # raw bits; decode via to_float
    ElementType("i64", "I64", 64, "int", np.dtype(np.int64)),
    ElementType("i32", "I32", 32, "int", np.dtype(np.int32)),
    ElementType("i16", "I16", 16, "int", np.dtype(np.int16)),
    ElementType("i8", "I8", 8, "int", np.dtype(np.int8)),
    ElementType("u64", "U64", 64, "uint", np.dtype(np.uint64)),
    ElementType("u32", "U32", 32, "uint", np.dtype(np.uint32)),
    ElementType("u16", "U16", 16, "uint", np.dtype(np.uint16)),
    ElementType("u8", "U8", 8, "uint", np.dtype(np.uint8)),
    ElementType("boolean", "BOOL", 8, "bool", np.dtype(np.bool_)),
    ElementType("u1", "U1", 1, "packed", None),
    ElementType("u4", "U4", 4, "packed", None),
    ElementType("i4", "I4", 4, "packed", None),
    ElementType("nf4", "NF4", 4, "packed", None),
]

_BY_NAME = {t.name: t for t in _TABLE}
_ALIASES = {
    "bool": "boolean", "BIN": "u1", "FP64": "f64", "FP32": "f32", "FP16": "f16", "BF16": "bf16",
    "BOOL": "boolean", "U1": "u1", "U4": "u4", "I4": "i4", "NF4": "nf4",
}


class UnknownElementType(ValueError):
    """Raised for a type name the IR does not define (or lpt does not support)."""


def element_type(name: str | ElementType) -> ElementType:
    """Looks up a type by IR name (`f32`), port precision (`FP32`) or alias (`bool`, `BIN`)."""
    if isinstance(name, ElementType):
        return name
    key = _ALIASES.get(name, name)
    found = _BY_NAME.get(key) or _BY_NAME.get(key.lower())
    if found is None:
        raise UnknownElementType(f"unknown element type {name!r}")
    return found


def from_dtype(dtype: np.dtype) -> ElementType:
    """The element type that stores numpy `dtype` (bf16 excluded)."""
    for t in _TABLE:
        if t.dtype == np.dtype(dtype) and t.name != "bf16":
            return t
    raise UnknownElementType(f"no element type for numpy dtype {dtype}")


f32 = _BY_NAME["f32"]
f16 = _BY_NAME["f16"]
u8 = _BY_NAME["u8"]
i8 = _BY_NAME["i8"]
i32 = _BY_NAME["i32"]
i64 = _BY_NAME["i64"]
boolean = _BY_NAME["boolean"]

# The integer types LPT quantizes to (DataPrecision::isSupported).
LOW_PRECISION = frozenset(_BY_NAME[n] for n in ("u8", "i8", "u16", "i16", "u32", "i32"))
# What reports and the plugin's counters call low precision: integers of 16 bits or fewer
# (4-bit weights count; a 32-bit integer is an index, not quantized data).
REPORTED_LOW_PRECISION = frozenset(_BY_NAME[n] for n in ("u8", "i8", "u4", "i4", "u16", "i16"))
# Weight types of a compressed (weights-only) model: what NNCF stores under a dequantization.
COMPRESSED_WEIGHT_TYPES = frozenset(_BY_NAME[n] for n in ("u8", "i8", "u4", "i4", "nf4"))
