"""FakeQuantizeDecompositionTransformation: an activation FQ becomes FQ(int) + dequantization.

The integer type comes from the FQ output's Precisions attribute (what its consumers accept,
per markup) and the FQ's interval. Inside a Concat subgraph that needs aligned quantization,
the requantization uses the combined interval of all FQs (IntervalsAlignment), so every
branch shares one scale.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node
from ....ir.eltypes import ElementType
from ...dequantization.attributes import PRECISIONS, PrecisionsAttribute, intervals_alignment, quantization_alignment
from ...engine.layer_checks import is_constant_path
from ...dequantization.chain import get_dequantization_below
from ...dequantization.fake_quantize_math import (Decomposition, calculate_levels, compose_fake_quantize, copy_info,
                                  decompose_fake_quantize, insert_dequantization_after)
from ...surgery.constants import constant, round_half_away
from ...dequantization.precision import (DataPrecision, QuantizationDetails, constant_intervals, get_details,
                         get_precision_details, is_quantize_supported, is_supported_level, is_supported_precision,
                         precisions_for_levels)
from ...engine.transformation import Transformation

def fuse_convert(fq: Node) -> Node:
    """FQ -> Convert(u8|i8) becomes one FQ with that output type (it takes the Convert's place)."""
    uses = fq.output().uses
    if len(uses) != 1 or uses[0].node.type != "Convert":
        return fq
    convert = uses[0].node
    target = convert.output().element_type
    if target.name not in ("u8", "i8"):
        return fq
    graph = fq.graph
    fused = graph.add_node("FakeQuantize", fq.input_values(), outputs=[(target, convert.output().shape)],
                           attrs=dict(fq.attrs), version=fq.version)
    copy_info(fq, fused)
    convert.output().replace_all_uses_with(fused.output())
    name = convert.name
    graph.remove(convert)
    graph.remove(fq)
    graph.rename(fused, graph.unique_name(name))  # the Convert's own name, once it is free
    return fused


def _precision_by_output_port(attribute: PrecisionsAttribute, details: QuantizationDetails) -> DataPrecision | None:
    """getDataPrecisionByOutputPort: the attribute's precisions that fit the levels; the FQ's
    natural precision if among them, else the first with a zero point. Narrows the shared value."""
    levels = details.levels
    candidates = [p for p in attribute.value if p in precisions_for_levels(levels)]
    if not candidates:
        return None
    natural = get_precision_details(levels, details.output_low, details.output_high)
    if len(candidates) > 1:
        if natural.precision in candidates:
            precision, has_zp = natural.precision, natural.has_zero_point
        else:
            precision, has_zp = candidates[0], True
        attribute.value = [precision]
    else:
        precision = candidates[0]
        has_zp = natural.precision != precision
    return DataPrecision.of(precision, levels, has_zp)


def _expected_precision(attribute: PrecisionsAttribute, fq: Node) -> ElementType:
    """getDataPrecisionByOutputPortAndFakeQuantize's precision (narrows a shared multi-precision
    value). The FQ's own precision decides only among several: with one value (e.g. every FQ the
    decomposition made, revisited) its intervals are not read."""
    if len(attribute.value) > 1:
        details = get_details(fq)
        assert details is not None, "the caller checked the intervals are Constants"
        natural = get_precision_details(details.levels, details.output_low, details.output_high).precision
        precision = natural if natural in attribute.value else attribute.value[0]
        attribute.value = [precision]
        return precision
    return attribute.value[0]


def _needs_alignment(fq: Node) -> bool:
    """True if a consumer's QuantizationAlignment is true (OpenVINO stops at the first such one)."""
    return any(quantization_alignment(consumer) for consumer in fq.output().consumer_nodes())


class FakeQuantizeDecompositionTransformation(Transformation):
    name = "FakeQuantizeDecompositionTransformation"

    def transform(self, node: Node) -> bool:
        if not is_quantize_supported(node):
            return self.reject(node, "unsupported_fake_quantize", "intervals are not constant or levels unsupported")
        fq = fuse_convert(node)
        rewritten = fq is not node
        if is_constant_path(fq):
            return rewritten or self.reject(fq, "constant_path", "weights are handled by their layer")
        attribute = fq.output().annotations.get(PRECISIONS)
        if attribute is None or not attribute.value:
            return rewritten or self.reject(fq, "no_precisions", "no consumer accepts a low precision")
        if is_supported_precision(fq.output().element_type):
            composed = self._compose(fq, attribute)
            if composed is None:
                return rewritten
            fq = composed
        details = get_details(fq)
        if details is None or not is_supported_level(details.levels):
            return rewritten
        data_precision = _precision_by_output_port(attribute, details)
        if data_precision is None:
            return rewritten or self.reject(fq, "levels_not_allowed", "no allowed precision fits the levels")
        alignment = intervals_alignment(fq) if _needs_alignment(fq) else None
        if alignment is not None and alignment.value.min_levels <= 2:
            return rewritten or self.reject(fq, "min_levels", "aligned quantization leaves <= 2 levels")
        if alignment is not None:
            done = self._decompose_aligned(fq, data_precision, alignment.value.combined)
        else:
            done = decompose_fake_quantize(fq, data_precision.precision, data_precision.min, data_precision.max,
                                           data_precision.has_zero_point, self.config.update_precisions)
        if done is None:
            return rewritten
        if len(attribute.value) != 1:
            attribute.value = [data_precision.precision]
        self._keep_output_name(fq, done)
        return True

    def _compose(self, fq: Node, attribute: PrecisionsAttribute) -> Node | None:
        """An FQ already producing integers: fold the dequantization below back into it when the
        precision it should have differs (else leave it)."""
        if get_dequantization_below(fq).empty or not constant_intervals(fq):
            return None
        if _expected_precision(attribute, fq) == fq.output().element_type:
            return None
        return compose_fake_quantize(fq, self.config.default_precisions)

    def _decompose_aligned(self, fq: Node, data_precision: DataPrecision,
                           combined: tuple[float, float]) -> Decomposition | None:
        """Requantize into the Concat's combined interval: new levels, scalar DQ in deq_precision."""
        low = float(np.asarray(fq.input_node(3).value).reshape(-1)[0])
        high = float(np.asarray(fq.input_node(4).value).reshape(-1)[0])
        update = calculate_levels(data_precision.min, data_precision.max, *combined, low, high)
        update_precisions = self.config.update_precisions
        if not update_precisions and update.dequantization_mul == 1.0 and update.dequantization_sub == 0.0:
            return None
        if update.levels <= 2:
            return None
        graph = self.graph
        original_type = fq.output().element_type
        precision = data_precision.precision if update_precisions else original_type
        new_fq = graph.add_node(
            "FakeQuantize",
            [fq.input_value(0), fq.input_value(1), fq.input_value(2),
             constant(graph, round_half_away(update.updated_low), original_type),
             constant(graph, round_half_away(update.updated_high), original_type)],
            outputs=[(precision, fq.output().shape)], attrs={**fq.attrs, "levels": str(update.levels)},
            version=fq.version, name=graph.unique_name(fq.name))
        copy_info(fq, new_fq)
        return self._make_dequantization(fq, new_fq, precision, update.dequantization_mul, update.dequantization_sub)

    def _make_dequantization(self, fq: Node, new_fq: Node, precision: ElementType, mul: float,
                             sub: float) -> Decomposition:
        """NetworkHelper::makeDequantization: [Convert] -> [Subtract] -> Multiply, scalars in deq_precision."""
        graph = self.graph
        deq = self.config.deq_precision
        shape = fq.output().shape
        parent = new_fq.output()
        convert = subtract = None
        if precision != deq:
            convert = graph.add_node("Convert", [parent], outputs=[(deq, shape)], attrs={"destination_type": deq.name})
            parent = convert.output()
        if abs(sub) > 1e-6:
            subtract = graph.add_node("Subtract", [parent, constant(graph, sub, deq)], outputs=[(deq, shape)])
            parent = subtract.output()
        multiply = graph.add_node("Multiply", [parent, constant(graph, mul, deq)],
                                  outputs=[(fq.output().element_type, shape)])
        insert_dequantization_after(fq, multiply, new_fq)
        return Decomposition(new_fq, convert, subtract, multiply)

    def _keep_output_name(self, fq: Node, done: Decomposition) -> None:
        """A model output keeps the FQ's name: the last dequantization node takes it."""
        if any(use.node.type == "Result" for use in done.multiply.output().uses):
            self.graph.rename(done.multiply, fq.name)
