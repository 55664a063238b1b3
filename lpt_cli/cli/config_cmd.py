"""`lpt config`: inspect the built-in LPT profiles (the restrictions a plugin applies)."""
from __future__ import annotations

import click

from ..lpt import PROFILE_NAMES


@click.group("config")
def config_group() -> None:
    """Built-in LPT configuration profiles."""


@config_group.command("list")
def list_profiles() -> None:
    """Names of the built-in profiles."""
    for name in PROFILE_NAMES:
        click.echo(name)


@config_group.command("show")
@click.argument("name", type=click.Choice(PROFILE_NAMES))
def show(name: str) -> None:
    """Print profile NAME as YAML (`cpu` prints the variant this machine resolves to)."""
    from ..lpt import config as lpt_config  # imported here: `lpt --help` loads no command's stack

    if name == "cpu":
        variant, why = lpt_config.cpu_variant(lpt_config.read_cpuinfo())
        click.echo(f"# cpu (resolved to {variant}: {why})")
        name = variant
    click.echo(lpt_config.profile_text(name), nl=False)
