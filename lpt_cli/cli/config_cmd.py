"""`lpt config`: inspect the built-in LPT profiles (the restrictions a plugin applies)."""
from __future__ import annotations

import click

from ..lpt import PROFILE_NAMES
from .options import debug_option


EPILOG = """\b
Examples:
  lpt config list                           # the profiles; what cpu is here
  lpt config show cpu > my_restrictions.yaml   # a starting point to edit
  lpt transform model.xml --config my_restrictions.yaml

\b
Exit codes:
  0  printed
  2  usage: an unknown profile name
"""


@click.group("config", epilog=EPILOG,
             short_help="Built-in LPT configuration profiles: list them, show one as YAML.")
@debug_option
def config_group() -> None:
    """Built-in LPT configuration profiles (for --config NAME); a restrictions file
    (--config PATH) has the same schema as `lpt config show` prints."""


@config_group.command("list", epilog=EPILOG)
@debug_option
def list_profiles() -> None:
    """The built-in profiles, one a line: its name, what it allows (and what `cpu` resolves to here)."""
    from ..lpt.engine import config as lpt_config  # imported here: `lpt --help` loads no command's stack

    width = max(map(len, PROFILE_NAMES))
    variant, why = lpt_config.cpu_variant(lpt_config.read_cpuinfo())
    for name in PROFILE_NAMES:
        here = f"; here {variant}: {why}" if name == "cpu" else ""
        click.echo(f"{name:<{width}}  {lpt_config.PROFILE_SUMMARIES[name]}{here}")


@config_group.command("show", epilog=EPILOG,
                      help=f"Print profile NAME ({', '.join(PROFILE_NAMES)}) as YAML (`cpu` prints the variant "
                           "this machine resolves to).")
@click.argument("name", type=click.Choice(PROFILE_NAMES), metavar="NAME")
@debug_option
def show(name: str) -> None:
    from ..lpt.engine import config as lpt_config  # imported here: `lpt --help` loads no command's stack

    if name == "cpu":
        variant, why = lpt_config.cpu_variant(lpt_config.read_cpuinfo())
        click.echo(f"# cpu resolves to {variant} on this machine: {why}")
        click.echo(f"# {variant}: {lpt_config.PROFILE_SUMMARIES[variant]}")
        name = variant
    click.echo(lpt_config.profile_text(name), nl=False)
