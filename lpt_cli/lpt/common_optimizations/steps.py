"""What a plugin's pre-LPT step is to lpt: its sub-passes in order, and when it runs LPT at all."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...ir import Graph
from ...ir.eltypes import ElementType

SubPass = Callable[[Graph], int]  # changes the graph, returns how many nodes it changed
SubPasses = tuple[tuple[str, SubPass], ...]  # (OpenVINO pass name, sub-pass), in the plugin's order


@dataclass(frozen=True)
class Plugin:
    """One plugin's (or one device's) pre-LPT step."""

    name: str  # as a config names it: `common_optimizations: NAME`
    source: str  # where it is read from
    levels: frozenset[int]  # the FakeQuantize levels isFunctionQuantized accepts for this plugin
    # Whether isFunctionQuantized is asked of the model as read (the GPU plugin asks before its
    # pre-LPT passes) rather than of the graph after them (lpt's CPU step, as it always did).
    quantized_before: bool
    passes: Callable[[ElementType], SubPasses]  # the sub-passes for an inference precision
