"""The `lpt` command group and its single error handler.

Every command raises; only here do exceptions become a one-line message and an exit
code: LptError (bad input or usage) -> exit 2, anything else -> exit 1 as an internal
error. Tracebacks are shown only with --debug or LPT_DEBUG=1.
"""
from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

import click

from .. import __version__
from ..errors import LptError, PassError

# Subcommands as "module:attribute" under lpt_cli.cli, imported only when asked for, so a
# command (or --help) pays only for what it uses, never for openvino or rich behind another.
SUBCOMMANDS = {
    "benchmark": "benchmark_cmd:benchmark",
    "config": "config_cmd:config_group",
    "diff": "diff_cmd:diff",
    "report": "report_cmd:report",
    "transform": "transform:transform",
    "verify": "verify_cmd:verify",
}


def _show_traceback(ctx: click.Context) -> None:
    """The traceback of the exception being handled, with --debug or LPT_DEBUG=1."""
    if ctx.params.get("debug") or os.environ.get("LPT_DEBUG", "") not in ("", "0"):
        import traceback  # loaded only for it

        traceback.print_exc()


def _describe(exc: Exception) -> str:
    """` in PASS at layer 'NAME' (id N): Type: detail` for a pass error, else `: Type: detail`."""
    if isinstance(exc, PassError):
        return f" {exc}"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f": {type(exc).__name__}: {detail}"


class LptGroup(click.Group):
    """A click group that turns exceptions from any subcommand into one line on stderr.

    `lazy` names subcommands ("module:attribute") imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, attribute = self.lazy[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(f".{module}", __package__), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except LptError as exc:
            _show_traceback(ctx)
            click.echo(f"lpt: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:  # `lpt report ... | head`: the reader has gone, as for any Unix tool
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
            ctx.exit(141)  # 128 + SIGPIPE, what a shell reports for a command killed by the pipe
        except Exception as exc:  # noqa: BLE001 - the one place that catches everything
            _show_traceback(ctx)
            click.echo(f"lpt: internal error{_describe(exc)} (run with --debug for the traceback)", err=True)
            ctx.exit(1)


@click.group(name="lpt", cls=LptGroup, lazy=SUBCOMMANDS, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="\b\nExample: lpt transform model.xml --config cpu -o model_int8.xml\n"
                    "Shell completion (bash; zsh/fish: zsh_source/fish_source):\n"
                    "  eval \"$(_LPT_COMPLETE=bash_source lpt)\"   # in ~/.bashrc")
@click.version_option(__version__, "--version", prog_name="lpt", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors (or set LPT_DEBUG=1).")
def main(debug: bool) -> None:
    """OpenVINO Low Precision Transformations, offline: quantized IR in, low-precision IR out."""


def run() -> None:
    """The `lpt` process (console script, `python -m lpt_cli`): `main` with process-wide settings
    a library must not impose on its caller, and no interpreter teardown.

    numpy's OpenBLAS starts a thread per core when numpy loads, and they spin while waiting for
    work; lpt's arrays are small, so one thread (unless the user set OPENBLAS_NUM_THREADS)
    halves the CPU time of numpy's import. At exit, once the output is flushed, the process
    ends without freeing the graph, the modules and every object one by one (30-40 ms for
    `lpt transform` on ResNet-50)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        main()
    except SystemExit as done:
        if not isinstance(done.code, (int, type(None))):
            raise
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # e.g. a closed pipe: the interpreter's own exit reports it as ever
            raise done from None
        os._exit(done.code or 0)

