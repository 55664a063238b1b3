"""Sizes for the dynamic dimensions of a model's inputs nobody gave (`--shape`), free of openvino.

One rule for the inputs `verify` and `transform --check` make and for the `--shape` the report
suggests: a realistic input, never a 1x1 image or a one-token sequence, which hide what
full-size inputs show: batch 1; the spatial dimensions of a rank-4 input 224; the sequence of a
rank-2 input 128; any other dimension 16.
"""
from __future__ import annotations

from collections.abc import Sequence


def default_dim(axis: int, rank: int) -> int:
    """The size of dynamic dimension `axis` of a rank-`rank` input."""
    if axis == 0:
        return 1
    if rank == 4 and axis >= 2:
        return 224
    if rank == 2:
        return 128
    return 16


def suggested_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """`shape` with each dynamic dimension (negative) at its default size."""
    return tuple(d if d >= 0 else default_dim(axis, len(shape)) for axis, d in enumerate(shape))
