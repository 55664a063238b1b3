"""FoldFakeQuantizeTransformation: a FakeQuantize whose value is known before inference (on
a constant path, or with equal output bounds) is replaced by its value, unrounded.

It runs after cleanup, on FQs no transformation consumed (e.g. weights of a layer LPT left
in float), so the model does not quantize the same constant on every inference.
"""
from __future__ import annotations

from ....ir import Node
from ...engine.layer_checks import is_constant_path
from ...dequantization.fake_quantize_math import fold_fake_quantize
from ...surgery.constants import remove_unused
from ...engine.transformation import Transformation

def has_constant_output(fq: Node) -> bool:
    """Both output bounds are Constants with the same values: the FQ yields one value."""
    low, high = fq.input_node(3), fq.input_node(4)
    if low.type != "Constant" or high.type != "Constant":
        return False
    return low.value.reshape(-1).astype("float32").tolist() == high.value.reshape(-1).astype("float32").tolist()


def _intervals_foldable(fq: Node) -> bool:
    """Every interval has a static shape with at most one dimension > 1."""
    for index in range(1, 5):
        shape = fq.input_value(index).shape
        if shape is None or any(d < 0 for d in shape) or sum(1 for d in shape if d > 1) > 1:
            return False
    return True


class FoldFakeQuantizeTransformation(Transformation):
    name = "FoldFakeQuantizeTransformation"

    def transform(self, node: Node) -> bool:
        if not (is_constant_path(node) or has_constant_output(node)):
            return self.reject(node, "not_constant", "the FakeQuantize depends on inference data")
        if len(node.inputs) != 5 or not _intervals_foldable(node):
            return self.reject(node, "interval_shape", "an interval is dynamic or varies along several axes")
        folded = fold_fake_quantize(node, round_values=False)
        if folded is None:
            return self.reject(node, "not_foldable", "the FakeQuantize does not fold to a Constant")
        node.output().replace_all_uses_with(folded)
        remove_unused(node)
        return True
