"""Why a quantized layer stayed in its original precision: one stable code per layer.

A transformation's own `reject(node, code, detail)` wins. Without one, the reason is
inferred in the order a reader would check: is there a transformation for the op at all,
does the config run it, did a dequantization ever reach the layer, and does the
dequantization break one of the config's restrictions.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..ir import Node
from ..ir.op_facts import Fact, ops_with
from ..lpt.engine import registry
from ..lpt.engine.config import Config
from ..lpt.engine.transformation import Decision
from .dequantization import DequantizationSummary, find_dequantization
from .model import Reason
from .topology import RECURRENT, WEIGHTABLE, data_inputs, find_twin, is_low, quantizer_upstream, recurrent_gap

_ASYMMETRY_CHECKED = frozenset({"Convolution", "GroupConvolution", "ConvolutionBackpropData"})
_OUTSIDE_MARKUP = ops_with(Fact.OUTSIDE_MARKUP)


def handlers(op_type: str) -> list[str]:
    """The transformations (main step or runnable extras) that root on `op_type`."""
    return [n for n in (*registry.MAIN.names, *registry.EXTRA.names) if op_type in registry.op_types(n)]


def pick_decision(op_type: str, decisions: Sequence[Decision]) -> Decision | None:
    """The main-step transformation's decision for the op if there is one, then any pass
    rooted on the op type (a cleanup), then whatever was recorded first."""
    main = set(handlers(op_type))
    ranked = sorted(decisions, key=lambda d: (d.transformation not in main,
                                              op_type not in registry.op_types(d.transformation)))
    return ranked[0] if ranked else None


def explain(original: Node, after: Node, now: Mapping[str, Node], decisions: Mapping[int, list[Decision]],
            config: Config) -> Reason:
    """The reason `original` (now `after`; `now` maps names after LPT to nodes) is not in low precision."""
    decision = pick_decision(original.type, [*decisions.get(after.id, ()), *(
        decisions.get(original.id, ()) if original.id != after.id else ())])
    if decision is not None and original.type == "FakeQuantize" and decision.transformation not in registry.MAIN.names:
        decision = None  # a cleanup's "not an identity" says nothing about why LPT kept the FakeQuantize
    if decision is not None:
        return Reason(decision.code, decision.detail, decision.transformation)
    names = handlers(original.type)
    if not names:
        return Reason("op_not_supported", f"LPT has no transformation for {original.type}")
    takers = [n for n in names if _takes_version(n, original)]
    if not takers:
        versions = ", ".join(f"{original.type}-{v.removeprefix('opset')}" for n in names
                             for v in registry.load(n).op_versions or ())
        return Reason("op_not_supported", f"LPT has no transformation for {_versioned(original)}: "
                      f"{', '.join(names)} takes {versions} only", names[0])
    names = takers
    enabled = [n for n in names if config.enabled(n)]
    if not enabled:
        return Reason("transformation_disabled", f"{', '.join(names)} disabled by config {config.name}", names[0])
    if original.type == "FakeQuantize":
        unsupported = _unsupported_consumers(original)
        if unsupported:
            return Reason("consumer_not_supported", f"{unsupported[0]} is not in LPT's op list, so the FakeQuantize "
                          "in front of it stays", enabled[0])
        return Reason("fq_standalone", "the FakeQuantize was kept: no consumer takes its low precision",
                      enabled[0])
    if original.type in RECURRENT:
        gap = recurrent_gap(after)
        if gap is not None:
            return Reason("cell_not_quantized", gap, enabled[0])
    return _from_dequantization(original, after, now, decisions, config, enabled[0])


def _versioned(node: Node) -> str:
    return f"{node.type}-{node.version.removeprefix('opset')}" if node.version else node.type


def _takes_version(name: str, node: Node) -> bool:
    versions = registry.load(name).op_versions
    return versions is None or node.version in versions


def _unsupported_consumers(node: Node) -> list[str]:
    """`Type-version` of the consumers no LPT transformation matches (PyTorch's MaxPool-14, ...)."""
    found = []
    for consumer in node.consumers():
        if consumer.type in _OUTSIDE_MARKUP:  # a root of a transformation, yet its input is never quantized
            found.append(_versioned(consumer))
            continue
        names = handlers(consumer.type)
        classes = [registry.load(n) for n in names]
        if names and any(c.op_versions is None or consumer.version in c.op_versions for c in classes):
            continue
        found.append(_versioned(consumer))
    return found


def _from_dequantization(original: Node, after: Node, now: Mapping[str, Node],
                         decisions: Mapping[int, list[Decision]], config: Config, name: str) -> Reason:
    weightable = after.type in WEIGHTABLE
    ports = {i: find_dequantization(v, weights=weightable and i == 1) for i, v in enumerate(data_inputs(after))}
    found = {i: dq for i, dq in ports.items() if dq is not None}
    if not any(i != 1 or not weightable for i in found):  # no dequantized activation
        return Reason("no_dequantization_upstream", _upstream_detail(original, now, decisions), name)
    restricted = _restriction(original.type, after.inputs[0].source.rank, found, config)
    if restricted is not None:
        return Reason(*restricted, name)
    if not all(dq.constant for dq in found.values()):
        return Reason("dequantization_not_constant", "the dequantization scale or zero point is not a constant",
                      name)
    return Reason("transformation_declined", f"{name} matched a dequantization but left the layer as is", name)


def _restriction(op_type: str, rank: int | None, found: Mapping[int, DequantizationSummary],
                 config: Config) -> tuple[str, str] | None:
    rule = config.precision_restriction(op_type, rank)
    if rule is not None:
        for port, allowed in rule.ports.items():
            dq = found.get(port)
            if dq is not None and dq.precision not in allowed:
                names = ", ".join(t.name for t in allowed)
                return "precision_restriction", f"port {port} gets {dq.precision.name}; {op_type} allows {names}"
    for per_tensor in config.per_tensor_restrictions:
        if per_tensor.op != op_type:
            continue
        for port, dq in found.items():
            if dq.per_channel and (not per_tensor.ports or port in per_tensor.ports):
                return "per_tensor_restriction", f"port {port} is quantized per channel; {op_type} needs per tensor"
    if op_type in _ASYMMETRY_CHECKED:
        if not config.asymmetric_quantization and 0 in found and found[0].subtract:
            return "asymmetric_not_allowed", "the activation has a zero point; the config allows symmetric only"
        if not config.asymmetric_weights and 1 in found and found[1].subtract:
            return "asymmetric_not_allowed", "the weights have a zero point; the config allows symmetric only"
    return None


def _upstream_detail(original: Node, now: Mapping[str, Node], decisions: Mapping[int, list[Decision]]) -> str:
    quantizers = [q for q in map(quantizer_upstream, data_inputs(original)) if q is not None]
    if not quantizers:
        return "no dequantization reached the layer"
    fq = quantizers[0]
    twin = find_twin(fq, now)
    if twin is None:
        return f"the quantization by {fq.name!r} did not reach the layer"
    if any(is_low(out) for out in twin.outputs):
        return (f"{fq.type} {fq.name!r} was decomposed, but no Convert -> Subtract -> Multiply "
                f"dequantization reaches the layer")
    decision = pick_decision(fq.type, decisions.get(twin.id, ()))
    why = f" ({decision.code}: {decision.detail})" if decision else ""
    return f"{fq.type} {fq.name!r} upstream was not turned into a dequantization{why}"
