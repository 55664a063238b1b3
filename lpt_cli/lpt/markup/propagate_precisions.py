"""PropagatePrecisions: every FakeQuantize output starts with the default precisions and
shares one value with the restricted inputs of its consumers (through precision-preserved
ops), narrowed to their ordered intersection."""
from __future__ import annotations

from ...ir import Graph, Node
from ..dequantization.attributes import PRECISIONS, PrecisionsAttribute
from ..engine.config import Config
from .propagation import propagate_through_precision_preserved, propagate_to_input
from .rewrite import run_matchers


def propagate_precisions(graph: Graph, config: Config) -> None:
    defaults = config.default_precisions

    def create(node: Node) -> bool:
        if node.type != "FakeQuantize":
            return False
        node.output().annotations[PRECISIONS] = PrecisionsAttribute(list(defaults))
        return True

    run_matchers(graph, (
        create,
        lambda node: propagate_through_precision_preserved(node, PRECISIONS, defaults),
        lambda node: propagate_to_input(node, PRECISIONS, defaults),
    ))
