"""`lpt verify`'s verdict per output: the original, lpt's model and the exact FakeQuantize math.

The plugin runs its own LPT on the original model, with its own rounding (where a zero point
or a scale is folded, in which order); lpt's output is compiled by the same plugin and may
round elsewhere. So "differs from the original" alone cannot tell rounding from a changed
model. Both are measured against the exact reference (reference.py: every FakeQuantize as
float math, which the plugin runs as written): lpt's error there no more than ROUNDING times
the plugin's own is rounding of the same size; more is a change of the model.

Errors are relative to each output's range, max|reference| (parity.output_error): an output
near zero does not blow up a per-element relative error.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .check import LIMIT
from .parity import output_error

ROUNDING = 2.0  # lpt's error against the exact reference may be this many times the plugin's own
SAME, PLUGIN_ROUNDING, CHANGED = "same as the original", "same as the plugin's own rounding", "lpt changed the model"


@dataclass(frozen=True)
class OutputVerdict:
    """One output: lpt's model against the original and both against the exact reference."""

    name: str
    error: float  # max|lpt - original| / max|original| (absolute when `absolute`)
    absolute: bool  # the original's output is all zeros: no range to divide by
    within: bool  # every element within atol + rtol * |original| (numpy.allclose)
    lpt_exact: float  # lpt's model against the exact reference, relative to its range
    plugin_exact: float  # the original (the plugin's own LPT) against the exact reference

    @property
    def verdict(self) -> str:
        if self.within:
            return SAME
        return PLUGIN_ROUNDING if self.lpt_exact <= max(ROUNDING * self.plugin_exact, LIMIT) else CHANGED


def output_verdicts(names: list[str], original: list[np.ndarray], lpt: list[np.ndarray], exact: list[np.ndarray],
                    atol: float, rtol: float) -> list[OutputVerdict]:
    """The verdict of each output (the three runs on the same inputs)."""
    found = []
    for name, ref, got, math in zip(names, original, lpt, exact):
        error, absolute = output_error(ref, got)
        within = ref.shape == got.shape and bool(np.allclose(got.astype(np.float64), ref.astype(np.float64),
                                                             rtol=rtol, atol=atol, equal_nan=True))
        found.append(OutputVerdict(name, error, absolute, within, output_error(math, got)[0],
                                   output_error(math, ref)[0]))
    return found


def measure(value: float, absolute: bool = False) -> str:
    """An error for a table: `0`, `3.1e-02`, `inf`; `abs` when it is not relative."""
    text = "0" if value == 0 else f"{value:.1e}"
    return f"{text} abs" if absolute else text
