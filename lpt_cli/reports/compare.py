"""The static prediction beside what the device ran, per original layer.

The runtime side arrives as plain `Observed` values (the runtime package builds them),
so this module stays free of openvino. A layer the plugin fused into another op has no
precision of its own and is not counted as a disagreement.

OpenVINO's own LPT, run again while compiling lpt's model, may rebuild a Convolution
without its name (it shows up as e.g. `Multiply_5472`). A weightable layer not found by
name is then found through the ops the plugin fused into it (the bias Add, the
activation that follows), in a runtime op of a matching kind.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..ir import Graph, Node
from ..ir.legalize import FUSED_MULTIPLY_NAME
from ..text import table_lines, terminal_width
from .model import LOW, REMOVED, Report
from .topology import WEIGHTABLE, by_name

# Runtime (CPU plugin) layer types a weightable IR op can end up as.
_RUNTIME_WEIGHTABLE = frozenset({"Convolution", "Deconvolution", "FullyConnected", "MatMul", "GroupConvolution"})
_FOLLOWERS = 3


@dataclass(frozen=True)
class Observed:
    """How the device ran one IR layer."""

    precision: str  # e.g. "u8 (jit_avx2_I8)"
    low: bool
    runtime_op: str  # the runtime op it ran in
    own: bool  # False: fused into `runtime_op`
    layer_type: str = ""  # the runtime op's layerType


@dataclass(frozen=True)
class Comparison:
    name: str
    type: str
    static: str
    transformed: Observed | None  # the lpt-transformed model (runtime dialect) on the device
    original: Observed | None  # the original model, which OpenVINO's own LPT transforms

    @property
    def disagrees(self) -> bool:
        seen = self.transformed
        if seen is None or not seen.own or self.static == REMOVED:
            return False
        return seen.low != (self.static == LOW)


def compare(report: Report, after: Graph, transformed: Mapping[str, Observed],
            original: Mapping[str, Observed]) -> list[Comparison]:
    """Rows per report layer; `transformed` is keyed by names in `after`, `original` by original names."""
    nodes = by_name(after)
    rows = []
    for r in report.layers:
        seen = transformed.get(r.transformed_name or "")
        if seen is None and r.type == "FakeQuantize":  # the runtime dialect's Convert behind it took over
            seen = transformed.get(f"{r.transformed_name}/to_{r.output_precision}")
        node = nodes.get(r.transformed_name or "")
        if seen is None and node is not None and FUSED_MULTIPLY_NAME in node.annotations:
            seen = transformed.get(node.annotations[FUSED_MULTIPLY_NAME])  # the runtime dialect's name for it
        if seen is None and r.type in WEIGHTABLE and node is not None:
            seen = _through_followers(node.name, nodes, transformed)
        rows.append(Comparison(r.name, r.type, r.status, seen, original.get(r.name)))
    return rows


def _through_followers(name: str, nodes: Mapping[str, Node],
                       transformed: Mapping[str, Observed]) -> Observed | None:
    """The weightable runtime op that absorbed the ops right after layer `name`."""
    node = nodes[name]
    for _ in range(_FOLLOWERS):
        users = [use.node for out in node.outputs for use in out.uses]
        if len(users) != 1:
            return None
        node = users[0]
        seen = transformed.get(node.name)
        if seen is not None and seen.layer_type in _RUNTIME_WEIGHTABLE:
            return Observed(seen.precision, seen.low, seen.runtime_op, True, seen.layer_type)
    return None


def _cell(seen: Observed | None, name: str) -> str:
    if seen is None:
        return "-"
    if not seen.own:
        return f"fused into {seen.runtime_op}"
    return seen.precision if seen.runtime_op == name else f"{seen.precision} as {seen.runtime_op}"


def _observed_dict(seen: Observed | None) -> dict[str, object] | None:
    if seen is None:
        return None
    return {"precision": seen.precision, "low_precision": seen.low, "runtime_op": seen.runtime_op,
            "fused": not seen.own, "layer_type": seen.layer_type}


def comparison_dict(rows: list[Comparison], device: str) -> dict[str, object]:
    """The `runtime` section of `lpt report --format json --runtime DEVICE`."""
    layers = [{"name": c.name, "type": c.type, "static": c.static, "transformed": _observed_dict(c.transformed),
               "original": _observed_dict(c.original), "disagrees": c.disagrees} for c in rows]
    return {"device": device, "layers": layers, "disagreements": [c.name for c in rows if c.disagrees]}


def format_comparison(rows: list[Comparison], width: int | None = None) -> str:
    """A text table (static | lpt model on device | original on device) and the disagreements,
    fitted to `width` (default: the terminal's) by cutting the longest columns."""
    header = ("layer", "type", "static (lpt)", "runtime (lpt model)", "runtime (original, OpenVINO LPT)")
    cells = [header] + [(c.name, c.type, c.static, _cell(c.transformed, c.name), _cell(c.original, c.name))
                        for c in rows]
    lines = table_lines(cells, width or terminal_width())
    bad = [c for c in rows if c.disagrees]
    lines.append("")
    lines.append(f"disagreements: {len(bad)}")
    for c in bad:
        lines.append(f"  {c.name} ({c.type}): predicted {c.static}, ran {_cell(c.transformed, c.name)}")
    return "\n".join(lines) + "\n"
