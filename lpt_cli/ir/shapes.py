"""Shape arithmetic for partial shapes (-1 = dynamic dim, None = dynamic rank)."""
from __future__ import annotations

from collections.abc import Sequence

from .graph import Shape


def broadcast_shapes(*shapes: Shape) -> Shape:
    """NumPy-style broadcast of partial shapes; a dynamic dim stays dynamic unless the other is > 1."""
    ranked = [s for s in shapes if s is not None]
    if len(ranked) != len(shapes):
        return None
    rank = max(len(s) for s in ranked)
    result: list[int] = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in ranked if axis - rank + len(s) >= 0]
        static = [d for d in dims if d > 1]
        if static:
            result.append(static[0])
        elif any(d == -1 for d in dims):
            result.append(-1)
        else:
            result.append(1)
    return tuple(result)


def element_count(shape: Sequence[int]) -> int:
    count = 1
    for dim in shape:
        count *= dim
    return count
