"""RecurrentCellTransformation: an LSTMSequence or GRUSequence keeps the dequantizations in front of it.

A recurrent sequence is not re-expressed on integers by LPT. What LPT does is make sure the
`Convert -> [Subtract] -> Multiply` of its activations and weights survive until the plugin's
own pass folds them into a quantized cell (the CPU plugin's ConvertFqRnnToQuantizedRnn after
LPT): it marks them DisableCleanup (no cleanup fuses them into a FakeQuantize or a Convert
into the Multiply) and keeps their Convert from constant folding. On the way:

- X and H: when the input is a data-movement op with an undecomposed per-tensor FakeQuantize
  above it (through precision-preserved ops), that FakeQuantize is decomposed here and its
  dequantization pushed down to the cell through the supported ops. X and H must be u8 (a
  dequantization of i8 leaves the cell alone).
- W and R: a FakeQuantize on constant weights is decomposed (and folded) to an integer
  Constant -> Convert -> Multiply, symmetric only.
"""
from __future__ import annotations

from ....ir import Node
from ....ir.eltypes import ElementType, element_type
from ...dequantization.attributes import PRECISIONS, disable_cleanup, is_precision_preserved
from ...dequantization.chain import get_dequantization, get_dequantization_below
from ...dequantization.fake_quantize_math import decompose_fake_quantize
from ...dequantization.precision import get_data_precision, get_details
from ...engine.transformation import Transformation
from ...surgery.moving import move_dequantization_after, separate_in_standalone_branch
from ...surgery.rewrites import disable_constant_folding

U8 = element_type("u8")

# (input index, the precision its dequantized data must have; None: any), per op type.
QUANTIZED_INPUTS: dict[str, tuple[tuple[int, ElementType | None], ...]] = {
    "LSTMSequence": ((0, U8), (1, U8), (4, None), (5, None)),  # X, H, W, R
    "GRUSequence": ((0, U8), (1, U8), (3, None), (4, None)),
}
_BIAS_INPUT = {"LSTMSequence": 6, "GRUSequence": 5}

# The ops this transformation pushes a per-tensor dequantization through on its way to the
# cell (recurrent_cell.cpp's isSupportedForPerChannelQuantization): its own list, narrower
# than the precision-preserved ops (no Concat, Split or Gather).
_PROPAGATES_THROUGH = frozenset({
    "DepthToSpace", "Interpolate", "MaxPool", "ReduceMax", "ReduceMin", "Relu", "BatchToSpace", "Broadcast",
    "Pad", "Reshape", "Squeeze", "SpaceToBatch", "StridedSlice", "ShuffleChannels", "Transpose", "Unsqueeze",
})


def _fake_quantize_above(node: Node) -> Node | None:
    """The FakeQuantize at `node` or above it through precision-preserved ops (input 0)."""
    while node.type != "FakeQuantize":
        if not is_precision_preserved(node) or not node.inputs:
            return None
        node = node.input_node(0)
    return node


class RecurrentCellTransformation(Transformation):
    name = "RecurrentCellTransformation"
    op_versions = ("opset5",)
    revisits_created = False  # only the folded weights' Constant is registered in OpenVINO

    def applies_to(self, node: Node) -> bool:
        bias = _BIAS_INPUT.get(node.type)
        return (super().applies_to(node) and node.version in (self.op_versions or ()) and bias is not None
                and len(node.inputs) == bias + 1 and node.input_node(bias).type == "Constant")

    @property
    def precisions(self) -> tuple[ElementType, ...]:
        return tuple(self.config.default_precisions)

    def transform(self, node: Node) -> bool:
        for index, required in QUANTIZED_INPUTS[node.type]:
            parent = node.input_node(index)
            if parent.type not in _PROPAGATES_THROUGH:
                continue
            fq = _fake_quantize_above(parent)
            if fq is None:
                continue
            details = get_details(fq)
            if details is None or any(v.size != 1 for v in (details.input_low, details.input_high,
                                                            details.output_low, details.output_high)):
                continue
            precision = get_data_precision(details, self._precisions_of(fq))
            if precision is None or (required is not None and precision.precision != required):
                return self.reject(node, "precision_not_supported",
                                   f"input {index}: the FakeQuantize {fq.name!r} does not quantize to "
                                   f"{required.name if required else 'a supported type'}")
            done = decompose_fake_quantize(fq, precision.precision, precision.min, precision.max,
                                           precision.has_zero_point, self.config.update_precisions)
            if done is not None:
                for consumer in done.multiply.output().consumer_nodes():
                    self._propagate(consumer)
        refusal = self._refusal(node)
        if refusal is not None:
            return self.reject(node, *refusal)
        for slot in node.inputs:
            parent = slot.source.node
            if parent.type == "FakeQuantize":
                if parent.input_node(0).type != "Constant":
                    continue
                if not self._decompose_weights(node, parent):
                    return self.reject(node, "weights_not_symmetric",
                                       f"the weights FakeQuantize {parent.name!r} needs a zero point or a "
                                       "type it cannot have")
            elif parent.type == "Multiply":
                disable_constant_folding(parent.input_node(0))
                _keep_from_cleanup(parent)
        return True

    def _precisions_of(self, fq: Node) -> list[ElementType]:
        attribute = fq.output().annotations.get(PRECISIONS)
        return list(attribute.value) if attribute is not None else list(self.precisions)

    def _refusal(self, node: Node) -> tuple[str, str] | None:
        """canBeTransformed: the dequantized X and H (where there is one) have the precision required."""
        for index, required in QUANTIZED_INPUTS[node.type]:
            if node.input_node(index).type in ("Constant", "FakeQuantize"):
                continue
            dq = get_dequantization(node, self.precisions, index)
            if dq.empty or required is None or dq.data is None:
                continue
            if dq.data.element_type != required:
                detail = (f"input {index} is a dequantization of {dq.data.element_type.name}; "
                          f"{node.type} takes {required.name} only")
                return "precision_not_supported", detail
        return None

    def _propagate(self, node: Node) -> None:
        """Moves a dequantization down through the supported ops, as far as it goes."""
        if node.type not in _PROPAGATES_THROUGH or not node.inputs:
            return
        separate_in_standalone_branch(node, self.precisions)
        dq = get_dequantization(node, self.precisions)
        if dq.empty:
            return
        move_dequantization_after(node, dq)
        below = get_dequantization_below(node)
        if below.empty or below.multiply is None:
            return
        for consumer in below.multiply.output().consumer_nodes():
            self._propagate(consumer)

    def _decompose_weights(self, cell: Node, fq: Node) -> bool:
        """A FakeQuantize on constant weights becomes integer Constant -> Convert -> Multiply."""
        details = get_details(fq)
        if details is None:
            return False
        precision = get_data_precision(details, self._precisions_of(fq))
        if precision is None or precision.has_zero_point:
            return False
        done = decompose_fake_quantize(fq, precision.precision, precision.min, precision.max,
                                       precision.has_zero_point, self.config.update_precisions)
        if done is None:
            return False
        convert = done.multiply.input_node(0)
        if convert.type == "Subtract":
            convert = convert.input_node(0)
        disable_constant_folding(convert)
        _keep_from_cleanup(done.multiply)
        return True


def _keep_from_cleanup(multiply: Node) -> None:
    """propagateSkipCleanupAttribute: the Multiply, its parent, and a Subtract's parent."""
    disable_cleanup(multiply)
    parent = multiply.input_node(0)
    disable_cleanup(parent)
    if parent.type == "Subtract":
        disable_cleanup(parent.input_node(0))
