"""MarkupQuantizationGranularity: which input ports must be quantized per tensor."""
from __future__ import annotations

from ...ir import Graph
from ..dequantization.attributes import PER_TENSOR, QUANTIZATION_GRANULARITY
from ..engine.config import Config
from ..engine.ordering import ordered_ops


def markup_quantization_granularity(graph: Graph, config: Config) -> None:
    by_op: dict[str, list[tuple[int, ...]]] = {}
    for restriction in config.per_tensor_restrictions:
        by_op.setdefault(restriction.op, []).append(restriction.ports)
    for node in ordered_ops(graph):
        for ports in by_op.get(node.type, ()):
            targets = ports or tuple(range(len(node.inputs)))
            for port in targets:
                if port < len(node.inputs):
                    node.inputs[port].annotations.setdefault(QUANTIZATION_GRANULARITY, PER_TENSOR)
