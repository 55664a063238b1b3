"""The static prediction beside what the device ran, per original layer (`lpt report --runtime`).

The runtime side arrives as plain `Observed` values (the runtime package builds them),
so this module stays free of openvino. A layer the plugin fused into another op has no
precision of its own and is not compared.

A disagreement is a layer whose predicted status (low-precision or original-precision) is
not how it ran. A layer nothing quantizes in the model (`not-quantized`) has no prediction
to get wrong, yet may show u8/i8 at runtime: a FakeQuantize fused into the op before it
(NNCF's SmoothQuant Multiply: f32 in, u8 out), or integer data that is no quantization (a
boolean mask converted to u8 and gathered). Those are listed apart, not as disagreements.

OpenVINO's own LPT, run again while compiling lpt's model, may rebuild a layer under the name
of one of its internal nodes (`Multiply_5472`, seen on AMX). Such an op is counted as the
layer it computes (the one of a matching kind among the layers fused into it), and a
weightable layer not found by name is found through the ops the plugin fused into it (the
bias Add, the activation that follows), in a runtime op of a matching kind.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..ir import Graph, Node
from ..ir.legalize import FUSED_MULTIPLY_NAME
from ..text import Cell, markdown_cell, table_lines, terminal_width
from .model import LOW, NOT_QUANTIZED, ORIGINAL, Report
from .topology import WEIGHTABLE, by_name

# Runtime (CPU plugin) layer types a weightable IR op can end up as.
_RUNTIME_WEIGHTABLE = frozenset({"Convolution", "Deconvolution", "FullyConnected", "MatMul", "GroupConvolution"})
_FOLLOWERS = 3
# Names OpenVINO gives the nodes it makes (`Multiply_5472`): no IR layer has them.
_INTERNAL_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*_\d+$")
QUANTIZES, INTEGER_DATA = "quantizes_output", "integer_data"
_APART = {QUANTIZES: "quantize their output: a FakeQuantize fused into them, they compute in float",
          INTEGER_DATA: "move integer data as u8/i8 (masks, indices), no quantization"}


@dataclass(frozen=True)
class Observed:
    """How the device ran one IR layer."""

    precision: str  # e.g. "u8 (jit_avx2_I8)", "f32->u8 (jit_avx2_f32)"
    low: bool  # computed on u8/i8: an integer kernel, or u8/i8 inputs
    runtime_op: str  # the runtime op it ran in
    own: bool  # False: fused into `runtime_op`
    layer_type: str = ""  # the runtime op's layerType
    quantizes: bool = False  # float in, u8/i8 out: a quantizer (a FakeQuantize, or one fused into the op)
    output_low: bool = False  # its output is u8/i8


@dataclass(frozen=True)
class Comparison:
    name: str
    type: str
    static: str
    transformed: Observed | None  # the lpt-transformed model (runtime dialect) on the device
    original: Observed | None  # the original model, which OpenVINO's own LPT transforms

    @property
    def ran_low(self) -> bool | None:
        """Whether the layer ran in low precision (None: not seen as an op of its own). A
        FakeQuantize runs low when it quantizes; any other layer when it computes on u8/i8."""
        seen = self.transformed
        if seen is None or not seen.own:
            return None
        return seen.low or seen.quantizes if self.type == "FakeQuantize" else seen.low

    @property
    def disagrees(self) -> bool:
        """The predicted status is not how the layer ran."""
        ran = self.ran_low
        return self.static in (LOW, ORIGINAL) and ran is not None and ran != (self.static == LOW)

    @property
    def integer_unquantized(self) -> str | None:
        """QUANTIZES or INTEGER_DATA for a layer nothing quantizes that shows u8/i8 at runtime."""
        seen = self.transformed
        if self.static != NOT_QUANTIZED or seen is None or not seen.own:
            return None
        if seen.quantizes:
            return QUANTIZES
        return INTEGER_DATA if seen.low or seen.output_low else None  # not from float: masks, indices


@dataclass(frozen=True)
class Counters:
    """One model's performance counters as benchmark_app -pc prints them: rows of text, the
    header first, realTime and cpuTime (ms) in the last two columns."""

    rows: tuple[tuple[str, ...], ...]

    @property
    def total(self) -> str:
        real, cpu = (sum(float(row[i]) for row in self.rows[1:]) for i in (-2, -1))
        return f"Total time: {real:.3f} ms (real), {cpu:.3f} ms (cpu)"


@dataclass(frozen=True)
class RuntimeView:
    """What `--runtime DEVICE` adds to a report: per layer the prediction beside what ran, and
    per model ("transformed", "original") its counters and INT8 kernels by what they compute."""

    device: str
    rows: tuple[Comparison, ...]
    counters: Mapping[str, Counters]
    kernels: Mapping[str, Mapping[str, int]]

    def only(self, name: str) -> RuntimeView:
        """The view of layer `name` alone: its row, and the counters of the ops it ran in."""
        rows = tuple(c for c in self.rows if c.name == name)
        ops = {side: {seen.runtime_op for c in rows if (seen := getattr(c, side)) is not None}
               for side in self.counters}
        counters = {side: Counters((table.rows[0], *(r for r in table.rows[1:] if r[0] in ops[side])))
                    for side, table in self.counters.items()}
        return replace(self, rows=rows, counters=counters)


def compare(report: Report, after: Graph, transformed: Mapping[str, Observed],
            original: Mapping[str, Observed]) -> list[Comparison]:
    """Rows per report layer; `transformed` is keyed by names in `after`, `original` by original names."""
    nodes = by_name(after)
    known = set(nodes) | {r.name for r in report.layers}
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
        rows.append(Comparison(r.name, r.type, r.status, _computed(seen, r.type, known),
                               _computed(original.get(r.name), r.type, known)))
    return rows


def _computed(seen: Observed | None, ir_type: str, known: set[str]) -> Observed | None:
    """`seen`, as the layer's own op when the plugin named the op after an internal node and
    the op computes what the layer does (a Convolution kernel for a Convolution)."""
    if seen is None or seen.own or seen.runtime_op in known or not _INTERNAL_NAME.match(seen.runtime_op):
        return seen
    kind = seen.layer_type in _RUNTIME_WEIGHTABLE if ir_type in WEIGHTABLE else seen.layer_type == ir_type
    return replace(seen, own=True) if kind else seen


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
            return replace(seen, own=True)
    return None


def _cell(seen: Observed | None, name: str) -> Cell:
    """How a layer ran, for a table: a runtime op's name is the part cut from the left."""
    if seen is None:
        return "-"
    if not seen.own:
        return ("fused into ", seen.runtime_op)
    return seen.precision if seen.runtime_op == name else (f"{seen.precision} as ", seen.runtime_op)


def _text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0] + cell[1]


def _observed_dict(seen: Observed | None) -> dict[str, object] | None:
    if seen is None:
        return None
    return {"precision": seen.precision, "low_precision": seen.low, "runtime_op": seen.runtime_op,
            "fused": not seen.own, "layer_type": seen.layer_type, "quantizes": seen.quantizes,
            "output_low_precision": seen.output_low}


def comparison_dict(view: RuntimeView) -> dict[str, object]:
    """The `runtime` section of `lpt report --format json --runtime DEVICE`."""
    layers = [{"name": c.name, "type": c.type, "static": c.static, "transformed": _observed_dict(c.transformed),
               "original": _observed_dict(c.original), "disagrees": c.disagrees} for c in view.rows]
    apart = [{"name": c.name, "kind": kind} for c in view.rows if (kind := c.integer_unquantized)]
    return {"device": view.device, "layers": layers, "disagreements": [c.name for c in view.rows if c.disagrees],
            "integer_unquantized": apart, "int8_kernels": {side: dict(k) for side, k in view.kernels.items()}}


_HEADER = ("layer", "type", "static (lpt)", "runtime (lpt model)", "runtime (original, OpenVINO LPT)")
_SIDES = (("original", "original model"), ("transformed", "lpt-transformed model"))


def _kernels(counts: Mapping[str, int]) -> str:
    total = sum(counts.values())
    return f"{total} ({', '.join(f'{kind} {n}' for kind, n in counts.items())})" if total else "0"


def verdict_lines(view: RuntimeView) -> list[str]:
    """The disagreements (each named), the layers listed apart, the INT8 kernels per model."""
    bad = [c for c in view.rows if c.disagrees]
    lines = [f"disagreements: {len(bad)} (layers whose predicted status is not how they ran)"]
    lines += [f"  {c.name} ({c.type}): predicted {c.static}, ran {_text(_cell(c.transformed, c.name))}" for c in bad]
    apart = {kind: [c.name for c in view.rows if c.integer_unquantized == kind] for kind in _APART}
    if any(apart.values()):
        lines.append("not-quantized layers that show u8/i8 at runtime (no disagreement):")
        for kind, names in apart.items():
            if names:
                lines += [f"  {len(names)} {_APART[kind]}:", *(f"    {name}" for name in names)]
    if view.kernels:
        lines.append("INT8 kernels, by what they compute (whatever the plugin named them):")
        lines += [f"  {label}: {_kernels(view.kernels[side])}" for side, label in _SIDES if side in view.kernels]
    return lines


def format_comparison(view: RuntimeView, width: int | None = None) -> str:
    """The text form: each model's counters, a table (static | lpt model on device | original
    on device) and the verdict lines, fitted to `width` (default: the terminal's)."""
    width = width or terminal_width()
    lines: list[str] = []
    for side, label in _SIDES:
        if side in view.counters:
            table = view.counters[side]
            lines += [f"performance counters, {label} on {view.device}:",
                      *table_lines(table.rows, width, right=frozenset({4, 5}), names=frozenset({0})), table.total, ""]
    cells: list[tuple[Cell, ...]] = [_HEADER]
    cells += [(c.name, c.type, c.static, _cell(c.transformed, c.name), _cell(c.original, c.name)) for c in view.rows]
    lines += ["static prediction vs runtime precision:", *table_lines(cells, width, names=frozenset({0})), ""]
    return "\n".join(lines + verdict_lines(view)) + "\n"


def markdown_comparison(view: RuntimeView) -> list[str]:
    """The runtime section of the markdown report: the comparison as a table, the verdict,
    and each model's counters in a fenced block (benchmark_app -pc's layout)."""
    lines = ["", f"## Static prediction vs runtime precision on {view.device}", "",
             "| " + " | ".join(_HEADER) + " |", "|---" * len(_HEADER) + "|"]
    for c in view.rows:
        cells = (c.name, c.type, c.static, _text(_cell(c.transformed, c.name)), _text(_cell(c.original, c.name)))
        lines.append("| " + " | ".join(markdown_cell(cell) for cell in cells) + " |")
    lines.append("")
    for line in verdict_lines(view):
        depth = (len(line) - len(line.lstrip())) // 2
        lines.append(f"{'  ' * depth}- {markdown_cell(line.strip())}")
    for side, label in _SIDES:
        if side in view.counters:
            table = view.counters[side]
            natural = [max(len(row[i]) for row in table.rows) for i in range(len(table.rows[0]))]
            lines += ["", f"### Performance counters, {label} on {view.device}", "", "```text",
                      *table_lines(table.rows, sum(natural) + 2 * len(natural), right=frozenset({4, 5})),
                      table.total, "```"]
    return lines


RUNTIME_CSV_COLUMNS = ("runtime_lpt", "runtime_original", "disagrees", "integer_unquantized")


def csv_cells(row: Comparison | None) -> list[str]:
    """RUNTIME_CSV_COLUMNS of one layer (empty without a comparison row)."""
    if row is None:
        return [""] * len(RUNTIME_CSV_COLUMNS)
    return [_text(_cell(row.transformed, row.name)), _text(_cell(row.original, row.name)),
            "yes" if row.disagrees else "no", row.integer_unquantized or ""]
