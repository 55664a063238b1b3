"""SharedOpOptimization (MOC, twice: inside SimplifyShapeOfSubGraph after the first
ConstantFolding, and again after the FakeQuantize fusions).

Two consumers of one value that compute the same thing become one: same op type and version,
the same attributes, and each input either the same value or two Constants with the same
element type, shape and bytes. The earliest in topological order stays and takes the other's
consumers. NNCF leaves such twins where an ignored scope splits a shared quantizer: two
identical FakeQuantizes on one tensor, one for a Convolution, one for an Add. The plugin's LPT
sees a single FakeQuantize with two consumers and picks one precision for both; lpt kept two,
quantized them differently, and the plugin fused the Add into the Convolution on lpt's output
only (yolo_swish of the settings sweep, 5.4e-2 of max).
"""
from __future__ import annotations

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.constant import ConstantData
from ..surgery.constants import remove_unused

# Results and the stateful pair are never merged (OpenVINO skips ops with control dependencies,
# which order a ReadValue/Assign pair); a body-carrying op is never a root (bodies are not compared).
_NEVER = frozenset({"Result", "Assign", "ReadValue"})
_BODIES = frozenset({"TensorIterator", "Loop", "If"})


def _same_bytes(left: ConstantData, right: ConstantData) -> bool:
    """Byte-for-byte equal values (as memcmp: -0.0 differs from 0.0, NaNs of equal bits match)."""
    if left.element_type != right.element_type or left.shape != right.shape:
        return False
    if left.is_lazy and right.is_lazy and left.blob is right.blob and left.offset == right.offset:
        return True
    return bool(np.array_equal(np.frombuffer(left.raw_bytes(), np.uint8), np.frombuffer(right.raw_bytes(), np.uint8)))


def _same_inputs(left: Node, right: Node) -> bool:
    if len(left.inputs) != len(right.inputs):
        return False
    for mine, theirs in zip(left.inputs, right.inputs):
        if mine.source is theirs.source:
            continue
        a, b = mine.source.node, theirs.source.node
        if a.type != "Constant" or b.type != "Constant" or not _same_bytes(a.constant_data, b.constant_data):
            return False
    return True


def _equal(root: Node, twin: Node) -> bool:
    return (root.type == twin.type and root.version == twin.version and root.attrs == twin.attrs
            and root.type not in _BODIES and _same_inputs(root, twin))


def _merge(root: Node, twin: Node) -> bool:
    """Moves `twin`'s first output's consumers to `root`'s (replace_output_update_name: a Result
    fed by `twin` keeps its producer's name, so `root` takes it; not when `root` has several outputs)."""
    old, new = twin.output(0), root.output(0)
    feeds_result = any(use.node.type == "Result" for use in old.uses)
    if feeds_result and len(root.outputs) != 1:
        return False
    names = [name for name in (new.names or "").split(",") + (old.names or "").split(",") if name]
    old.replace_all_uses_with(new)
    new.names = ",".join(dict.fromkeys(names)) or None
    old.names = None
    name = twin.name
    remove_unused(twin)
    if feeds_result and root.type != "Parameter":
        root.graph.rename(root, name)
    return True


def _twins(out: Output, position: dict[int, int]) -> list[list[Node]]:
    """The consumers of `out` that could be merged, grouped by type, earliest first."""
    groups: dict[tuple[str, str], list[Node]] = {}
    for node in dict.fromkeys(use.node for use in out.uses):
        if node.type not in _NEVER:
            groups.setdefault((node.type, node.version), []).append(node)
    return [sorted(nodes, key=lambda node: position[node.id]) for nodes in groups.values() if len(nodes) > 1]


def share_equal_ops(graph: Graph) -> int:
    """Merges every consumer that computes what an earlier consumer of the same value does;
    returns how many were merged."""
    order = graph.topological_order()
    position = {node.id: index for index, node in enumerate(order)}
    merged = 0
    for node in order:
        if not node.alive:
            continue
        for out in node.outputs:
            for group in _twins(out, position):
                done: set[int] = set()
                for i, root in enumerate(group):
                    if root.id in done or not root.alive:
                        continue
                    for twin in group[i + 1:]:
                        if twin.id not in done and twin.alive and _equal(root, twin) and _merge(root, twin):
                            done.add(twin.id)
                            merged += 1
    return merged
