"""`lpt config`: inspect the built-in LPT profiles (the restrictions a plugin applies)."""
from __future__ import annotations

import click

from ..lpt import PROFILE_NAMES


@click.group("config", short_help="Built-in LPT configuration profiles: list them, show one as YAML.")
def config_group() -> None:
    """Built-in LPT configuration profiles."""


@config_group.command("list")
def list_profiles() -> None:
    """The built-in profiles, one a line: its name, what it allows (and what `cpu` resolves to here)."""
    from ..lpt.engine import config as lpt_config  # imported here: `lpt --help` loads no command's stack

    width = max(map(len, PROFILE_NAMES))
    variant, why = lpt_config.cpu_variant(lpt_config.read_cpuinfo())
    for name in PROFILE_NAMES:
        here = f"; here {variant}: {why}" if name == "cpu" else ""
        click.echo(f"{name:<{width}}  {lpt_config.PROFILE_SUMMARIES[name]}{here}")


@config_group.command("show")
@click.argument("name", type=click.Choice(PROFILE_NAMES))
def show(name: str) -> None:
    """Print profile NAME as YAML (`cpu` prints the variant this machine resolves to)."""
    from ..lpt.engine import config as lpt_config  # imported here: `lpt --help` loads no command's stack

    if name == "cpu":
        variant, why = lpt_config.cpu_variant(lpt_config.read_cpuinfo())
        click.echo(f"# cpu resolves to {variant} on this machine: {why}")
        click.echo(f"# {variant}: {lpt_config.PROFILE_SUMMARIES[variant]}")
        name = variant
    click.echo(lpt_config.profile_text(name), nl=False)
