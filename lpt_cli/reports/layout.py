"""Layered (Sugiyama-style) drawing of a DAG, in a few linear passes, for the pictures and the
HTML page's whole graph: no layout engine to install, and fast enough for 2,000 layers.

`layering` puts each node on a row (longest path from the sources; a source, and a chain that
computes on constants only (weights: Convert -> Multiply), sits right above its first user);
`order_rows` orders each row by the barycenter of the neighbours in the row before, sweeping
down then up. Long edges get one dummy per row they cross (graph_view), so
they are ordered like nodes and routed between the boxes instead of through them.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence, Set as AbstractSet
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def layering(keys: Sequence[K], preds: Mapping[K, list[K]], floating: AbstractSet[K] = frozenset()) -> dict[K, int]:
    """Row of each key (`keys` in topological order; `preds`: its drawn producers), from 0;
    `floating` keys (each with floating producers only) move down to right above their first
    user, as sources do: a weights chain beside its layer, not on the top row."""
    succs: dict[K, list[K]] = {k: [] for k in keys}
    for k in keys:
        for p in preds[k]:
            succs[p].append(k)
    row: dict[K, int] = {}
    for k in keys:
        row[k] = 1 + max((row[p] for p in preds[k]), default=-1)
    for k in reversed(keys):
        if (not preds[k] or k in floating) and succs[k]:
            row[k] = min(row[s] for s in succs[k]) - 1
    top = min(row.values(), default=0)
    return {k: r - top for k, r in row.items()}


def order_rows(row: Mapping[K, int], keys: Sequence[K], preds: Mapping[K, list[K]],
               sweeps: int = 1) -> dict[int, list[K]]:
    """Row -> keys left to right: `sweeps` times, a barycenter pass down then one up."""
    succs: dict[K, list[K]] = {k: [] for k in keys}
    for k in keys:
        for p in preds[k]:
            succs[p].append(k)
    rows: dict[int, list[K]] = {}
    for k in keys:
        rows.setdefault(row[k], []).append(k)
    order = {k: float(i) for members in rows.values() for i, k in enumerate(members)}
    for _ in range(sweeps):
        for links, sequence in ((preds, sorted(rows)), (succs, sorted(rows, reverse=True))):
            for r in sequence:
                for k in rows[r]:
                    if links[k]:
                        order[k] = sum(order[o] for o in links[k]) / len(links[k])
                rows[r].sort(key=lambda k: order[k])
                order.update({k: float(i) for i, k in enumerate(rows[r])})
    return rows
