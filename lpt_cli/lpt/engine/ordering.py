"""The node order OpenVINO's passes walk a model in (Model::get_ordered_ops).

Results that order matters: when two FakeQuantizes share one Precisions value (a Concat),
the first one decomposed narrows it for the other. OpenVINO sorts depth-first from the
roots (Results, then sinks, then Parameters) pushed on a stack, so the last Result's
subgraph comes first and, within a node, input 0's subgraph before input 1's. A control
dependency (an Assign's on the ReadValue of its variable) is pushed after the inputs, so it
comes before input 0.
"""
from __future__ import annotations

from ...ir import Graph, Node


def _roots(graph: Graph) -> list[Node]:
    # An Assign is a sink although the IR gives it an output (nothing reads it).
    sinks = [n for n in graph.nodes.values() if n.type != "Result" and (n.type == "Assign" or not n.outputs)]
    return [*graph.results, *sinks, *graph.parameters]


def ordered_ops(graph: Graph) -> list[Node]:
    """Producers before consumers, in OpenVINO's topological_sort order (nodes no root
    reaches follow in insertion order, as they would be dead in OpenVINO).

    Depth-first, each node entered once (the graph has no cycle) and emitted once its inputs
    are; the stack holds nodes and the index of their next input, so the walk allocates
    nothing per node (tuples and iterators per node woke the garbage collector). Sorted once
    per structure of the graph: the markup's seven walks and the passes that rewrite nothing
    reuse it.
    """
    return list(graph.per_structure("ordered_ops", lambda: _sort(graph)))


def _sort(graph: Graph) -> list[Node]:
    order: list[Node] = []
    seen: set[int] = set()
    controls = _control_dependencies(graph)
    for root in reversed(_roots(graph)):
        if root.id in seen:
            continue
        seen.add(root.id)
        nodes, next_input = [root], [0]
        while nodes:
            node, index = nodes[-1], next_input[-1]
            inputs = node.inputs
            before = controls.get(node.id, ())
            while index < len(before) + len(inputs):
                parent = before[index] if index < len(before) else inputs[index - len(before)].source.node
                index += 1
                if parent.id not in seen:
                    seen.add(parent.id)
                    next_input[-1] = index
                    nodes.append(parent)
                    next_input.append(0)
                    break
            else:
                nodes.pop()
                next_input.pop()
                order.append(node)
    order.extend(n for n in graph.nodes.values() if n.id not in seen)
    return order


def _control_dependencies(graph: Graph) -> dict[int, tuple[Node, ...]]:
    """Node id -> the nodes it depends on besides its inputs (an Assign: its variable's ReadValue)."""
    found: dict[int, tuple[Node, ...]] = {}
    for node in graph.nodes.values():
        if node.type == "Assign":
            read_value = graph.read_value_of(node)
            if read_value is not None:
                found[node.id] = (read_value,)
    return found
