"""AssignAndReadValueTransformation: the state keeps the quantized data, the dequantization moves to the read.

`Assign(Multiply(x, s))` stores `x` instead, in x's type: the ReadValue of the same variable then
returns `x` and the Multiply by `s` follows it (with the Convert, if any). Where a FakeQuantize with
constant input bounds is the only reader, the scale folds into its input interval, as
FakeQuantizeTransformation does. Only a variable that starts at zero is changed (its initial value
is converted to the new type), and only a dequantization without a zero point.
"""
from __future__ import annotations

from ....ir import Node, Output
from ....ir.eltypes import ElementType
from ...dequantization.chain import Dequantization, get_dequantization
from ...engine.layer_checks import can_be_transformed
from ...engine.transformation import Transformation
from ...surgery.constants import fold_convert, remove_unused
from ...surgery.fold_dequantization import is_zero_constant
from ...surgery.moving import separate_in_standalone_branch
from ..fake_quantize.fake_quantize import fuse_elementwise


class AssignAndReadValueTransformation(Transformation):
    name = "AssignAndReadValueTransformation"
    op_versions = ("opset3", "opset6")
    revisits_created = frozenset({"FakeQuantize"})  # the FakeQuantize it fuses is registered

    @property
    def precisions(self) -> tuple[ElementType, ...]:
        return tuple(self.config.default_precisions)

    def applies_to(self, node: Node) -> bool:
        return (super().applies_to(node) and node.version in (self.op_versions or ()) and len(node.inputs) == 1
                and node.input_node(0).type == "Multiply" and self.graph.read_value_of(node) is not None)

    def transform(self, node: Node) -> bool:
        read_value = self.graph.read_value_of(node)
        assert read_value is not None, "applies_to found it"
        if not can_be_transformed(node, self.precisions):
            return self.reject(node, "not_per_channel", "the dequantization is neither per-tensor nor per-channel")
        if not read_value.inputs:
            return self.reject(node, "no_initial_value", f"ReadValue {read_value.name!r} has no initial value "
                               "(OpenVINO's LPT fails on it and the CPU plugin refuses the model)")
        initial = read_value.input_node(0)
        if initial.type != "Constant" or not is_zero_constant(initial.value):
            return self.reject(node, "initial_value_not_zero", f"the variable of ReadValue {read_value.name!r} does "
                               "not start at zero")
        dq = get_dequantization(node, self.precisions)
        if dq.subtract is not None or dq.multiply is None:
            return self.reject(node, "zero_point" if dq.subtract is not None else "no_dequantization",
                               "the state takes a dequantization by a scale only")
        separate_in_standalone_branch(node, self.precisions)
        dq = get_dequantization(node, self.precisions)
        last = self._read_dequantized(read_value, dq)
        old = node.input_value(0)
        node.set_input(0, dq.source)
        remove_unused(old.node)
        self._fuse_into_reader(last)
        return True

    def _read_dequantized(self, read_value: Node, dq: Dequantization) -> Output:
        """A ReadValue of the data's type, followed by a copy of the dequantization, replaces the old one."""
        graph = self.graph
        data = dq.source
        etype = data.element_type
        attrs = dict(read_value.attrs)
        if "variable_type" in attrs:
            attrs["variable_type"] = etype.name
        out = read_value.output()
        new = graph.add_node("ReadValue", [fold_convert(graph, read_value.input_value(0), etype)],
                             outputs=[(etype, out.shape)], attrs=attrs, version=read_value.version,
                             name=graph.unique_name(read_value.name))
        parent = new.output()
        for op in (dq.convert, dq.multiply):
            if op is None:
                continue
            inputs = [parent] if op.type == "Convert" else [
                parent if slot.source is op.input_value(_data_index(op, dq)) else slot.source for slot in op.inputs]
            parent = graph.add_node(op.type, inputs, outputs=[(op.output().element_type, out.shape)],
                                    attrs=dict(op.attrs), version=op.version).output()
        names, out.names = out.names, None
        out.replace_all_uses_with(parent)
        parent.names = names
        name = read_value.name
        remove_unused(read_value)
        graph.rename(new, name)
        return parent

    def _fuse_into_reader(self, last: Output) -> None:
        """The scale folds into a FakeQuantize that alone reads it (constant input bounds)."""
        if len(last.uses) != 1:
            return
        reader = last.uses[0].node
        if reader.type != "FakeQuantize" or len(reader.inputs) != 5:
            return
        if reader.input_node(1).type != "Constant" or reader.input_node(2).type != "Constant":
            return
        fuse_elementwise(reader, self.config.update_precisions)


def _data_index(op: Node, dq: Dequantization) -> int:
    """The input of the dequantization `op` that carries the data (not its constant)."""
    constant = dq.multiply_constant if op.type == "Multiply" else dq.subtract_constant
    return 1 if constant is not None and op.input_node(0) is constant else 0
