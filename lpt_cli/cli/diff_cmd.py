"""`lpt diff`: which layers gained or lost low precision between two models or two configs."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import LptError
from ..reports import DIFF_FORMATS
from .options import debug_option
from .paths import check_model

EPILOG = """\b
Examples:
  lpt diff model_v1.xml model_v2.xml        # two versions, cpu profile
  lpt diff model.xml --config cpu --config gpu
                                            # one model under two configs
  lpt diff model.xml --config cpu --config my_restrictions.yaml \\
      --format markdown > pr_comment.md

\b
Exit codes:
  0    no layer lost low precision from A to B
  1    internal error (a bug in lpt)
  2    bad input: unreadable model or config, not exactly two sides to
       compare
  3    some layer lost low precision from A to B (a CI gate against
       regressions)
  130  interrupted (Ctrl-C)
"""


@click.command("diff", epilog=EPILOG,
               short_help="Layers that gained or lost low precision between two models or two configs.")
@click.argument("models", nargs=-1, required=True, metavar="A.xml [B.xml]", type=click.Path(path_type=Path))
@click.option("--config", "config_specs", multiple=True, metavar="PATH|NAME",
              help="Built-in profile or YAML config; once for both sides, twice for A and B "
                   "(required twice with one model). Default: cpu.")
@click.option("--format", "fmt", type=click.Choice(DIFF_FORMATS), default="table", show_default=True)
@debug_option
def diff(models: tuple[Path, ...], config_specs: tuple[str, ...], fmt: str) -> None:
    """Per-layer precision differences between A and B: layers that gained or lost low precision,
    or changed status, reason or precisions, with the reason on each side."""
    from .. import api
    from ..reports.diff import render_diff

    for model in models:
        check_model(model)

    if len(models) > 2:
        raise LptError(f"diff compares two sides; got {len(models)} models")
    if len(config_specs) > 2:
        raise LptError(f"diff compares two sides; got {len(config_specs)} --config")
    if len(models) == 1 and len(config_specs) != 2:
        raise LptError("one model needs two configs to compare, e.g. --config cpu --config gpu")
    configs = config_specs or ("cpu",)
    found = api.diff(models[0], models[1] if len(models) == 2 else None, configs[0],
                     configs[1] if len(configs) == 2 else None)
    click.echo(render_diff(found, fmt), nl=False)
    if found.lost:
        lost = len(found.lost)
        click.echo(f"lpt: {lost} layer{'s' if lost > 1 else ''} lost low precision from A to B", err=True)
        click.get_current_context().exit(3)
