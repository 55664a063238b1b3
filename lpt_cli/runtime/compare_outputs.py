"""Output-by-output error between two runs of the same inputs (the original and lpt's model)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OutputError:
    index: int
    name: str
    max_abs: float
    max_rel: float
    within: bool  # every element satisfies |a - b| <= atol + rtol * |b| (numpy.allclose)


def output_errors(names: list[str], reference: list[np.ndarray], candidate: list[np.ndarray],
                  atol: float, rtol: float) -> list[OutputError]:
    errors = []
    for i, (name, ref, got) in enumerate(zip(names, reference, candidate)):
        ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
        diff = np.abs(got64 - ref64)
        max_abs = float(diff.max()) if diff.size else 0.0
        rel = diff / np.maximum(np.abs(ref64), np.finfo(np.float32).tiny)
        max_rel = float(rel.max()) if rel.size else 0.0
        within = ref.shape == got.shape and bool(np.all(diff <= atol + rtol * np.abs(ref64)))
        errors.append(OutputError(i, name, max_abs, max_rel, within))
    return errors
