"""MarkupAvgPoolPrecisionPreserved: an AvgPool keeps its integer precision only when some
quantizable consumer (seen through precision-preserved ops) needs it."""
from __future__ import annotations

from collections.abc import Iterable

from ...ir import Graph, Node
from ...ir.eltypes import ElementType
from ..dequantization.attributes import AVG_POOL_PRECISION_PRESERVED, PRECISION_PRESERVED, PrecisionPreservedAttribute
from .propagation import propagate_through_precision_preserved, update_shared_precision_preserved
from .rewrite import run_matchers


def _create(node: Node) -> bool:
    """AvgPool: PrecisionPreserved and AvgPoolPrecisionPreserved share one bool, false for now."""
    if node.type != "AvgPool":
        return False
    dependent = PrecisionPreservedAttribute(False)
    preserved = PrecisionPreservedAttribute(False)
    preserved.share_into(dependent)
    node.annotations[PRECISION_PRESERVED] = preserved
    node.annotations[AVG_POOL_PRECISION_PRESERVED] = dependent
    return True


def markup_avg_pool_precision_preserved(graph: Graph, default_precisions: Iterable[ElementType]) -> None:
    key = AVG_POOL_PRECISION_PRESERVED
    run_matchers(graph, (
        _create,
        lambda node: propagate_through_precision_preserved(node, key, default_precisions),
        lambda node: update_shared_precision_preserved(node, key, default_precisions),
    ))
