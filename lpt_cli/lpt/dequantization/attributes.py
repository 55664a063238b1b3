"""LPT markup attributes: what the markup step leaves on nodes and ports for transformations.

Keys (constants below) are OpenVINO's attribute class names. Values are the classes below.

| key                                   | where                               | value                          |
| ------------------------------------- | ----------------------------------- | ------------------------------ |
| PrecisionsAttribute                   | Input (restrictions), FQ Output 0,  | `PrecisionsAttribute`; `.value`|
|                                       | precision-preserved Node            | list[ElementType] (ordered)    |
| PrecisionPreservedAttribute           | Node                                | `PrecisionPreservedAttribute`; |
|                                       |                                     | `.value` bool                  |
| AvgPoolPrecisionPreservedAttribute    | AvgPool Node (shares its value with | `PrecisionPreservedAttribute`  |
|                                       | the node's PrecisionPreserved)      |                                |
| IntervalsAlignmentAttribute           | FQ and precision-preserved Nodes    | `IntervalsAlignmentAttribute`; |
|                                       |                                     | `.value` IntervalsAlignment,   |
|                                       |                                     | `.levels` int (per instance)   |
| QuantizationAlignmentAttribute        | precision-preserved Nodes           | `QuantizationAlignmentAttribute`|
|                                       |                                     | `.value` bool                  |
| QuantizationGranularityAttribute      | Input                               | "PerTensor" or "PerChannel"    |
| BiasAttribute                         | Add Node (MarkupBias)               | True                           |
| DisableCleanupAttribute               | Node (set by transformations)       | True                           |

Shared attributes model OpenVINO's SharedValue: several attribute objects point to one
`SharedValue`; `share_into(target)` re-points every holder of one value to another, so
narrowing a Concat's precisions narrows every FakeQuantize feeding it. Use the accessors at
the bottom rather than the raw dictionaries.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ...ir import Input, Node, Output
from ...ir.eltypes import ElementType

PRECISIONS = "PrecisionsAttribute"
PRECISION_PRESERVED = "PrecisionPreservedAttribute"
AVG_POOL_PRECISION_PRESERVED = "AvgPoolPrecisionPreservedAttribute"
INTERVALS_ALIGNMENT = "IntervalsAlignmentAttribute"
QUANTIZATION_ALIGNMENT = "QuantizationAlignmentAttribute"
QUANTIZATION_GRANULARITY = "QuantizationGranularityAttribute"
BIAS = "BiasAttribute"
DISABLE_CLEANUP = "DisableCleanupAttribute"

PER_TENSOR = "PerTensor"
PER_CHANNEL = "PerChannel"

T = TypeVar("T")
Holder = Node | Input | Output


class SharedValue(Generic[T]):
    """One value and the attributes that currently point to it."""

    __slots__ = ("value", "holders")

    def __init__(self, value: T) -> None:
        self.value = value
        self.holders: list[SharedAttribute[T]] = []


class SharedAttribute(Generic[T]):
    """An attribute whose value may be shared with others (OpenVINO's SharedAttribute)."""

    def __init__(self, value: T) -> None:
        self.shared: SharedValue[T] = SharedValue(value)
        self.shared.holders.append(self)

    @property
    def value(self) -> T:
        return self.shared.value

    @value.setter
    def value(self, new: T) -> None:
        self.shared.value = new

    def share_into(self, target: SharedAttribute[T]) -> None:
        """Every attribute pointing at my value now points at `target`'s value."""
        source = self.shared
        if source is target.shared:
            return
        for holder in list(source.holders):
            holder.shared = target.shared
            target.shared.holders.append(holder)
        source.holders.clear()

    def merge(self, others: list[SharedAttribute[T]]) -> None:
        """Folds `others`' values into mine (the subclass decides how)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"


class PrecisionsAttribute(SharedAttribute[list[ElementType]]):
    """Precisions a port may take; merging keeps my order, intersected with the others."""

    def merge(self, others: list[SharedAttribute[list[ElementType]]]) -> None:
        kept = list(self.value)
        for other in others:
            if not kept:
                break
            kept = [p for p in kept if p in other.value]
        self.value = kept


class PrecisionPreservedAttribute(SharedAttribute[bool]):
    """Whether an op's output precision equals its input precision."""

    def merge(self, others: list[SharedAttribute[bool]]) -> None:
        """AvgPool's dependent attribute does not merge values."""


class QuantizationAlignmentAttribute(SharedAttribute[bool]):
    """Whether a precision-preserved subgraph needs per-tensor aligned quantization."""

    def merge(self, others: list[SharedAttribute[bool]]) -> None:
        self.value = self.value or any(o.value for o in others)


@dataclass
class IntervalsAlignment:
    """The shared value of IntervalsAlignmentAttribute (intervals are (low, high))."""

    combined: tuple[float, float]
    min_interval: tuple[float, float]
    min_levels: int
    preferable_precisions: set[ElementType] = field(default_factory=set)


class IntervalsAlignmentAttribute(SharedAttribute[IntervalsAlignment]):
    """Combined interval of the FakeQuantizes feeding one Concat subgraph."""

    def __init__(self, value: IntervalsAlignment, levels: int) -> None:
        super().__init__(value)
        self.levels = levels

    def merge(self, others: list[SharedAttribute[IntervalsAlignment]]) -> None:
        from .fake_quantize_math import calculate_levels  # the math module imports us

        for other in others:
            mine, theirs = self.value, other.value
            if self.levels != getattr(other, "levels", self.levels):
                self.levels = 0
                mine.min_levels = 0
            mine.combined = (min(mine.combined[0], theirs.combined[0]), max(mine.combined[1], theirs.combined[1]))
            mine.preferable_precisions |= theirs.preferable_precisions
            if abs(mine.min_interval[1] - mine.min_interval[0]) > abs(theirs.min_interval[1] - theirs.min_interval[0]):
                mine.min_interval = theirs.min_interval
                if self.levels != 0:
                    mine.min_levels = calculate_levels(0.0, self.levels - 1, *mine.combined, *mine.min_interval).levels


# --- accessors -------------------------------------------------------------------------
def get(holder: Holder, key: str) -> Any:
    return holder.annotations.get(key)


def precisions_of(holder: Holder) -> list[ElementType] | None:
    """The PrecisionsAttribute value on a node or port, None when absent."""
    attr = holder.annotations.get(PRECISIONS)
    return None if attr is None else list(attr.value)


def is_precision_preserved(node: Node) -> bool:
    """NetworkHelper::isPrecisionPreserved: the node's PrecisionPreserved value."""
    attr = node.annotations.get(PRECISION_PRESERVED)
    return bool(attr is not None and attr.value)


def quantization_alignment(node: Node) -> bool | None:
    attr = node.annotations.get(QUANTIZATION_ALIGNMENT)
    return None if attr is None else bool(attr.value)


def intervals_alignment(node: Node) -> IntervalsAlignmentAttribute | None:
    return node.annotations.get(INTERVALS_ALIGNMENT)


def requires_per_tensor(slot: Input) -> bool:
    return slot.annotations.get(QUANTIZATION_GRANULARITY) == PER_TENSOR


def is_bias(node: Node) -> bool:
    return bool(node.annotations.get(BIAS))


def is_cleanup_disabled(node: Node) -> bool:
    return bool(node.annotations.get(DISABLE_CLEANUP))


def disable_cleanup(node: Node) -> None:
    node.annotations[DISABLE_CLEANUP] = True
