"""Options every command takes, declared once so that they read the same everywhere."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..lpt import PROFILE_NAMES

F = TypeVar("F", bound=Callable[..., Any])

DEBUG = "lpt.debug"  # key of ctx.meta, which every nested context shares


def debug_requested(ctx: click.Context) -> bool:
    """Whether --debug was given, before or after the subcommand."""
    return bool(ctx.meta.get(DEBUG))


def _set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[DEBUG] = True


def debug_option(command: F) -> F:
    """`--debug` on the group and on every command, so it works wherever it is typed."""
    return click.option("--debug", is_flag=True, is_eager=True, expose_value=False, callback=_set_debug,
                        help="Show Python tracebacks on errors (or set LPT_DEBUG=1).")(command)


def config_option(help_text: str = "") -> Callable[[F], F]:
    """`--config PATH|NAME`: a restrictions file or a built-in profile (default cpu)."""
    text = (f"Restrictions file (YAML) or a built-in profile: {', '.join(PROFILE_NAMES)} "
            f"(see `lpt config list`).{' ' + help_text if help_text else ''}")
    return click.option("--config", "config_spec", default="cpu", show_default=True, metavar="PATH|NAME",
                        help=text)
