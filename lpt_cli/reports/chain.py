"""`--layer NAME`: the ops around one layer, before and after LPT, as indented text.

Seeing the dequantization (or its absence) in front of a layer is usually the fastest
way to understand its status, so each input is followed up a few producers.
"""
from __future__ import annotations

import difflib
from typing import Any

from ..errors import LptError
from ..ir import Graph, Node, Output

DEPTH = 4


def find_layer(graph: Graph, name: str) -> Node | None:
    return next((node for node in graph.nodes.values() if node.name == name), None)


def describe(value: Output) -> str:
    shape = "?" if value.shape is None else ",".join(map(str, value.shape))
    return f"{value.node.type} '{value.node.name}' {value.element_type.name}[{shape}]"


def chain_lines(graph: Graph, name: str) -> list[str]:
    """Producers (per input, up to DEPTH ops) and consumers of layer `name` in `graph`."""
    node = find_layer(graph, name)
    if node is None:
        return ["  (not in this model)"]
    lines = [f"  in {slot.index}: " + " <- ".join(describe(v) for v in _upstream(slot.source)) for slot in node.inputs]
    outs = ", ".join(f"{o.element_type.name}[{'?' if o.shape is None else ','.join(map(str, o.shape))}]"
                     for o in node.outputs)
    lines.append(f"  >> {node.type} '{node.name}' -> {outs}")
    lines.extend(f"  out {out.index} -> " + " -> ".join(_step(n) for n in _downstream(use.node))
                 for out in node.outputs for use in out.uses)
    return lines


def _step(node: Node) -> str:
    """One op of a chain downstream: its output, or the op itself for a Result."""
    return describe(node.outputs[0]) if node.outputs else f"{node.type} '{node.name}'"


def _value_dict(value: Output) -> dict[str, Any]:
    return {"type": value.node.type, "name": value.node.name, "precision": value.element_type.name,
            "shape": None if value.shape is None else list(value.shape)}


def chain_dict(graph: Graph, name: str) -> dict[str, Any] | None:
    """`chain_lines` as data (`--layer NAME --format json`); None when `name` is not in `graph`.
    Each input's chain runs upstream from the layer, each output's downstream."""
    node = find_layer(graph, name)
    if node is None:
        return None
    downstream = [{"port": out.index, "chain": [_value_dict(n.outputs[0]) if n.outputs else
                                                {"type": n.type, "name": n.name, "precision": None, "shape": None}
                                                for n in _downstream(use.node)]}
                  for out in node.outputs for use in out.uses]
    return {"type": node.type, "name": node.name, "outputs": [_value_dict(o) for o in node.outputs],
            "inputs": [{"port": slot.index, "chain": [_value_dict(v) for v in _upstream(slot.source)]}
                       for slot in node.inputs],
            "consumers": downstream}


def _upstream(value: Output) -> list[Output]:
    chain = [value]
    while len(chain) < DEPTH and chain[-1].node.inputs and chain[-1].node.type != "Constant":
        sources = [s.source for s in chain[-1].node.inputs]
        chain.append(next((s for s in sources if s.node.type != "Constant"), sources[0]))
    return chain


def _downstream(node: Node) -> list[Node]:
    """`node` and its single consumers after it, up to DEPTH ops (a Result or a sink ends it)."""
    chain: list[Node] = []
    while len(chain) < DEPTH:
        chain.append(node)
        if not node.outputs or len(node.outputs[0].uses) != 1:
            break
        node = node.outputs[0].uses[0].node
    return chain


def require_layer(graph: Graph, name: str) -> Node:
    """The layer `name` of the original model, or an LptError naming close matches."""
    node = find_layer(graph, name)
    if node is not None:
        return node
    close = difflib.get_close_matches(name, [n.name for n in graph.nodes.values()], n=5)
    hint = f" (did you mean: {', '.join(close)})" if close else ""
    raise LptError(f"--layer {name}: no layer of that name in the model{hint}")
