"""`lhs @ B` in f32 as OpenVINO's reference MatMul folds it (MatMulTransformation's `z @ B`),
reading a constant B once, a bounded block at a time.

OpenVINO sums over k = 0, 1, ... from +0, with one rounding per product and per sum; a BLAS
sum (another order) differs in the last bits (236 of 256 values for a 512 x 256 i8 weight).
Two ways give those bits, chosen per output column:
- exactly: when a row of lhs is one value z = m * 2**e (m odd; NNCF's zero points are mostly
  whole numbers, and [-4, 4] in u8 is 127.5 = 255 * 2**-1) and the weights are integers whose
  partial sums S over k all have |m * S| <= 2**24, every product and every partial sum is a
  multiple of 2**e that f32 holds exactly, so the sum in order is m * (the integer column sum)
  * 2**e. The bound is checked on the partial sums at every 128th k (each partial sum is within
  128 * max|w| of one of them): a pass of integer sums instead of f32 products.
- in order: the products of a block of k are formed at once in f32 and summed by one numpy
  reduce over an outer axis, which numpy adds row after row; the block's first row takes the
  running total in first.
2-D weights are read as stored, a block of rows at a time (`ConstantData.row_blocks`: a
block's pages leave the process once it is summed, so a 7 GiB model's weights are never
resident): blocks of rows of k carry running totals; blocks of transposed weights ([n, k],
k contiguous) are whole output columns.
"""
from __future__ import annotations

import math

import numpy as np

from ....ir.constant import ConstantData

_WEIGHT_BYTES = 1 << 24  # bytes of weights mapped at a time
_BLOCK_BYTES = 1 << 22  # f32 products formed at a time
_EXACT = 1 << 24  # f32 holds every whole number up to this magnitude exactly
_GROUP = 128  # k between two partial sums the exactness bound looks at


def dot_in_order(lhs: np.ndarray, weights: ConstantData, transpose: bool) -> np.ndarray:
    """`lhs @ weights` (`weights` transposed first if asked) in f32, summed like OpenVINO folds it.

    Against 2-D weights the rows of a batched `lhs` (BERT's `(1, 1, k)` zero points) are taken
    as one 2-D `lhs`: each row is summed alone either way. Batched weights (rare, and small)
    are read whole."""
    lhs = lhs.astype(np.float32, copy=False)
    if len(weights.shape) != 2:
        value = weights.array()
        rhs = np.swapaxes(value, -1, -2) if transpose else value
        totals = np.zeros((*np.broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2]), lhs.shape[-2], rhs.shape[-1]),
                          np.float32)
        return _sum_in_order(lhs, rhs, totals)
    n = weights.shape[0] if transpose else weights.shape[1]
    rows = lhs.reshape(math.prod(lhs.shape[:-1]), lhs.shape[-1])
    return _dot_2d(rows, weights, transpose).reshape(*lhs.shape[:-1], n)


def leading_pair(lhs: np.ndarray, weights: ConstantData, transpose: bool) -> np.ndarray | None:
    """The first two values of `dot_in_order(lhs, weights, transpose)` (first row, columns 0
    and 1), from those two columns of 2-D weights alone: each column is summed on its own, so
    the bits are the same. None for batched weights or a single column."""
    if len(weights.shape) != 2 or weights.shape[0 if transpose else 1] < 2:
        return None
    row = lhs.reshape(math.prod(lhs.shape[:-1]), lhs.shape[-1])[:1]
    if transpose:  # the first two stored rows
        pair = np.array(next(iter(weights.row_blocks(2))))
    else:  # two values of every stored row, the weights streamed
        row_bytes = max(1, weights.size // max(1, weights.shape[0]))
        pair = np.concatenate([block[:, :2] for block in weights.row_blocks(max(1, _WEIGHT_BYTES // row_bytes))])
    return _dot_2d(row, ConstantData.from_array(pair), transpose).reshape(-1)


def _dot_2d(rows: np.ndarray, weights: ConstantData, transpose: bool) -> np.ndarray:
    """`rows @ weights` for 2-D weights, in one pass over them: each column of each row exactly
    from the integer sums where the bound allows it, else in order (a column of the stored
    layout [k, n] from the block where its bound fails, after the exact total so far)."""
    n = weights.shape[0] if transpose else weights.shape[1]
    etype = weights.element_type
    low, high = etype.range()
    plans = [_plan(row, max(-low, high)) if etype.is_integral else None for row in rows]
    out = np.zeros((len(rows), n), np.float32)
    ordered = np.zeros((len(rows), n), bool)  # the columns summed in order
    ordered[[i for i, plan in enumerate(plans) if plan is None]] = True
    sums = np.zeros(n, np.int64)  # the integer column sums so far
    reach = np.zeros(n, np.int64)  # the largest |partial sum| at a group's end so far
    row_bytes = max(1, weights.size // max(1, weights.shape[0]))
    start = 0
    for block in weights.row_blocks(max(1, _WEIGHT_BYTES // row_bytes)):
        stop = start + len(block)
        columns = slice(start, stop) if transpose else slice(None)  # whole columns, or k start..stop of each
        before = sums
        if any(plan is not None for plan in plans) and transpose:
            sums[columns], reach[columns] = _partial_sums(block, 1, np.zeros(len(block), np.int64))
        elif any(plan is not None for plan in plans):
            sums, block_reach = _partial_sums(block, 0, before)
            reach = np.maximum(reach, block_reach)
        for i, plan in enumerate(plans):
            if plan is not None:
                failing = reach[columns] > plan[2]
                if not transpose:  # carried on in order from the exact total before this block
                    newly = failing & ~ordered[i]
                    out[i, newly] = _exact(before[newly], plan)
                ordered[i, columns] |= failing
            _in_order_part(rows[i], block, np.flatnonzero(ordered[i, columns]), out[i], start, stop, transpose)
        start = stop
    for i, plan in enumerate(plans):
        if plan is not None:
            out[i, ~ordered[i]] = _exact(sums[~ordered[i]], plan)
    return out


def _plan(row: np.ndarray, largest: float) -> tuple[int, int, int] | None:
    """(m, e, limit) when `row` is one value z = m * 2**e (m odd or 0) whose sums with integer
    weights up to `largest` in magnitude are exact while the partial sums at the ends of the
    groups of _GROUP k stay within `limit` (then every partial sum times |m| is within 2**24);
    None when no weights allow it (z is not such a value, or |m| is too large)."""
    z = row[0] if len(row) else np.float32(0)
    if not np.isfinite(z) or np.any(row != z):
        return None
    mantissa, exponent = math.frexp(float(z))
    m, e = int(mantissa * (1 << 24)), exponent - 24  # exact: an f32 has 24 significant bits
    while m and m % 2 == 0:
        m, e = m // 2, e + 1
    if m == 0:
        return 0, 0, 1 << 62
    limit = int(_EXACT // abs(m) - _GROUP * largest)
    return (m, e, limit) if limit >= 0 and e <= 103 else None  # 2**24 * 2**e must be a finite f32


def _exact(sums: np.ndarray, plan: tuple[int, int, int]) -> np.ndarray:
    """z times integer sums that the plan's bound keeps exact: |sums * m| <= 2**24."""
    m, e, _ = plan
    return np.ldexp((sums * m).astype(np.float32), e)


def _partial_sums(block: np.ndarray, axis: int, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums along `axis` (after `before`) and the largest |partial sum| at the end of each
    group of _GROUP (|any partial sum| is then at most that plus _GROUP * max|w|)."""
    length = block.shape[axis]
    whole = length // _GROUP * _GROUP
    dtype = np.int16 if block.itemsize == 1 else np.int64  # 128 bytes sum within int16
    parts = []
    if whole:
        grouped = block[:, :whole].reshape(len(block), whole // _GROUP, _GROUP) if axis else \
            block[:whole].reshape(whole // _GROUP, _GROUP, block.shape[1])
        parts.append(np.add.reduce(grouped, axis=axis + 1, dtype=dtype))
    if whole < length:
        parts.append(np.add.reduce(block[:, whole:] if axis else block[whole:], axis=axis, dtype=dtype,
                                   keepdims=True))
    groups = np.concatenate(parts, axis=axis) if len(parts) > 1 else parts[0] if parts else None
    if groups is None:
        return before, np.abs(before)
    if axis:  # whole columns: a cumulative sum along each
        partial = np.cumsum(groups, axis=1, dtype=np.int64)
        partial += before[:, None]
        return partial[:, -1], np.abs(partial).max(axis=1)
    total, reach = before.copy(), np.abs(before)  # a few group rows of many columns: row after row
    for row in groups:
        total += row
        np.maximum(reach, np.abs(total), out=reach)
    return total, reach


def _in_order_part(row: np.ndarray, block: np.ndarray, columns: np.ndarray, out: np.ndarray, start: int, stop: int,
                   transpose: bool) -> None:
    """`out[columns] (+)= row @ block` in order for the block's `columns`: whole columns of
    transposed weights, else k start..stop after the running totals in `out`."""
    if not columns.size:
        return
    if transpose:
        part = block if columns.size == len(block) else block[columns]
        out[start + columns] = _sum_in_order(row[None], part.T, np.zeros((1, columns.size), np.float32))[0]
    else:
        part = block if columns.size == block.shape[1] else block[:, columns]
        out[columns] = _sum_in_order(row[None, start:stop], part, out[None, columns])[0]


def _sum_in_order(lhs: np.ndarray, rhs: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """`totals += lhs @ rhs` in f32, summed over k = 0, 1, ... after the running `totals`
    (lhs (..., m, k), rhs (..., k, n), totals (..., m, n)), the products of a block of k at a time."""
    k, n = rhs.shape[-2:]
    batch = np.broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2])
    step = max(8, _BLOCK_BYTES // max(1, 4 * n * math.prod(batch)) // 8 * 8)  # whole tiles for _products
    for m in range(lhs.shape[-2]):
        row = lhs[..., m, :, None]
        total = totals[..., m, :]
        for start in range(0, k, step):
            products = _products(row, rhs, start, start + step)
            np.add(products[..., 0, :], total, out=products[..., 0, :])
            total = _sum_rows_in_order(products)
        totals[..., m, :] = total
    return totals


def _products(row: np.ndarray, rhs: np.ndarray, start: int, stop: int) -> np.ndarray:
    """`row[start:stop] * rhs[start:stop]` in f32, laid out k-major (C order).

    Transposed byte weights (transpose_b: k is their contiguous axis) are read 8 k at a time
    as one 8-byte word, the words transposed, then each 8 x n tile of bytes: numpy reading
    single bytes down a column took about 1.5x as long."""
    block = rhs[..., start:stop, :]
    k, n = block.shape[-2:]
    if row.ndim == 2 and block.ndim == 2 and block.itemsize == 1 and block.strides[0] == 1 and k % 8 == 0:
        words = np.ascontiguousarray(block.T.view(np.uint64).T)  # (k / 8, n): 8 rows of one column each
        tiles = words.view(block.dtype).reshape(k // 8, n, 8).transpose(0, 2, 1)  # (k / 8, 8, n)
        return np.multiply(row[start:stop].reshape(k // 8, 8, 1), tiles, dtype=np.float32, order="C").reshape(k, n)
    return np.multiply(row[..., start:stop, :], block, dtype=np.float32, order="C")


def _sum_rows_in_order(products: np.ndarray) -> np.ndarray:
    """The sum over axis -2 of a C-ordered array, row after row: numpy reduces an outer axis
    sequentially, but an innermost one pairwise, which a single column would make axis -2."""
    if products.shape[-1] == 1:
        return np.add.reduce(np.concatenate([products, products], axis=-1), axis=-2)[..., :1]
    return np.add.reduce(products, axis=-2)
