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
    """The built-in profiles, one a line: its name and what it models; `cpu` says what it resolves
    to here and why (this CPU's flags, the AMX permission, ONEDNN_MAX_CPU_ISA)."""
    from .. import isa  # imported here: `lpt --help` loads no command's stack
    from ..lpt.engine import config as lpt_config

    width = max(map(len, PROFILE_NAMES))
    resolution = isa.resolve_cpu(isa.read_cpuinfo())
    for name in PROFILE_NAMES:
        here = f"; here {resolution.profile.name}: {resolution.why}" if name == "cpu" else ""
        click.echo(f"{name:<{width}}  {lpt_config.profile_summary(name)}{here}")


@config_group.command("show", epilog=EPILOG,
                      help=f"Print profile NAME ({', '.join(PROFILE_NAMES)}) as YAML (`cpu` prints the variant "
                           "this machine resolves to).")
@click.argument("name", type=click.Choice(PROFILE_NAMES), metavar="NAME")
@debug_option
def show(name: str) -> None:
    from .. import isa  # imported here: `lpt --help` loads no command's stack
    from ..lpt.engine import config as lpt_config

    if name == "cpu":
        resolution = isa.resolve_cpu(isa.read_cpuinfo())
        name = resolution.profile.name
        click.echo(f"# cpu resolves to {name} on this machine: {resolution.why}")
    click.echo(lpt_config.profile_text(name), nl=False)
