"""MarkupPrecisions: restrictions onto input ports, and the static precision-preserved marks.

Runs only when the config has precision restrictions (OpenVINO skips the pass otherwise, so
without restrictions nothing but AvgPool is ever precision-preserved).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ir import Graph, Node
from ...ir.eltypes import ElementType
from ...ir.op_facts import Fact, ops_with
from ..dequantization.attributes import PRECISION_PRESERVED, PRECISIONS, PrecisionPreservedAttribute, PrecisionsAttribute
from ..engine.config import Config
from ..engine.layer_checks import can_be_transformed
from ..engine.ordering import ordered_ops

LPT_OPS = ops_with(Fact.LPT)
PRECISION_PRESERVED_TYPES = ops_with(Fact.PRECISION_PRESERVED)


def _has_disabled_input(node: Node) -> bool:
    return any((attr := slot.annotations.get(PRECISIONS)) is not None and not attr.value for slot in node.inputs)


def _apply(node: Node, ports: dict[int, tuple[ElementType, ...]]) -> None:
    """One attribute per listed port; stops at a port already marked not quantizable."""
    for port, types in ports.items():
        if port >= len(node.inputs):
            continue
        slot = node.inputs[port]
        existing = slot.annotations.get(PRECISIONS)
        if existing is not None and not existing.value:
            return
        slot.annotations[PRECISIONS] = PrecisionsAttribute(list(types))


def _disable_all(node: Node) -> None:
    for slot in node.inputs:
        slot.annotations.setdefault(PRECISIONS, PrecisionsAttribute([]))


def markup_precisions(graph: Graph, config: Config, skip: Callable[[Node, Any], str | None] | None = None) -> None:
    """Marks every node; `skip` is the plugin's callback (transformation_callback): a node it
    names is left without any mark, not even the not-quantizable one."""
    restricted = {r.op for r in config.precision_restrictions}
    for node in ordered_ops(graph):
        if not node.inputs:
            continue
        if skip is not None and skip(node, config) is not None:
            continue
        if node.type not in LPT_OPS or not can_be_transformed(node, config.default_precisions):
            _apply(node, {0: ()})
            continue
        if node.type in PRECISION_PRESERVED_TYPES and not _has_disabled_input(node):
            node.annotations.setdefault(PRECISION_PRESERVED, PrecisionPreservedAttribute(True))
        restriction = (config.precision_restriction(node.type, node.inputs[0].source.rank)
                       if node.type in restricted else None)
        if restriction is None:
            continue
        if not restriction.ports:
            _disable_all(node)
        else:
            _apply(node, dict(restriction.ports))
