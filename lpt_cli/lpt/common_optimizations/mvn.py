"""MVN6Decomposition: the MVNs a plugin cannot run are decomposed before its LPT.

The plugin's MVN kernel (`node::MVN::isSupportedOperation`) takes ranks 1 to 5, constant axes,
INSIDE/OUTSIDE_SQRT epsilon, and axes that are all dimensions from 1 or from 2 to the last
(2-D: [1]; 3-D: [1, 2] or [2]; 4-D: [1, 2, 3] or [2, 3]). Any other MVN, such as the
LayerNorm over the last axis of a 4-D NHWC tensor in ConvNeXt and Swin, becomes
ReduceMean/Subtract/... before LPT, so LPT never moves a dequantization through it (and the
MVN's epsilon keeps its meaning on the float values). The CPU profiles mark such an MVN early
(ConvertPrecision keeps its decomposition's divide in f32) and decompose it where the plugin's
CommonDecompositions do, into mvn6_decomposition.cpp's ops: `x - ReduceMean(x)`, then
`/ Sqrt(ReduceMean(d ^ 2) + eps)` (or `/ (Sqrt(...) + eps)`), the last op named after the MVN;
LPT then sees the ReduceMean and Subtract the plugin's LPT sees (Swin's LayerNorms: the
FakeQuantize in front of the last one is i8 in the plugin, it was f32 in lpt while the MVN stayed
whole); the runtime dialect writes the MVN back (ir/legalize.py). An MVN left whole but marked is
declined by MVNTransformation.

The GPU plugin's rule is its own (`gpu_runs_mvn`): it keeps MVN-6 of ranks 2 to 5 whose axes are
the trailing ones, never axis 0, whatever the epsilon mode, so the NHWC LayerNorm the CPU
decomposes stays one MVN on GPU.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.legalize import DECOMPOSED_MVN, DecomposedMvn
from ..surgery.constants import replace_output

DECOMPOSED_BY_PLUGIN = "DecomposedByPlugin"  # node annotation: the plugin replaces the op before LPT


def cpu_runs_mvn(node: Node) -> bool:
    """Whether the CPU plugin's MVN kernel takes this MVN (else MVN6Decomposition splits it)."""
    rank = node.output().rank
    if rank is None or not 1 <= rank <= 5:
        return False
    if node.version != "opset6":
        return True
    if len(node.inputs) != 2 or node.input_node(1).type != "Constant":
        return False
    if (node.attr("eps_mode") or "inside_sqrt").lower() not in ("inside_sqrt", "outside_sqrt"):
        return False
    axes = sorted(a + rank if a < 0 else a for a in node.input_node(1).value.reshape(-1).astype(int).tolist())
    if rank == 1:
        return axes == [0]
    return len(axes) in (rank - 1, rank - 2) and axes == list(range(rank - len(axes), rank))


def gpu_runs_mvn(node: Node) -> bool:
    """The GPU plugin's MVN6Decomposition callback (transformations_pipeline.cpp,
    TransformationsPipeline::apply): an MVN-6 with constant axes and an output rank of 2 to 5 stays
    when its sorted axes are the last ones (r-k .. r-1) and none is axis 0; any other MVN-6 is
    decomposed. MVN-0 is not MVN6Decomposition's to decompose."""
    if node.version != "opset6":
        return True
    rank = node.output().rank
    if rank is None or len(node.inputs) != 2 or node.input_node(1).type != "Constant":
        return False
    if not 2 <= rank <= 5:
        return False
    axes = sorted(a + rank if a < 0 else a for a in node.input_node(1).value.reshape(-1).astype(int).tolist())
    return 0 not in axes and axes == list(range(rank - len(axes), rank))


def mark_mvn_decomposition(graph: Graph, runs: Callable[[Node], bool] = cpu_runs_mvn) -> int:
    """Marks the MVNs the plugin decomposes before LPT (those `runs` refuses); returns how many."""
    marked = 0
    for node in graph:
        if node.type == "MVN" and not node.annotations.get(DECOMPOSED_BY_PLUGIN) and not runs(node):
            node.annotations[DECOMPOSED_BY_PLUGIN] = True
            marked += 1
    return marked


def _op(graph: Graph, op_type: str, inputs: list[Output], like: Output, **attrs: str) -> Output:
    return graph.add_node(op_type, inputs, outputs=[(like.element_type, like.shape)], attrs=attrs,
                          version="opset1").output()


def _decompose(graph: Graph, mvn: Node) -> None:
    data, axes, out = mvn.input_value(0), mvn.input_value(1), mvn.output()
    dtype = data.element_type.dtype or np.float32
    mean = _op(graph, "ReduceMean", [data, axes], out, keep_dims="true")
    mean.shape = None if out.shape is None else tuple(1 if i in _axes(mvn) else d for i, d in enumerate(out.shape))
    centred = _op(graph, "Subtract", [data, mean], out, auto_broadcast="numpy")
    last = centred
    if mvn.attr_bool("normalize_variance", True):
        two = graph.add_constant(np.array([2], dtype), data.element_type).output()
        square = _op(graph, "Power", [centred, two], out, auto_broadcast="numpy")
        variance = _op(graph, "ReduceMean", [square, axes], mean, keep_dims="true")
        eps = graph.add_constant(np.array([mvn.attr_float("eps", 0.0)], dtype), data.element_type).output()
        if (mvn.attr("eps_mode") or "inside_sqrt").lower() == "inside_sqrt":
            root = _op(graph, "Sqrt", [_op(graph, "Add", [variance, eps], mean, auto_broadcast="numpy")], mean)
        else:
            root = _op(graph, "Add", [_op(graph, "Sqrt", [variance], mean), eps], mean, auto_broadcast="numpy")
        last = _op(graph, "Divide", [centred, root], out, auto_broadcast="numpy", m_pythondiv="true")
    last.node.annotations[DECOMPOSED_MVN] = DecomposedMvn(dict(mvn.attrs), mvn.input_node(1).constant_data)
    replace_output(mvn, last)


def _axes(mvn: Node) -> set[int]:
    rank = mvn.output().rank or 0
    return {a + rank if a < 0 else a for a in mvn.input_node(1).value.reshape(-1).astype(int).tolist()}


def decompose_marked_mvns(graph: Graph) -> int:
    """Decomposes every MVN-6 on constant axes that `mark_mvn_decomposition` marked; returns how many."""
    marked = [node for node in graph.topological_order() if node.type == "MVN" and node.version == "opset6"
              and node.annotations.get(DECOMPOSED_BY_PLUGIN) and node.input_node(1).type == "Constant"
              and (node.attr("eps_mode") or "inside_sqrt").lower() in ("inside_sqrt", "outside_sqrt")]
    for node in marked:
        _decompose(graph, node)
    return len(marked)
