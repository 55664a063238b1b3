"""MoveFakeQuantize: `Concat -> [Relu] -> FakeQuantize` becomes `Concat(FakeQuantize([Relu](x_i)))`.

A FakeQuantize after a Concat (densenet's transition layers, a UNet's time embedding) moves onto
every input of the Concat, so each branch is quantized where it is produced and the Concat
moves integers. Per-channel intervals are split along the Concat axis by the inputs' sizes; the
copies are named `FQ_1`, `FQ_2`, ... (and `Relu_1`, ...) and the new Concat keeps its name, as in
OpenVINO's move_fake_quantize.cpp, where this is one of LPT's prerequisites.

Not done: a FakeQuantize followed by a Convert and a dequantization (the QDQ form of a model
LPT already decomposed), where OpenVINO also moves the dequantization before the new Concat.
"""
from __future__ import annotations

import numpy as np

from ....ir import Node, Output
from ...surgery.constants import remove_unused
from ...engine.transformation import Transformation
from ..movement.concat import concat_axis  # the Concat's axis as ConcatTransformation reads it


def _per_input(value: np.ndarray, axis: int, sizes: list[int]) -> list[np.ndarray]:
    """The interval constant for each Concat input: a slice along the axis, or the constant itself."""
    if value.size == 1 or value.ndim <= axis or value.shape[axis] == 1:
        return [value] * len(sizes)
    return np.split(value, np.cumsum(sizes)[:-1], axis=axis)


class MoveFakeQuantize(Transformation):
    name = "MoveFakeQuantize"
    revisits_created = False  # a matcher of the prerequisites' GraphRewrite: new nodes are not revisited

    def applies_to(self, node: Node) -> bool:
        if not super().applies_to(node) or len(node.inputs) != 5:
            return False
        if any(node.input_node(i).type != "Constant" for i in range(1, 5)):
            return False
        parent = node.input_node(0)
        if parent.type == "Relu" and parent.version == "opset1":
            parent = parent.input_node(0)
        return parent.type == "Concat" and len(parent.output().uses) == 1

    def transform(self, node: Node) -> bool:
        operation = node.input_node(0)
        concat = operation if operation.type == "Concat" else operation.input_node(0)
        axis = concat_axis(concat)
        if axis is None or not node.output().uses:
            return False
        if node.output().uses[0].node.type == "Convert":  # the QDQ form: not modelled (module docstring)
            return False
        sources = [slot.source for slot in concat.inputs]
        if all(s.node.type == "Split" and s.node is sources[0].node for s in sources[1:]):
            return False  # OpenVINO leaves a Concat of one Split's outputs (or of one input) alone
        sizes = [s.shape[axis] if s.shape is not None else -1 for s in sources]
        intervals = [np.asarray(node.input_node(i).value) for i in range(1, 5)]
        split = any(v.ndim > axis and v.shape[axis] != 1 for v in intervals)
        if split and any(size < 0 for size in sizes):
            return False  # per-channel intervals cannot be split over a dynamic axis
        parts = [_per_input(v, axis, sizes) if split else [v] * len(sources) for v in intervals]
        quantized = [self._quantize(node, operation, source, [p[i] for p in parts], i)
                     for i, source in enumerate(sources)]
        self._replace(node, concat, quantized)
        return True

    def _quantize(self, fq: Node, operation: Node, source: Output, intervals: list[np.ndarray], index: int) -> Output:
        """FakeQuantize([Relu](source)) with this input's intervals, named after the originals."""
        graph = self.graph
        if operation.type == "Relu":
            source = graph.add_node("Relu", [source], outputs=[(source.element_type, source.shape)],
                                    attrs=dict(operation.attrs), version=operation.version,
                                    name=graph.unique_name(f"{operation.name}_{index + 1}")).output()
        constants = [graph.add_constant(value, fq.input_value(i + 1).element_type).output()
                     for i, value in enumerate(intervals)]
        return graph.add_node("FakeQuantize", [source, *constants],
                              outputs=[(fq.output().element_type, source.shape)], attrs=dict(fq.attrs),
                              version=fq.version, name=graph.unique_name(f"{fq.name}_{index + 1}")).output()

    def _replace(self, fq: Node, concat: Node, inputs: list[Output]) -> None:
        """A new Concat of `inputs` takes the FakeQuantize's place and the old Concat's name."""
        graph, out = self.graph, fq.output()
        name = concat.name
        graph.rename(concat, graph.unique_name(f"{name}_moved"))
        new = graph.add_node("Concat", inputs, outputs=[(out.element_type, out.shape)], attrs=dict(concat.attrs),
                             version=concat.version, name=name)
        names, out.names = out.names, None
        feeds_result = any(use.node.type == "Result" for use in out.uses)
        out.replace_all_uses_with(new.output())
        new.output().names = names
        fq_name = fq.name
        remove_unused(fq)
        if feeds_result:  # LayerTransformation::updateOutput: a model output keeps its producer's name
            graph.rename(new, fq_name)
