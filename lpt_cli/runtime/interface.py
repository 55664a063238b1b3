"""Whether two models can stand in for each other: the same inputs and outputs.

`benchmark --fp32` compares a quantized model with the float model it came from; a
different model there would make every "speedup" meaningless, so it is refused up front.
"""
from __future__ import annotations

from pathlib import Path

import openvino as ov

from ..errors import LptError
from .device import core


def _ports(ports: list[ov.Output], kind: str) -> list[tuple[str, str, str]]:
    """(names, element type, rank) per port, `kind N` when a port has no name."""
    described = []
    for i, port in enumerate(ports):
        names = ",".join(sorted(port.get_names())) or f"{kind} {i}"
        rank = port.get_partial_shape().rank
        described.append((names, port.get_element_type().get_type_name(),
                          str(rank.get_length()) if rank.is_static else "?"))
    return described


_WEIGHTABLE = ("Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul")


def _weightable_counts(model: ov.Model) -> dict[str, int]:
    counts = dict.fromkeys(_WEIGHTABLE, 0)
    for op in model.get_ops():
        if op.get_type_name() in counts:
            counts[op.get_type_name()] += 1
    return counts


def require_same_interface(model: Path, reference: Path) -> None:
    """Raises LptError naming `reference` when its inputs or outputs differ from `model`'s
    in count, names, element types or ranks, or its weightable layers in number (NNCF keeps
    all of these; models with one input and one output often share the rest)."""
    try:
        ours, theirs = core().read_model(str(model)), core().read_model(str(reference))
    except RuntimeError as err:
        raise LptError(f"{reference}: OpenVINO cannot read it: {str(err).strip().splitlines()[0]}") from None
    for kind, mine, other in (("input", ours.inputs, theirs.inputs), ("output", ours.outputs, theirs.outputs)):
        a, b = _ports(mine, kind), _ports(other, kind)
        if len(a) != len(b):
            raise LptError(f"{reference}: has {len(b)} {kind}s, {model.name} has {len(a)}: "
                           f"not the float model {model.name} was quantized from")
        for (name_a, type_a, rank_a), (name_b, type_b, rank_b) in zip(a, b):
            if (name_a, type_a, rank_a) != (name_b, type_b, rank_b):
                raise LptError(f"{reference}: {kind} '{name_b}' ({type_b}, rank {rank_b}) does not match "
                               f"'{name_a}' ({type_a}, rank {rank_a}) of {model.name}: not the float model "
                               f"{model.name} was quantized from")
    mine, other = _weightable_counts(ours), _weightable_counts(theirs)
    if mine != other:
        def describe(counts: dict[str, int]) -> str:
            return ", ".join(f"{counts[t]} {t}" for t in _WEIGHTABLE if counts[t])

        raise LptError(f"{reference}: its weightable layers ({describe(other)}) differ from those of {model.name} "
                       f"({describe(mine)}): not the float model {model.name} was quantized from")
