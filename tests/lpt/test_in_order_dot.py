"""`z @ B` as OpenVINO folds it (in_order_dot.py): bit for bit the sum over k in order from +0,
whatever the layout, blocks and batch; exactly from integer sums where that gives the same bits;
and the weights read once, a bounded block at a time, from the .bin's map.

Bit-equality with OpenVINO's own MatMul evaluation is in tests/runtime/test_plugin_rounding.py."""
from __future__ import annotations

import math
import mmap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from lpt_cli.ir.constant import Blob, ConstantData
from lpt_cli.ir.eltypes import from_dtype
from lpt_cli.lpt.transformations.weightable import in_order_dot
from lpt_cli.lpt.transformations.weightable.in_order_dot import dot_in_order


def summed_row_after_row(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """`lhs @ rhs` in f32 from +0 with one np.add per k: the order OpenVINO's reference MatMul sums in."""
    products = lhs[..., :, :, None].astype(np.float32) * rhs.astype(np.float32)[..., None, :, :]
    total = np.zeros(products.shape[:-2] + products.shape[-1:], np.float32)
    for k in range(products.shape[-2]):
        np.add(total, products[..., k, :], out=total)
    return total


def mapped(folder: Path, stored: np.ndarray, name: str = "w") -> ConstantData:
    """`stored` as a constant still in a .bin, at an odd offset (as weights often are)."""
    path = folder / f"{name}.bin"
    path.write_bytes(b"\x07" + stored.tobytes() + b"\x07")
    return ConstantData(from_dtype(stored.dtype), stored.shape, blob=Blob(path), offset=1, size=stored.nbytes)


@pytest.mark.parametrize("block_bytes", [1 << 22, 64], ids=["one-block", "blocks"])
@pytest.mark.parametrize("weight_bytes", [1 << 24, 100], ids=["whole", "row-blocks"])
@pytest.mark.parametrize(("lhs_shape", "rhs_shape", "transpose"), [
    ((1, 700), (700, 1), False),  # one column: numpy would sum it pairwise
    ((3, 700), (5, 700), True),
    ((2, 1, 700), (2, 700, 4), False),  # batched weights
    ((2, 704), (6, 704), True),  # k a multiple of 8: transposed bytes read as 8-byte words
    ((2, 3, 704), (6, 704), True),  # batched rows against 2-D weights: the words too
    ((1, 1, 704), (704, 6), False),
    ((2, 700), (0, 700), True),
    ((2, 0), (3, 0), True),  # no k: +0
])
def test_sums_over_k_in_order(block_bytes: int, weight_bytes: int, lhs_shape: tuple[int, ...],
                              rhs_shape: tuple[int, ...], transpose: bool, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Bit-equal to a sum taken row after row, whatever the blocks of products and of weights."""
    monkeypatch.setattr(in_order_dot, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(in_order_dot, "_WEIGHT_BYTES", weight_bytes)
    rng = np.random.default_rng(7)
    lhs = (rng.uniform(100, 130, lhs_shape) + rng.uniform(0, 1e-3, lhs_shape)).astype(np.float32)
    weights = rng.integers(-128, 128, rhs_shape).astype(np.int8)
    expected = summed_row_after_row(lhs, np.swapaxes(weights, -1, -2) if transpose else weights)
    assert dot_in_order(lhs, mapped(tmp_path, weights), transpose).tobytes() == expected.tobytes()
    if expected.size and rhs_shape[-1]:
        assert not np.array_equal(np.matmul(lhs, np.swapaxes(weights, -1, -2) if transpose else weights,
                                            dtype=np.float64).astype(np.float32), expected)  # orders differ


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize(("z", "k", "dtype", "exact"), [
    (127.0, 768, np.int8, True),  # BERT-base's zero point and k
    (128.0, 1024, np.int8, True),
    (128.0, 130944, np.int8, True),  # 2**7: partial sums of -128s up to 2**24 - 128 * 128, the bound exactly
    (128.0, 131072, np.int8, False),  # one group of 128 past it: those columns in order
    (1.0, 65536, np.uint8, True),  # 255 * 65536 < 2**24
    (-0.5, 11008, np.int8, True),  # i8 activations on [-4, 4]: LLM down projections
    (0.375, 4096, np.int8, True),  # 3 * 2**-3
    (-3 * 2.0**-140, 512, np.int8, True),  # sums among the subnormals
    (2.0**100, 512, np.int8, True),
    (2.0**104, 512, np.int8, False),  # 2**24 * 2**104 is past f32: summed in order
    (0.0, 768, np.int8, True),  # +0 from negative weights too
    (129.0, 1024, np.int8, False),  # past the bound on the extreme columns: they are summed in order
    (118.0, 3072, np.int8, True),  # past 59 * 128 * k, but not past the partial sums of these weights
    (118.0, 3072, np.int16, False),  # wider weights: their |w| are not summed
    (126.99999, 768, np.int8, False),  # odd part about 2**23
])
def test_dyadic_zero_points_give_the_sum_in_order(z: float, k: int, dtype: type, exact: bool, transpose: bool,
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer sums stand for the f32 sum in order only where every partial sum is exact: bit
    for bit (the sign of a zero too), at the bound, on extreme and cancelling columns. `exact`:
    no column is summed in order."""
    limits = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    columns = [np.full(k, limits.min), np.full(k, limits.max), np.zeros(k),
               np.resize([limits.max, -limits.max if limits.min else 0], k),  # cancels to 0
               np.where(np.arange(k) < k - 4, limits.min, 1),  # odd partial sums past 2**24 if z is odd
               rng.choice([limits.min, limits.max, 0, 1], k), rng.integers(limits.min, int(limits.max) + 1, k)]
    if k == 3072:  # smaller weights, as in BERT-base's FFN: sum(|w|) < 2**24 / z
        columns = [np.resize(column, k) // 4 for column in columns]
    weights = np.stack(columns, axis=1).astype(dtype)
    lhs = np.full((2, k), z, np.float32)
    expected = summed_row_after_row(lhs, weights)
    if exact:
        monkeypatch.setattr(in_order_dot, "_products", None)  # the in-order sum is not taken
    stored = np.ascontiguousarray(weights.T) if transpose else weights
    got = dot_in_order(lhs, mapped(tmp_path, stored), transpose)
    assert got.dtype == np.float32 and got.tobytes() == expected.tobytes()
    empty = ConstantData.from_array(stored[:0] if transpose else stored[:, :0])
    assert dot_in_order(lhs, empty, transpose).shape == (2, 0)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("z", [-0.5, 113.0003, 255.0], ids=["exact", "in-order", "some-columns-in-order"])
def test_the_weights_are_read_once_a_bounded_block_at_a_time(z: float, transpose: bool, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The weights are viewed once, in blocks of at most _WEIGHT_BYTES (whole rows), and every
    block's pages are released once it is summed, whichever way the columns are summed."""
    monkeypatch.setattr(in_order_dot, "_WEIGHT_BYTES", 3000)
    weights = np.random.default_rng(5).integers(-127, 128, (96, 512) if transpose else (512, 96)).astype(np.int8)
    weights[(slice(0, 3),) if transpose else (slice(None), slice(0, 3))] = 127  # 3 columns too large for z = 255
    constant = mapped(tmp_path, weights)
    assert constant.blob is not None
    viewed: list[int] = []
    released: list[tuple[int, int]] = []
    pieces, release = Blob.pieces, Blob.release

    def recorded_pieces(blob: Blob, offset: int, size: int, piece: int) -> Iterator[memoryview]:
        for view in pieces(blob, offset, size, piece):
            viewed.append(len(view))
            yield view

    def recorded_release(blob: Blob, start: int, end: int) -> None:
        released.append((start, end))
        release(blob, start, end)

    in_order: list[int] = []
    sum_in_order = in_order_dot._sum_in_order

    def recorded_sum(lhs: np.ndarray, rhs: np.ndarray, totals: np.ndarray) -> np.ndarray:
        in_order.append(rhs.shape[-1])
        return sum_in_order(lhs, rhs, totals)

    monkeypatch.setattr(Blob, "pieces", recorded_pieces)
    monkeypatch.setattr(Blob, "release", recorded_release)
    monkeypatch.setattr(in_order_dot, "_sum_in_order", recorded_sum)
    lhs = np.full((1, 512), z, np.float32)
    got = dot_in_order(lhs, constant, transpose)
    columns_in_order = sum(in_order) if transpose else max(in_order, default=0)
    assert columns_in_order == {-0.5: 0, 113.0003: 96, 255.0: 3}[z]
    assert got.tobytes() == summed_row_after_row(lhs, weights.T if transpose else weights).tobytes()
    assert all(size <= 3000 and size % weights.shape[1] == 0 for size in viewed)  # whole rows
    assert sum(viewed) == weights.nbytes
    assert len(released) == len(viewed)  # each block let go once summed
    page = mmap.PAGESIZE
    pages = {p for start, end in released for p in range(start // page, -(-end // page))}
    assert pages >= set(range(1 // page, -(-(1 + weights.nbytes) // page)))


def test_a_decoded_value_is_read_in_blocks_too() -> None:
    """A value in memory (made by an earlier pass) is sliced the same way, and summed alike."""
    weights = np.random.default_rng(9).integers(-8, 8, (40, 24)).astype(np.int8)
    blocks = list(ConstantData.from_array(weights).row_blocks(16))
    assert [len(block) for block in blocks] == [16, 16, 8] and np.array_equal(np.concatenate(blocks), weights)
    lhs = np.full((1, 40), 2.5, np.float32)
    assert np.array_equal(dot_in_order(lhs, ConstantData.from_array(weights), False),
                          summed_row_after_row(lhs, weights))
    assert math.prod(dot_in_order(lhs[:, :24], ConstantData.from_array(weights), True).shape) == 40
