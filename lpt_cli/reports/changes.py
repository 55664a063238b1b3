"""`lpt transform --format json`: what the run changed, per layer, for scripts.

The report's rows say where each layer ended up; this adds the precisions it had before
and the passes that rewrote it (each moved the dequantization through the layer or
folded it), so a script sees what moved and what was renamed without diffing two IRs.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..ir import Graph
from ..lpt.engine.pipeline import PipelineResult
from .model import SCHEMA_VERSION, Report
from .topology import constant_nodes, layer_operands, layers


def not_listed(before: Graph) -> dict[str, int]:
    """Why the input's other IR layers have no entry in `layers`: `layers` lists what computes on
    activations (as `lpt report` does); Constants, Parameters, Results and what computes on
    constants only (weights, their FakeQuantize or Convert -> Multiply) are not asked for a
    precision. With the entries of `layers` they add up to `layers_in`."""
    const = constant_nodes(before)
    kinds = Counter("constant" if node.type == "Constant" else "parameter" if node.type == "Parameter"
                    else "result" if node.type == "Result" else "weights_and_constant_subgraphs"
                    for node in before if node.type in ("Constant", "Parameter", "Result") or node.id in const)
    return {kind: kinds.get(kind, 0) for kind in ("constant", "weights_and_constant_subgraphs", "parameter", "result")}


def transform_summary(report: Report, before: Graph, result: PipelineResult, *, output: str, dialect: str,
                      layers_in: int, layers_written: int, seconds: float) -> dict[str, Any]:
    """The JSON document `lpt transform --format json` prints on stdout."""
    originals = {node.name: node for node in layers(before)}
    rows = []
    for row in report.layers:
        node = originals[row.name]
        rows.append({
            "name": row.name,
            "type": row.type,
            "before": {"input_precisions": [v.element_type.name for v in layer_operands(node)],
                       "output_precision": node.outputs[0].element_type.name if node.outputs else ""},
            "after": {"input_precisions": list(row.input_precisions), "output_precision": row.output_precision},
            "status": row.status,
            "transformed_name": row.transformed_name,
            "renamed": row.transformed_name is not None and row.transformed_name != row.name,
            "transformations": result.matched.get(node.id, []),
            "reason": None if row.reason is None else {"code": row.reason.code, "detail": row.reason.detail},
        })
    return {
        "schema_version": SCHEMA_VERSION,
        "model": report.model,
        "output": output,
        "dialect": dialect,
        "config": report.summary.profile,
        "seconds": round(seconds, 3),
        "layers_in": layers_in,
        "layers_not_listed": not_listed(before),
        "layers_written": layers_written,
        "applied": dict(result.applied),
        "not_quantized": result.not_quantized,
        "summary": {"by_status": report.summary.by_status,
                    "weightable": report.summary.weightable,
                    "weightable_low_precision": report.summary.weightable_low_precision,
                    "low_precision_share": report.summary.low_precision_share},
        "layers": rows,
    }
