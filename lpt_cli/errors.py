"""Errors the CLI turns into one line on stderr and an exit code."""
from __future__ import annotations


class LptError(Exception):
    """Bad input or usage: the message names the file and what is wrong (exit 2)."""

    exit_code = 2
