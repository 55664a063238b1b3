"""Errors the CLI turns into one line on stderr and an exit code."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import Transformed
    from .runtime.check import CheckResult


class LptError(Exception):
    """Bad input or usage: the message names the file and what is wrong (exit 2)."""

    exit_code = 2


class LptWarning(UserWarning):
    """Input that is valid but likely not what was meant; the CLI prints `lpt: warning: ...`."""


class IRReadError(LptError):
    """An IR file is malformed or unsupported; the message names the file and the layer."""


class IRWriteError(LptError):
    """An IR cannot be written where asked (e.g. it would overwrite the input model)."""


class CheckFailed(LptError):
    """`check=True` (`lpt transform --check`) refused lpt's output, and removed it.

    `check.outputs` has every output's error against the original on the CPU plugin: one above
    the limit is exit 4. When the plugin runs the original but not lpt's output, `check.error`
    says why: a bug in lpt, exit 1. `transformed` is the run that was checked.
    """

    def __init__(self, message: str, check: CheckResult, transformed: Transformed) -> None:
        super().__init__(message)
        self.check = check
        self.transformed = transformed
        self.exit_code = 1 if check.error is not None else 4


class CompileRefused(LptError):
    """OpenVINO refused to compile a model; `reason` is its message, without the file name."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class OutputRefused(LptError):
    """OpenVINO takes the user's model but not lpt's output of it, or the output lost a result:
    a bug in lpt, not bad input (exit 1). The message names the user's model and what OpenVINO
    said, not the temporary file lpt wrote and removed."""

    exit_code = 1


class PassError(Exception):
    """An unexpected exception inside a transformation pass, with the pass and layer it hit.

    Not an LptError: it is still an internal error (exit 1), but its message tells a bug
    report where to look instead of a bare `KeyError`.
    """

    def __init__(self, pass_name: str, layer: str, layer_id: int, cause: BaseException) -> None:
        detail = str(cause).splitlines()[0] if str(cause) else ""
        super().__init__(f"in {pass_name} at layer '{layer}' (id {layer_id}): {type(cause).__name__}: {detail}")


def clip(value: object, limit: int = 80) -> str:
    """`value` as text on one line, at most `limit` characters: error messages echo user input."""
    text = value if isinstance(value, str) else str(value)
    # Fast path (readers clip every layer name up front): printable text has no whitespace
    # but spaces, so without doubled or outer spaces it is already on one line.
    if not (text.isprintable() and "  " not in text and not text.startswith(" ") and not text.endswith(" ")):
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
