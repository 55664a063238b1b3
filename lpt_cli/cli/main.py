"""The `lpt` command group and its single error handler.

Every command raises; only here do exceptions become a one-line message and an exit
code: LptError (bad input or usage) and click's own usage errors -> exit 2, Ctrl-C -> 130,
anything else -> exit 1 as an internal error. Tracebacks are shown only with --debug
(anywhere on the command line) or LPT_DEBUG=1; warnings (LptWarning) are one line each.
"""
from __future__ import annotations

import importlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import click

from .. import __version__
from ..errors import LptError, LptWarning, PassError
from .options import debug_option, debug_requested

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
    if debug_requested(ctx) or os.environ.get("LPT_DEBUG", "") not in ("", "0"):
        import traceback  # loaded only for it

        traceback.print_exc()


def _describe(exc: Exception) -> str:
    """` in PASS at layer 'NAME' (id N): Type: detail` for a pass error, else `: Type: detail`."""
    if isinstance(exc, PassError):
        return f" {exc}"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f": {type(exc).__name__}: {detail}"


def _usage_error(exc: click.UsageError, ctx: click.Context) -> None:
    """Click's usage error as one `lpt: error:` line, pointing at the command's --help."""
    text = " ".join(exc.format_message().split()).rstrip(".")
    # "No such option '--formt'. Did you mean '--format'?" -> "...'--formt' (did you mean '--format'?)"
    text = re.sub(r"\. \(?Did you mean( one of:)? (.*?)\)?$", r" (did you mean\1 \2)", text)
    if text[:2].istitle():  # "No such option" -> "no such option"; "MODEL" stays
        text = text[0].lower() + text[1:]
    where = (exc.ctx or ctx).command_path
    click.echo(f"lpt: error: {text}; see '{where} --help'", err=True)


def _warning_printer(shown: Callable[..., None]) -> Callable[..., None]:
    """A `warnings.showwarning` that prints lpt's own warnings as `lpt: warning: ...` and hands
    any other to `shown` (Python's)."""

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        if issubclass(category, LptWarning):
            click.echo(f"lpt: warning: {message}", err=True)
        else:
            shown(message, category, filename, lineno, file, line)

    return show


_EPILOG = """\b
Example: lpt transform model.xml --config cpu -o model_int8.xml
Shell completion (bash; zsh/fish: zsh_source/fish_source):
  eval "$(_LPT_COMPLETE=bash_source lpt)"   # in ~/.bashrc

\b
Exit codes (each command's --help has its own):
  0    done
  1    internal error (a bug in lpt; --debug shows the traceback)
  2    bad input or usage, said in one `lpt: error:` line
  3    a gate failed: report --fail-under, diff (a layer lost INT8), verify
  4    transform --check: an output differs from the original
  130  interrupted (Ctrl-C)
  141  the reader of a pipe went away (`| head`)
"""


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

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise  # a bare `lpt`: the help is the answer
        except click.UsageError as exc:  # `lpt --frob`
            _usage_error(exc, ctx)
            ctx.exit(2)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always", LptWarning)
                warnings.showwarning = _warning_printer(warnings.showwarning)
                return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise  # a bare `lpt config`: its help is the answer
        except click.UsageError as exc:
            _usage_error(exc, ctx)
            ctx.exit(2)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:  # each command has removed what it had written on its way out
            if sys.stderr.isatty():
                click.echo(err=True)  # after the terminal's ^C
            click.echo("lpt: interrupted", err=True)
            ctx.exit(130)  # 128 + SIGINT, what a shell reports for a command Ctrl-C stopped
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
             epilog=_EPILOG)
@click.version_option(__version__, "--version", prog_name="lpt", message="%(prog)s %(version)s")
@debug_option
def main() -> None:
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

