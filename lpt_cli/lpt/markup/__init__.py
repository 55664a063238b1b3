"""LPT's markup step: annotates the graph with the attributes the transformations read.

The passes and their gates follow LowPrecision::run_on_model: MarkupPrecisions only with
precision restrictions, MarkupQuantizationGranularity only with per-tensor restrictions,
the AvgPool pass only if there is an AvgPool, interval/parameter alignment only if there is
a Concat, and MarkupBias last.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import Graph
from .alignment import align_quantization_intervals, align_quantization_parameters
from .avg_pool import markup_avg_pool_precision_preserved
from .bias import markup_bias
from .can_be_quantized import markup_can_be_quantized
from .granularity import markup_quantization_granularity
from .precisions import markup_precisions
from .propagate_precisions import propagate_precisions

if TYPE_CHECKING:
    from ..config import Config


def run_markup(graph: Graph, config: Config) -> None:
    """Runs the markup passes in OpenVINO's order."""
    defaults = config.default_precisions
    types = {node.type for node in graph}
    markup_can_be_quantized(graph, defaults)
    if config.precision_restrictions:
        markup_precisions(graph, config)
    if config.per_tensor_restrictions:
        markup_quantization_granularity(graph, config)
    if "AvgPool" in types:
        markup_avg_pool_precision_preserved(graph, defaults)
    propagate_precisions(graph, config)
    if "Concat" in types:
        align_quantization_intervals(graph, defaults)
        align_quantization_parameters(graph)
    markup_bias(graph)
