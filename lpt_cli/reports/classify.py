"""Decides, per layer of the original model, what LPT made of it (matched by name)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..ir import Graph, Node
from ..lpt.engine.config import Config
from ..lpt.engine.pipeline import PipelineResult
from ..lpt.common_optimizations import plugin_runs_lpt
from ..lpt.engine.transformation import Decision
from .compression import weight_compressed_layers
from .kernels import kernel_refusal
from .macs import LayerShapes, layer_macs, low_precision_share
from .model import LOW, NOT_QUANTIZED, ORIGINAL, REMOVED, STATUSES, LayerRow, Reason, Report, Summary
from .reasons import explain
from .topology import (RECURRENT, WEIGHTABLE, by_name, data_inputs, find_renamed, find_twin, is_low, is_quantized, layer_operands, layers,
                       quantizer_upstream, recurrent_operands)


def build_report(model: str, before: Graph, after: Graph, result: PipelineResult, config: Config,
                 shapes: Mapping[str, LayerShapes] | None = None) -> Report:
    """The report of one pipeline run; `before` is a snapshot taken before the run; `shapes`
    gives weightable layers static shapes for their MACs (`lpt report --shape`)."""
    rows = tuple(layer_rows(before, after, result.decisions, config, shapes or {}))
    return Report(model, rows, summarize(rows, before, after, result, config, bool(shapes)))


def isa_label(config: Config) -> str:
    """The ISA the report's kernel rules assumed: the config's, never the host's."""
    return config.isa or "none (not a CPU plugin profile: no kernel rules)"


def layer_rows(before: Graph, after: Graph, decisions: Mapping[int, list[Decision]],
               config: Config, shapes: Mapping[str, LayerShapes] | None = None) -> list[LayerRow]:
    now = by_name(after)
    original_names = frozenset(by_name(before))
    rows = []
    for node in layers(before):
        twin = find_twin(node, now)
        if twin is None or twin.type != node.type:
            twin = find_renamed(node, now, original_names) or twin
        macs = layer_macs(node, (shapes or {}).get(node.name)) if node.type in WEIGHTABLE else None
        if twin is None:
            reason = Reason("removed", _removed_detail(node, now))
            rows.append(_row(node, None, REMOVED, reason, macs))
            continue
        if runs_low(twin):
            refusal = kernel_refusal(twin, config)  # LPT made it low precision; does the plugin's kernel compute so?
            if refusal is None:
                rows.append(_row(node, twin, LOW, None, macs))
            else:
                rows.append(_row(node, twin, ORIGINAL, Reason("kernel_not_int8", refusal), macs))
        elif not is_quantized(node):
            # a weightable layer weighs in the low-precision share, so it says why it is not in it
            why = _not_quantized_reason(node) if node.type in WEIGHTABLE else None
            rows.append(_row(node, twin, NOT_QUANTIZED, why, macs))
        else:
            rows.append(_row(node, twin, ORIGINAL, explain(node, twin, now, decisions, config), macs))
    return rows


def _removed_detail(node: Node, now: Mapping[str, Node]) -> str:
    """Where a layer went: folded into a consumer that is still there, if one is."""
    kept = [now[c.name] for c in node.consumers() if c.name in now]
    if kept:
        return f"not in the transformed model: folded into {kept[0].type} {kept[0].name!r}"
    return "not in the transformed model: folded or fused away"


def _not_quantized_reason(node: Node) -> Reason:
    """Which inputs of a weightable layer nothing quantizes in the original model."""
    bare = [f"input {i} ({v.node.type} {v.node.name!r})" for i, v in enumerate(data_inputs(node))
            if quantizer_upstream(v) is None]
    verb = "have" if len(bare) > 1 else "has"
    return Reason("not_quantized", f"{', '.join(bare) or 'no input'} {verb} no FakeQuantize upstream: the model "
                  "leaves the layer in float (NNCF's choice), so LPT has nothing to move")


def runs_low(node: Node) -> bool:
    """Low precision: a weightable op whose every operand (activation and weights) is an
    integer tensor, a quantizing FakeQuantize, or any other op fed an integer tensor."""
    if node.type in WEIGHTABLE:
        operands = layer_operands(node)
        return len(operands) == 2 and all(is_low(v) for v in operands)
    if node.type in RECURRENT:
        return recurrent_operands(node) is not None
    if node.type == "FakeQuantize":
        return any(is_low(out) for out in node.outputs)
    return any(is_low(v) for v in data_inputs(node))


def _row(original: Node, twin: Node | None, status: str, reason: Reason | None, macs: int | None) -> LayerRow:
    """A row with the precisions after LPT (the original's, for a removed layer)."""
    node = twin or original
    inputs = tuple(v.element_type.name for v in layer_operands(node))
    output = node.outputs[0].element_type.name if node.outputs else ""
    return LayerRow(original.name, original.type, inputs, output, status, reason, macs,
                    twin.name if twin else None)


def summarize(rows: tuple[LayerRow, ...], before: Graph, after: Graph, result: PipelineResult,
              config: Config, static_shapes: bool = False) -> Summary:
    counts = Counter(r.status for r in rows)
    weightable = [r for r in rows if r.type in WEIGHTABLE]
    low = [r for r in weightable if r.status == LOW]
    macs_total = sum(r.macs or 0 for r in weightable)
    macs_low = sum(r.macs or 0 for r in low)
    share = low_precision_share(macs_low, macs_total, len(low), len(weightable))
    return Summary(
        profile=config.name, isa=isa_label(config), layers=len(rows),
        by_status={s: counts.get(s, 0) for s in STATUSES},
        weightable=len(weightable), weightable_low_precision=len(low),
        macs_total=macs_total, macs_low_precision=macs_low, low_precision_share=share,
        fake_quantize_before=sum(1 for n in layers(before) if n.type == "FakeQuantize"),
        fake_quantize_left=sum(1 for n in after.nodes.values()
                               if n.type == "FakeQuantize" and not runs_low(n)),
        reasons=dict(Counter(r.reason.code for r in rows if r.reason is not None)),
        applied=dict(result.applied),
        weight_compressed=dict(Counter(weight_compressed_layers(before, not result.not_quantized
                                                                and plugin_runs_lpt(before, config)).values())),
        macs_per_position=not static_shapes and any(_dynamic(node) for node in layers(before)
                                                    if node.type in WEIGHTABLE),
        dynamic_inputs={input_name(p): list(p.outputs[0].shape or ()) for p in before.parameters
                        if not p.outputs[0].is_static},
    )


def input_name(parameter: Node) -> str:
    """The name `--shape NAME=...` takes for a model input: its first tensor name, else the layer's."""
    names = [n.strip() for n in (parameter.outputs[0].names or "").split(",") if n.strip()]
    return names[0] if names else parameter.name


def _dynamic(node: Node) -> bool:
    """A weightable layer whose MACs depend on a dynamic dimension (batch, H/W, sequence)."""
    shapes = [slot.source.shape for slot in node.inputs[:1]] + [out.shape for out in node.outputs[:1]]
    return any(shape is None or any(d < 0 for d in shape) for shape in shapes)
