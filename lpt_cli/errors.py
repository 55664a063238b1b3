"""Errors the CLI turns into one line on stderr and an exit code."""
from __future__ import annotations


class LptError(Exception):
    """Bad input or usage: the message names the file and what is wrong (exit 2)."""

    exit_code = 2


class IRReadError(LptError):
    """An IR file is malformed or unsupported; the message names the file and the layer."""


class IRWriteError(LptError):
    """An IR cannot be written where asked (e.g. it would overwrite the input model)."""
