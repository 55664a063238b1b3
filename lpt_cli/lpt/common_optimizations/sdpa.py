"""ScaledDotProductAttentionDecomposition (CommonOptimizations) with the CPU and GPU plugins' callbacks.

The CPU plugin keeps an SDPA only in a model with state (`cpu_decompose_sdpa`). The GPU plugin keeps an SDPA its kernels run (transformations_pipeline.cpp, the callback on
ScaledDotProductAttentionDecomposition): f16 output, Q, K and V of rank 4 with one static head
size, and either a GPU with XMX (and oneDNN's micro-kernels) and a head size of at most 256, or a
head size that is a multiple of 16 between 64 and 256. Every other SDPA is decomposed before LPT
(scaled_dot_product_attention_decomposition.cpp), so its MatMuls are ones LPT can quantize:
`MatMul(Q, Transpose(K, last two axes swapped)) * scale [+ mask] -> Softmax(-1) -> MatMul(., V)`,
the last MatMul named after the SDPA: the 2026.4 plugins' graph before their LPT, measured by
serialize tracing (the scale multiplies the scores; the CPU plugin's MatMulMultiplyFusion then
moves it onto K). `scale` is 1/sqrt(head) in Q's type (the plugin folds it) unless the SDPA has a
scale input; a head size known only at run time gives the plugin's
`ShapeOf -> Gather(-1) -> ConvertLike -> Sqrt -> Divide(1, .)`. A boolean mask, True where a key
takes part, becomes `Select(mask, 0, -inf)`; a float mask is added.
Not modelled (README): a causal SDPA (its mask is a run-time Range/Select subgraph) and inputs of
dynamic rank; lpt leaves those SDPAs whole.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir import Graph, Node, Output
from ...ir.eltypes import f16
from ...ir.graph import Shape
from ...ir.shapes import broadcast_shapes


def gpu_keeps_sdpa(node: Node, *, xmx: bool) -> bool:
    """The GPU plugin's ScaledDotProductAttentionDecomposition callback: True keeps the SDPA
    (enable_sdpa_optimization at its default, true; on XMX the micro-kernels taken as available)."""
    if node.output().element_type != f16 or len(node.inputs) < 3:
        return False
    shapes = [node.input_value(i).shape for i in range(3)]
    if any(shape is None or len(shape) != 4 for shape in shapes):
        return False
    heads = {shape[-1] for shape in shapes if shape is not None}
    if len(heads) != 1 or -1 in heads:
        return False
    head = heads.pop()
    if xmx and head <= 256:
        return True
    return head % 16 == 0 and 64 <= head <= 256


def _op(graph: Graph, op_type: str, inputs: list[Output], shape: Shape, *, like: Output,
        attrs: dict[str, str] | None = None, version: str = "opset1", name: str | None = None) -> Output:
    return graph.add_node(op_type, inputs, outputs=[(like.element_type, shape)], attrs=attrs, version=version,
                          name=name).output()


def _scale(graph: Graph, query: Output) -> Output:
    """1/sqrt(head size) in the query's type: a Constant when the head size is static."""
    dtype = query.element_type.dtype
    head = query.shape[-1] if query.shape else -1
    if head >= 0 and dtype is not None:
        value = np.asarray(1, dtype) / np.sqrt(np.asarray(head, dtype))
        return graph.add_constant(np.asarray(value, dtype), query.element_type).output()
    shape = graph.add_node("ShapeOf", [query], outputs=[("i32", (query.rank or -1,))], attrs={"output_type": "i32"},
                           version="opset3").output()
    last = graph.add_node("Gather", [shape, graph.add_constant(np.int32(-1)).output(),
                                     graph.add_constant(np.int32(0)).output()],
                          outputs=[("i32", ())], attrs={"batch_dims": "0"}, version="opset8").output()
    as_float = _op(graph, "ConvertLike", [last, query], (), like=query)
    root = _op(graph, "Sqrt", [as_float], (), like=query, version="opset1")
    one = graph.add_constant(np.asarray(1, dtype or np.float32), query.element_type).output()
    return _op(graph, "Divide", [one, root], (), like=query, attrs={"auto_broadcast": "numpy", "m_pythondiv": "true"})


def _decompose(graph: Graph, node: Node) -> bool:
    query, key, value = (node.input_value(i) for i in range(3))
    if node.attr_bool("causal") or query.shape is None or key.shape is None or value.shape is None:
        return False
    if len(key.shape) < 2 or len(query.shape) < 2:
        return False
    scale = node.input_value(4) if len(node.inputs) > 4 else _scale(graph, query)
    rank = len(key.shape)
    order = graph.add_constant(np.array([*range(rank - 2), rank - 1, rank - 2], np.int32)).output()
    k_shape = (*key.shape[:-2], key.shape[-1], key.shape[-2])
    k_transposed = _op(graph, "Transpose", [key, order], k_shape, like=key)
    batch = broadcast_shapes(query.shape[:-2], k_shape[:-2])
    scores_shape: Shape = None if batch is None else (*batch, query.shape[-2], k_shape[-1])
    scores = _op(graph, "MatMul", [query, k_transposed], scores_shape, like=query,
                 attrs={"transpose_a": "false", "transpose_b": "false"})
    scores = _op(graph, "Multiply", [scores, scale], broadcast_shapes(scores.shape, scale.shape), like=scores,
                 attrs={"auto_broadcast": "numpy"})
    if len(node.inputs) > 3:
        mask = node.input_value(3)
        if mask.element_type.kind == "bool":
            dtype = scores.element_type.dtype or np.float32
            zero, minus_inf = (graph.add_constant(np.asarray(v, dtype), scores.element_type).output()
                               for v in (0, -np.inf))
            mask = _op(graph, "Select", [mask, zero, minus_inf], mask.shape, like=scores,
                       attrs={"auto_broadcast": "numpy"})
        scores = _op(graph, "Add", [scores, mask], broadcast_shapes(scores.shape, mask.shape), like=scores,
                     attrs={"auto_broadcast": "numpy"})
    weights = _op(graph, "Softmax", [scores], scores.shape, like=scores, attrs={"axis": "-1"}, version="opset8")
    out = node.output()
    name = node.name
    graph.rename(node, graph.unique_name(f"{name}/decomposed"))
    result = graph.add_node("MatMul", [weights, value], outputs=[(out.element_type, out.shape)],
                            attrs={"transpose_a": "false", "transpose_b": "false"}, name=name)
    result.output().names, out.names = out.names, None
    out.replace_all_uses_with(result.output())
    graph.remove(node)
    return True


def decompose_sdpa(graph: Graph, keeps: Callable[[Node], bool]) -> int:
    """Decomposes every ScaledDotProductAttention `keeps` (the plugin's callback) refuses; returns how many."""
    return sum(_decompose(graph, node) for node in list(graph)
               if node.type == "ScaledDotProductAttention" and node.alive and not keeps(node))


def cpu_decompose_sdpa(graph: Graph) -> int:
    """The CPU plugin's ScaledDotProductAttentionDecomposition: its callback keeps an SDPA only in a
    model with state (variables: ReadValue/Assign, an LLM's KV cache), where its SDPA kernel is
    meant to run (transformation_pipeline.cpp); in any other model every SDPA is decomposed before
    LPT, so LPT sees `Q x K^T` as a MatMul whose inputs it can quantize. In a stateful model lpt
    keeps every SDPA (the kernel's own support check is not modelled)."""
    if any(node.type in ("ReadValue", "Assign") for node in graph):
        return 0
    return decompose_sdpa(graph, keeps=lambda node: False)
