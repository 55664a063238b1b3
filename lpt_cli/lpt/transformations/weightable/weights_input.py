"""The weights input of a weightable layer: what quantizes it, and how it folds.

Weights come in two forms: a float Constant under a FakeQuantize (which LPT folds into an
integer Constant + Convert/[Subtract]/Multiply), or NNCF's already compressed
`int Constant -> Convert -> [Subtract] -> Multiply`. Either may sit behind a Reshape
(GroupConvolution). When a layer cannot be transformed its weights are still folded to a
float Constant, so the model runs without a FakeQuantize on the weights.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....ir import Node, Output
from ....ir.eltypes import ElementType
from ...dequantization.attributes import precisions_of
from ...dequantization.chain import Dequantization, get_dequantization
from ...surgery.fold_dequantization import fold_dequantization
from ...dequantization.fake_quantize_math import decompose_fake_quantize, fold_fake_quantize
from ...surgery.constants import remove_unused
from ...dequantization.precision import DataPrecision, get_data_precision, get_details


def weights_reshape(layer: Node) -> Node | None:
    """The Reshape feeding the weights port (GroupConvolution weights often have one)."""
    node = layer.input_node(1)
    return node if node.type == "Reshape" else None


def weights_dequantization(layer: Node, precisions: Sequence[ElementType]) -> Dequantization:
    """The dequantization on the weights, looked up through a Reshape if there is one."""
    reshape = weights_reshape(layer)
    if reshape is not None:
        return get_dequantization(reshape, precisions, 0)
    return get_dequantization(layer, precisions, 1)


def fake_quantize_on_weights(layer: Node) -> Node | None:
    """The FakeQuantize on the weights port, directly or one node above it."""
    node = layer.input_node(1)
    if node.type == "FakeQuantize":
        return node
    if node.inputs and node.input_node(0).type == "FakeQuantize":
        return node.input_node(0)
    return None


def output_precisions(fq: Node, defaults: Sequence[ElementType]) -> list[ElementType]:
    """The FQ output's Precisions attribute from markup, else the default precisions."""
    found = precisions_of(fq.output())
    return list(defaults) if found is None else found


def data_precision_on_weights(layer: Node, defaults: Sequence[ElementType]) -> DataPrecision | None:
    """getDataPrecisionOnWeights: the integer type the weights FQ quantizes to, if any."""
    fq = fake_quantize_on_weights(layer)
    details = None if fq is None else get_details(fq)
    if fq is None or details is None:
        return None
    return get_data_precision(details, output_precisions(fq, defaults))


def decompose_weights_fake_quantize(layer: Node, defaults: Sequence[ElementType], update_precisions: bool) -> bool:
    """decomposeFakeQuantizeForWeightsPath: the weights FQ becomes an integer Constant plus a
    dequantization. True when the weights are (now) in that form."""
    fq = fake_quantize_on_weights(layer)
    if fq is None:
        return True
    details = get_details(fq)
    precision = None if details is None else get_data_precision(details, output_precisions(fq, defaults))
    if precision is None:
        return False
    result = decompose_fake_quantize(fq, precision.precision, precision.min, precision.max,
                                     precision.has_zero_point, update_precisions)
    if result is None:  # no precision change and an identity dequantization
        return False
    if result.quantize.type != "Constant":
        raise ValueError(f"FakeQuantize on weights {fq.name!r} did not fold to a Constant")
    remove_unused(fq)
    return True


def fold_reshape(value: Output, reshape: Node) -> Output:
    """`reshape` applied to a constant `value` (row-major reinterpretation), else `value`
    behind a copy of the Reshape."""
    graph = reshape.graph
    out = reshape.output()
    if value.node.type == "Constant" and out.is_static:
        return graph.add_constant(np.reshape(value.node.value, out.dims), value.element_type).output()
    return graph.add_node("Reshape", [value, reshape.input_value(1)], outputs=[(value.element_type, out.shape)],
                          attrs=dict(reshape.attrs), version=reshape.version).output()


def fold_weights_fake_quantize(layer: Node, round_values: bool | None) -> None:
    """Folds the weights FQ (and the Reshape after it) into a float Constant; `round_values`
    None rounds only when the FQ output type is an integer."""
    fq = fake_quantize_on_weights(layer)
    if fq is None:
        return
    rounding = fq.output().element_type.is_integral if round_values is None else round_values
    folded = fold_fake_quantize(fq, round_values=rounding)
    if folded is None:
        return
    weights_input = layer.input_value(1)
    reshape = weights_reshape(layer)
    if reshape is not None:
        folded = fold_reshape(folded, reshape)
    if folded.node.type != "Constant":
        remove_unused(folded.node)
        return
    weights_input.replace_all_uses_with(folded)
    remove_unused(weights_input.node)


def fold_weights_dequantization(layer: Node, defaults: Sequence[ElementType]) -> None:
    """Folds the weights Convert/Subtract/Multiply into a Constant (through a Reshape)."""
    reshape = weights_reshape(layer)
    if reshape is not None:
        fold_dequantization(reshape, 0, defaults)
    else:
        fold_dequantization(layer, 1, defaults)
