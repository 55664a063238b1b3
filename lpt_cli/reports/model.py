"""The report's data: one row per original layer, a summary, and their JSON form.

The JSON form is the contract CI scripts read (report.schema.json documents it), so
field names here are stable; renderers only format these objects.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

LOW = "low-precision"
ORIGINAL = "original-precision"
NOT_QUANTIZED = "not-quantized"
REMOVED = "removed"
STATUSES = (LOW, ORIGINAL, NOT_QUANTIZED, REMOVED)
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Reason:
    """Why a layer is not in low precision; `code` is stable, `detail` is for humans."""

    code: str
    detail: str
    transformation: str | None = None


@dataclass(frozen=True)
class LayerRow:
    """What happened to one layer of the original model."""

    name: str
    type: str
    input_precisions: tuple[str, ...]
    output_precision: str
    status: str
    reason: Reason | None = None
    macs: int | None = None  # weightable layers only
    transformed_name: str | None = None  # its name after LPT (None: removed)

    def to_dict(self) -> dict[str, Any]:
        """One entry of the JSON document's `layers`."""
        item = asdict(self)
        item["input_precisions"] = list(self.input_precisions)
        return item


@dataclass(frozen=True)
class Summary:
    """Counts CI gates on: the MAC-weighted low-precision share of weightable layers above all."""

    profile: str
    isa: str
    layers: int
    by_status: dict[str, int]
    weightable: int
    weightable_low_precision: int
    macs_total: int
    macs_low_precision: int
    low_precision_share: float  # percent of weightable MACs in low precision (count share if no MACs)
    fake_quantize_before: int
    fake_quantize_left: int
    reasons: dict[str, int]
    applied: dict[str, int] = field(default_factory=dict)
    weight_compressed: dict[str, int] = field(default_factory=dict)  # weights type -> layers
    macs_per_position: bool = False  # dynamic dimensions counted as 1 in the MACs
    dynamic_inputs: dict[str, list[int]] = field(default_factory=dict)  # input -> shape, -1 dynamic


@dataclass(frozen=True)
class Report:
    model: str
    layers: tuple[LayerRow, ...]
    summary: Summary

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (see report.schema.json)."""
        layers = [row.to_dict() for row in self.layers]
        summary = asdict(self.summary)
        summary["unimplemented"] = []  # schema 1 keeps the key; lpt implements every name it knows
        return {"schema_version": SCHEMA_VERSION, "model": self.model, "summary": summary, "layers": layers}
