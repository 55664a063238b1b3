"""`lpt transform --check`: lpt's output computes what the original computes, on this machine's CPU.

The original is read here only for its inputs and output names; both models are compiled and run
in child processes (`oracle.plugin_run`, INFERENCE_PRECISION_HINT f32), so a plugin crash is a
verdict, not the end of lpt. Both get the same seeded random inputs shaped after the original
(`inputs.random_inputs`: `--shape` for dynamic dimensions, else its documented defaults, which
the result's `notes` name). An output passes when max|lpt - original| is at most LIMIT of
max|original| (`parity.output_error`; an all-zero output compares absolutely). Whose fault a
failure is decides the exit code: the original not running is the user's model (LptError,
exit 2); lpt's output not running (exit 1) or computing something else (exit 4) is lpt's.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import LptError
from .compile import openvino_message
from .device import core
from .inputs import Shapes, random_inputs
from .oracle import plugin_run
from .parity import output_error

DEVICE = "CPU"
LIMIT = 1e-5  # of max|original output|: the zoo parity tolerance (benchmarks/zoo_parity.py); 0.0 is reached there


@dataclass(frozen=True)
class OutputCheck:
    """One output of lpt's model against the same output of the original."""

    name: str  # a tensor name of the output, else its Result's name
    error: float  # max|lpt - original| / max|original|, or absolute (below); inf with a `detail`
    absolute: bool = False  # the original's output is all zeros: there is no max to divide by
    detail: str = ""  # why the error is infinite

    @property
    def passed(self) -> bool:
        return self.error <= LIMIT

    def measure(self) -> str:
        """`3.1e-02 of its max`: the error as the summary and the error line say it."""
        if self.detail:
            return self.detail
        size = "0" if self.error == 0 else f"{self.error:.1e}"
        return f"{size} absolute (the original's output is all zeros)" if self.absolute else f"{size} of its max"


@dataclass(frozen=True)
class CheckInputs:
    """What both models are fed, made from the original before lpt transforms it."""

    feed: dict[str, np.ndarray]  # by input name
    outputs: tuple[str, ...]  # the original's output names, in order
    seed: int
    notes: tuple[str, ...]  # dynamic dimensions given a default size


@dataclass(frozen=True)
class CheckResult:
    """The verdict: every output's error, or why the plugin did not run lpt's output."""

    inputs: tuple[tuple[str, tuple[int, ...]], ...]  # (name, shape) fed to both models
    seed: int
    notes: tuple[str, ...] = ()  # dynamic dimensions given a default size
    outputs: tuple[OutputCheck, ...] = ()
    error: str | None = None  # lpt's output did not compile or run (then `outputs` is empty)

    @property
    def passed(self) -> bool:
        return self.error is None and all(o.passed for o in self.outputs)

    @property
    def worst(self) -> OutputCheck | None:
        return max(self.outputs, key=lambda o: o.error, default=None)

    def to_dict(self) -> dict[str, Any]:
        """The `check` section of `lpt transform --format json` (transform.schema.json)."""
        return {
            "passed": self.passed,
            "device": DEVICE,
            "limit": LIMIT,
            "seed": self.seed,
            "inputs": {name: list(shape) for name, shape in self.inputs},
            "default_shapes": list(self.notes),
            "error": self.error,
            "outputs": [{"name": o.name, "error": o.error if np.isfinite(o.error) else None, "absolute": o.absolute,
                         "detail": o.detail, "passed": o.passed} for o in self.outputs],
        }


def check_inputs(original: Path, label: str, shapes: Shapes | None = None, seed: int = 0) -> CheckInputs:
    """The inputs of `original` (named `label` in messages): a bad `shapes` or a model the plugin
    cannot take fails here, before anything is transformed or written (LptError)."""
    try:
        model = core().read_model(str(original))
    except RuntimeError as err:
        raise LptError(f"--check: OpenVINO cannot read the original model {label}: {openvino_message(err)}") from None
    for i, port in enumerate(model.inputs):
        name = port.get_any_name() if port.get_names() else f"number {i}"
        if port.get_partial_shape().rank.is_dynamic:
            raise LptError(f"--check: input '{name}' of {label} has a dynamic rank, which the CPU plugin does not "
                           f"compile: transform it without --check")
        if not port.get_names():
            raise LptError(f"--check: input {name} of {label} has no tensor name to feed it by "
                           f"(`names` of its Parameter's output port)")
    notes: list[str] = []
    arrays = random_inputs(model, seed, shapes, notes)
    feed = {port.get_any_name(): array for port, array in zip(model.inputs, arrays)}
    names = tuple(port.get_any_name() if port.get_names() else result.get_friendly_name()
                  for port, result in zip(model.outputs, model.get_results()))
    return CheckInputs(feed, names, seed, tuple(notes))


def run_check(inputs: CheckInputs, original: Path, output: Path, label: str,
              progress: Callable[[str], None]) -> CheckResult:
    """Runs `original` (named `label`) and lpt's `output` on the plugin and compares every output.
    The original not running is an LptError; everything about lpt's output is in the result."""
    base = CheckResult(tuple((name, array.shape) for name, array in inputs.feed.items()), inputs.seed, inputs.notes)
    progress(f"check: running the original on {DEVICE}")
    reference = plugin_run(original, inputs.feed, device=DEVICE)
    if not reference.ok:
        fed = f"; dynamic dimensions got default sizes: {'; '.join(inputs.notes)}" if inputs.notes else ""
        raise LptError(f"--check: the CPU plugin cannot run the original model {label}: {reference.error}{fed}")
    progress(f"check: running lpt's output on {DEVICE}")
    candidate = plugin_run(output, inputs.feed, device=DEVICE)
    if not candidate.ok:
        return replace(base, error=candidate.error)  # a crash or a timeout says so
    if len(candidate.outputs) != len(reference.outputs):
        return replace(base, error=f"it has {len(candidate.outputs)} outputs, the original {len(reference.outputs)}")
    return replace(base, outputs=tuple(_compare(name, ref, got) for name, ref, got
                                       in zip(inputs.outputs, reference.outputs, candidate.outputs)))


def _compare(name: str, reference: np.ndarray, candidate: np.ndarray) -> OutputCheck:
    error, absolute = output_error(reference, candidate)
    if reference.shape != candidate.shape:
        detail = f"shape {list(candidate.shape)}, the original's {list(reference.shape)}"
    elif not np.isfinite(error):
        detail = "NaN or infinity where the original has none"
    else:
        detail = ""
    return OutputCheck(name, error, absolute, detail)


def failure(result: CheckResult, output: Path) -> str:
    """The one line a failed check ends with (the output was removed)."""
    if result.error is not None:
        return (f"--check: the CPU plugin runs the original but not lpt's output ({result.error}); "
                f"{output.name} removed: a bug in lpt, please report it")
    failed = [o for o in result.outputs if not o.passed]
    worst = max(failed, key=lambda o: o.error)
    above = "" if worst.detail else f", above the limit {LIMIT:g}"
    return (f"--check: output '{worst.name}' differs from the original: {worst.measure()}{above} "
            f"({len(failed)} of {len(result.outputs)} outputs differ); {output.name} removed")
