"""LPT's markup step: annotates the graph with the attributes the transformations read.

OpenVINO has two drivers, and they differ in which markup passes run:
- the full pipeline (LowPrecision::run_on_model) gates them: MarkupPrecisions only with
  precision restrictions, MarkupQuantizationGranularity only with per-tensor restrictions,
  the AvgPool pass only if there is an AvgPool, interval/parameter alignment only if there
  is a Concat;
- the driver that runs a chosen few transformations (the unit tests' transformer, which
  `transformations.only` stands for) runs every markup pass unconditionally, so e.g. MaxPool
  is precision-preserved there even without restrictions.
MarkupBias runs last in both.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...ir import Graph, Node
from .alignment import align_quantization_intervals, align_quantization_parameters
from .avg_pool import markup_avg_pool_precision_preserved
from .bias import markup_bias
from .can_be_quantized import markup_can_be_quantized
from .granularity import markup_quantization_granularity
from .precisions import markup_precisions
from .propagate_precisions import propagate_precisions

if TYPE_CHECKING:
    from ..engine.config import Config


def run_markup(graph: Graph, config: Config,
               precisions_callback: Callable[[Node, Any], str | None] | None = None) -> None:
    """Runs the markup passes in OpenVINO's order, gated as the chosen driver gates them;
    `precisions_callback` is the plugin's MarkupPrecisions callback (a node it names gets no marks)."""
    defaults = config.default_precisions
    gated = config.only is None
    types = {node.type for node in graph}
    markup_can_be_quantized(graph, defaults)
    if config.precision_restrictions or not gated:
        markup_precisions(graph, config, precisions_callback)
    if config.per_tensor_restrictions or not gated:
        markup_quantization_granularity(graph, config)
    if "AvgPool" in types or not gated:
        markup_avg_pool_precision_preserved(graph, defaults)
    propagate_precisions(graph, config)
    if "Concat" in types or not gated:
        align_quantization_intervals(graph, defaults)
        align_quantization_parameters(graph)
    markup_bias(graph)
