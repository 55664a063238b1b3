"""MVN6Decomposition: the MVNs a plugin cannot run are decomposed before its LPT.

The plugin's MVN kernel (`node::MVN::isSupportedOperation`) takes ranks 1 to 5, constant axes,
INSIDE/OUTSIDE_SQRT epsilon, and axes that are all dimensions from 1 or from 2 to the last
(2-D: [1]; 3-D: [1, 2] or [2]; 4-D: [1, 2, 3] or [2, 3]). Any other MVN, such as the
LayerNorm over the last axis of a 4-D NHWC tensor in ConvNeXt and Swin, becomes
ReduceMean/Subtract/... before LPT, so LPT never moves a dequantization through it (and the
MVN's epsilon keeps its meaning on the float values). lpt leaves such an MVN to the plugin:
it marks it, MVNTransformation declines it, and the plugin decomposes it when it compiles
lpt's output, exactly as for the original.

The GPU plugin's rule is its own (`gpu_runs_mvn`): it keeps MVN-6 of ranks 2 to 5 whose axes are
the trailing ones, never axis 0, whatever the epsilon mode, so the NHWC LayerNorm the CPU
decomposes stays one MVN on GPU.
"""
from __future__ import annotations

from collections.abc import Callable

from ...ir import Graph, Node

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
