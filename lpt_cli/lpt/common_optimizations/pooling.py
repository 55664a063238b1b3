"""Pooling opset conversions CommonOptimizations runs before LPT, which knows MaxPool-1/AvgPool-1.

PyTorch's max_pool2d converts to MaxPool-14; the plugin turns it into MaxPool-8 and a MaxPool-8
whose indices nobody reads (and without dilation) into MaxPool-1. AvgPool-14 becomes AvgPool-1.
`ceil_torch` rounding, which only v14 has, is where the plugins differ: the CPU plugin's callback
keeps such a pool as it is (transformation_pipeline.cpp, Transformations::PreLpt), the GPU plugin
sets none, so convert_maxpool_downgrade.cpp / convert_avgpool_downgrade.cpp rewrite it:
- MaxPool: `Pad(x, [0, 0, pads_begin], [0, 0, pads_end or 0], -inf) -> MaxPool-8(ceil, no pads)`,
  the end pad of a spatial axis kept when the last ceil window starts inside the input
  (`in + pad_begin > (out_ceil - 1) * stride`). The plugin computes that with a ShapeOf subgraph
  ConstantFolding folds; lpt computes it when the spatial dims are static and keeps MaxPool-14 as
  it is otherwise (README: not modelled).
- AvgPool: `ceil` rounding, and with `exclude-pad` false a `Pad(x, pads_begin, pads_begin, 0)`
  in front of a pool without pads.
On a GPU with XMX, `ConvertAvgPoolingToReduce` (the GPU plugin's convert_pooling_to_reduce.cpp)
then makes an AvgPool whose kernel covers the whole static spatial extent, without pads, a
ReduceMean over the spatial axes (keep_dims) named `<pool>/Reduce`.
"""
from __future__ import annotations

import math

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.graph import Shape
from .versions import replace_version

_MAX_POOL_1 = ("strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad")
_MAX_POOL_8 = (*_MAX_POOL_1, "dilations", "index_element_type", "axis")
_AVG_POOL_1 = ("strides", "pads_begin", "pads_end", "kernel", "exclude-pad", "rounding_type", "auto_pad")


def _torch_rounding(node: Node) -> bool:
    return (node.attr("rounding_type") or "floor").lower() == "ceil_torch"


def _ints(values: list[int]) -> str:
    return ", ".join(map(str, values))


def _pad(graph: Graph, data: Output, begin: list[int], end: list[int], fill: float, version: str) -> Output:
    """`Pad(data, begin, end, fill)` in CONSTANT mode on the spatial axes (the first two are not padded)."""
    shape: Shape = None
    if data.shape is not None:
        shape = tuple(d if i < 2 or d < 0 else d + begin[i - 2] + end[i - 2] for i, d in enumerate(data.shape))
    pads = [graph.add_constant(np.array([0, 0, *p], np.int64)).output() for p in (begin, end)]
    value = graph.add_constant(np.asarray(fill), data.element_type).output()
    return graph.add_node("Pad", [data, *pads, value], outputs=[(data.element_type, shape)],
                          attrs={"pad_mode": "constant"}, version=version).output()


def _ceil_windows(size: int, kernel: int, stride: int, dilation: int, begin: int, end: int) -> int:
    """MaxPool-8's output size along one axis with CEIL rounding."""
    return math.ceil((size + begin + end - ((kernel - 1) * dilation + 1)) / stride) + 1


def _torch_max_pool(node: Node) -> bool:
    """ConvertMaxPool14ToMaxPool8 on a `ceil_torch` MaxPool-14: Pad(-inf) + MaxPool-8 (CEIL)."""
    shape = node.input_value(0).shape
    begin, end = node.attr_ints("pads_begin"), node.attr_ints("pads_end")
    spatial = len(begin)
    if shape is None or len(shape) != spatial + 2 or any(d < 0 for d in shape[2:]):
        return False  # the plugin's pads are a run-time shape subgraph here: not modelled
    strides, kernel = node.attr_ints("strides"), node.attr_ints("kernel")
    dilations = node.attr_ints("dilations") or [1] * spatial
    kept_end = []
    for axis in range(spatial):
        windows = _ceil_windows(shape[axis + 2], kernel[axis], strides[axis], dilations[axis], begin[axis], end[axis])
        kept_end.append(end[axis] if shape[axis + 2] + begin[axis] > (windows - 1) * strides[axis] else 0)
    padded = _pad(node.graph, node.input_value(0), begin, kept_end, -np.inf, "opset12")
    zeros = _ints([0] * spatial)
    replace_version(node, "opset8", _MAX_POOL_8, len(node.outputs), inputs=[padded],
             attrs={"pads_begin": zeros, "pads_end": zeros, "rounding_type": "ceil", "auto_pad": "explicit"})
    return True


def convert_max_pool_14(graph: Graph, *, keep_torch_rounding: bool = True) -> int:
    """MaxPool-14 -> MaxPool-8; a `ceil_torch` one stays with `keep_torch_rounding` (the CPU
    plugin's callback), else becomes Pad + MaxPool-8 (the GPU plugin's, without a callback)."""
    changed = 0
    for node in [n for n in graph if n.type == "MaxPool" and n.version == "opset14"]:
        if not _torch_rounding(node):
            replace_version(node, "opset8", _MAX_POOL_8, len(node.outputs))
            changed += 1
        elif not keep_torch_rounding:
            changed += _torch_max_pool(node)
    return changed


def convert_max_pool_8(graph: Graph) -> int:
    """MaxPool-8 -> MaxPool-1 when the indices output is unused and there is no dilation."""
    pools = [n for n in graph if n.type == "MaxPool" and n.version == "opset8"
             and not any(out.uses for out in n.outputs[1:]) and all(d == 1 for d in n.attr_ints("dilations"))]
    for node in pools:
        replace_version(node, "opset1", _MAX_POOL_1, 1)
    return len(pools)


def _torch_avg_pool(node: Node) -> bool:
    """ConvertAvgPool14ToAvgPool1 on a `ceil_torch` AvgPool-14: CEIL rounding, pads moved into a
    Pad(0) when padded positions count (`exclude-pad` false)."""
    data = node.input_value(0)
    if data.rank is None:
        return False
    if node.attr_bool("exclude-pad"):
        replace_version(node, "opset1", _AVG_POOL_1, 1, attrs={"rounding_type": "ceil"})
        return True
    begin = node.attr_ints("pads_begin")
    zeros = _ints([0] * len(begin))
    padded = _pad(node.graph, data, begin, begin, 0.0, "opset1")  # the source pads the end by pads_begin too
    replace_version(node, "opset1", _AVG_POOL_1, 1, inputs=[padded],
             attrs={"pads_begin": zeros, "pads_end": zeros, "rounding_type": "ceil"})
    return True


def convert_avg_pool_14(graph: Graph, *, keep_torch_rounding: bool = True) -> int:
    """AvgPool-14 -> AvgPool-1; a `ceil_torch` one as `convert_max_pool_14` says."""
    changed = 0
    for node in [n for n in graph if n.type == "AvgPool" and n.version == "opset14"]:
        if not _torch_rounding(node):
            replace_version(node, "opset1", _AVG_POOL_1, 1)
            changed += 1
        elif not keep_torch_rounding:
            changed += _torch_avg_pool(node)
    return changed


def convert_avg_pool_to_reduce(graph: Graph) -> int:
    """The GPU plugin's ConvertAvgPoolingToReduce (GPUs with XMX): a global AvgPool becomes ReduceMean."""
    changed = 0
    for node in [n for n in graph if n.type == "AvgPool" and n.version == "opset1"]:
        shape = node.input_value(0).shape
        kernel = node.attr_ints("kernel")
        if shape is None or len(shape) <= 2 or any(d < 0 for d in shape):
            continue  # the source reads the static input shape (get_input_shape)
        if list(shape[-2:]) != kernel[-2:] or any(node.attr_ints("pads_begin")) or any(node.attr_ints("pads_end")):
            continue
        rank = len(shape)
        axes = graph.add_constant(np.arange(2, rank, dtype=np.int64)).output()
        out = node.output()
        reduce = graph.add_node("ReduceMean", [node.input_value(0), axes], outputs=[(out.element_type, out.shape)],
                                attrs={"keep_dims": "true"}, name=graph.unique_name(f"{node.name}/Reduce"))
        reduce.xml_rt_info = node.xml_rt_info
        reduce.output().names, out.names = out.names, None
        out.replace_all_uses_with(reduce.output())
        graph.remove(node)
        changed += 1
    return changed
