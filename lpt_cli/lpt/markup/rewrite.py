"""GraphRewrite semantics for markup: each node, in topological order, goes to the matchers
in order until one returns True."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ...ir import Graph, Node
from ..engine.ordering import ordered_ops

Matcher = Callable[[Node], bool]


def run_matchers(graph: Graph, matchers: Sequence[Matcher]) -> None:
    for node in ordered_ops(graph):
        for matcher in matchers:
            if matcher(node):
                break
