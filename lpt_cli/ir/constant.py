"""Constant payloads: memory-mapped slices of a .bin until somebody decodes or replaces them.

An untouched constant keeps (blob, offset, size) so the writer can copy its bytes without
decoding; `array()` decodes on demand and never reads more than its own slice. Whoever reads a
large range through the map reads it a piece at a time (`Blob.pieces`, `ConstantData.row_blocks`),
and each piece's pages leave the process once it is consumed: the pages of a read file mapping
count in the process's resident memory until unmapped, so reading the weights of a 7 GiB model
through the map would otherwise keep 7 GiB resident.
"""
from __future__ import annotations

import math
import mmap
import os
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from .eltypes import ElementType, element_type, from_dtype


class Blob:
    """A read-only memory map of one .bin file, shared by all constants read from it.

    The file stays open too, so the writer can have the kernel copy untouched ranges of it
    (the very file that was mapped, even if its path has been replaced since)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._fd)
        self.size = size = os.fstat(self._fd).st_size
        self._map = mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ) if size else None
        # One view of the whole map, sliced per constant: a fresh memoryview of the mmap per
        # call cost more than the slicing (constants are decoded thousands of times a run).
        self._whole = memoryview(self._map) if self._map is not None else None
        self.on_read: Callable[[int], None] | None = None  # told the bytes of each piece read (progress)

    def fileno(self) -> int:
        return self._fd

    def view(self, offset: int, size: int) -> memoryview:
        if size == 0 or self._whole is None:
            return memoryview(b"")
        return self._whole[offset:offset + size]

    def pieces(self, offset: int, size: int, piece: int) -> Iterator[memoryview]:
        """The range as views of at most `piece` bytes; when the next one is asked for (or the
        loop ends), the pages of the one before leave the process (they stay in the page cache)."""
        for start in range(offset, offset + size, piece):
            end = min(start + piece, offset + size)
            try:
                yield self.view(start, end - start)
            finally:  # also when the reader stops early
                self.release(start, end if end == offset + size else end // mmap.PAGESIZE * mmap.PAGESIZE)
            if self.on_read is not None:
                self.on_read(end - start)

    def release(self, start: int, end: int) -> None:
        """Unmaps the pages holding bytes start..end from the process; read again, they are mapped
        again from the file, so a view of them stays valid. A page partly outside the range goes
        too: it is the file's, and costs a page fault if read again."""
        if self._map is None or not hasattr(mmap, "MADV_DONTNEED"):  # not on Windows: pages stay
            return
        first = start // mmap.PAGESIZE * mmap.PAGESIZE
        last = min(-(-end // mmap.PAGESIZE) * mmap.PAGESIZE, self.size)
        if last > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, last - first)


def _unpack(raw: np.ndarray, etype: ElementType, count: int) -> np.ndarray:
    """Unpacks u1 (MSB first), u4/i4 (low nibble first) into one byte per element."""
    if etype.name == "u1":
        return np.unpackbits(raw)[:count]
    low = raw & 0x0F
    high = raw >> 4
    values = np.stack([low, high], axis=-1).reshape(-1)[:count]
    if etype.name == "i4":
        return np.where(values > 7, values.astype(np.int16) - 16, values).astype(np.int8)
    return values.astype(np.uint8)


def _pack(values: np.ndarray, etype: ElementType) -> bytes:
    flat = values.reshape(-1)
    if etype.name == "u1":
        return np.packbits(flat.astype(np.uint8) != 0).tobytes()
    nibbles = (flat.astype(np.int16) & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()


def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _f32_to_bf16(values: np.ndarray) -> np.ndarray:
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
    return (rounded >> 16).astype(np.uint16)


class ConstantData:
    """The value of one Constant: element type, shape, and bytes (lazy), an array, or a value
    computed on first use (`deferred`)."""

    __slots__ = ("element_type", "shape", "blob", "offset", "size", "_array", "_view", "_compute")

    def __init__(self, etype: ElementType, shape: Sequence[int], *, blob: Blob | None = None,
                 offset: int = 0, size: int = 0, array: np.ndarray | None = None) -> None:
        self.element_type = etype
        self.shape = tuple(int(d) for d in shape)
        self.blob = blob
        self.offset = offset
        self.size = size
        self._array = array
        self._view: np.ndarray | None = None  # array() of a plain lazy value, kept: it is only a view
        self._compute: Callable[[], np.ndarray] | None = None

    @classmethod
    def deferred(cls, etype: ElementType, shape: Sequence[int], compute: Callable[[], np.ndarray]) -> ConstantData:
        """A value of `shape` that `compute()` makes (cast to `etype`) when it is first read: a
        constant derived from large weights (a MatMul's `z @ W`) that a later rewrite may drop
        unread (the runtime dialect moves the zero point before the MatMul)."""
        data = cls(etype, shape)
        data._compute = compute
        return data

    @classmethod
    def from_array(cls, value: np.ndarray, etype: ElementType | None = None,
                   shape: Sequence[int] | None = None) -> ConstantData:
        """Wraps an in-memory value, cast to `etype` (default: the array's own type)."""
        source = np.asarray(value)
        et = etype if etype is not None else from_dtype(source.dtype)
        target_shape = tuple(shape) if shape is not None else source.shape
        # the copy below is made either way: broadcast only when the shape changes
        array = source if source.shape == target_shape else np.broadcast_to(source, target_shape)
        if et.dtype is not None and et.name != "bf16":
            stored = np.array(array, dtype=et.dtype)
        else:
            stored = np.array(array, dtype=np.float32 if et.name in ("bf16", "nf4") else np.int8)
        return cls(et, target_shape, array=stored)

    @property
    def count(self) -> int:
        return math.prod(self.shape)  # exact ints; np.prod's call overhead showed in profiles

    @property
    def is_lazy(self) -> bool:
        """True while the value is still only a slice of the input .bin."""
        return self._array is None and self._compute is None

    def raw_bytes(self) -> bytes | memoryview:
        """The bytes as they go into a .bin (a view of the input for an untouched constant)."""
        if self.is_lazy:
            assert self.blob is not None
            return self.blob.view(self.offset, self.size)
        self.array()  # a deferred value is computed now
        assert self._array is not None
        et = self.element_type
        if et.name == "bf16":
            return _f32_to_bf16(self._array).tobytes()
        if et.is_packed:
            if et.name == "nf4":
                raise ValueError("nf4 constants can only be copied, not re-encoded")
            return _pack(self._array, et)
        return np.ascontiguousarray(self._array, dtype=et.dtype).tobytes()

    def array(self) -> np.ndarray:
        """The decoded value: numpy array of `shape` (bf16 as f32, u1/u4/i4 one byte each)."""
        if self._array is not None:
            return self._array
        if self._compute is not None:
            self._array = ConstantData.from_array(self._compute(), self.element_type, self.shape)._array
            self._compute = None
            assert self._array is not None
            return self._array
        if self._view is not None:
            return self._view
        et = self.element_type
        raw = np.frombuffer(self.raw_bytes(), dtype=np.uint8 if et.dtype is None else et.dtype)
        if et.name == "bf16":
            value = _bf16_to_f32(raw)
        elif et.is_packed:
            if et.name == "nf4":
                raise ValueError("nf4 constants are kept as raw bytes and cannot be decoded")
            value = _unpack(raw, et, self.count)
        else:
            # a read-only view of the map, so it costs no memory to keep; the decoded bf16 and
            # packed types are copies, decoded again on each call rather than held
            self._view = raw[: self.count].reshape(self.shape)
            return self._view
        return value.reshape(self.shape)

    def row_blocks(self, rows: int) -> Iterator[np.ndarray]:
        """The value `rows` indices of its first axis at a time (the last block may be shorter).
        A plain type still in the .bin is viewed a block at a time, each block's pages released
        once the next is asked for: the whole value is never resident. Decoded types and values
        in memory are sliced."""
        et = self.element_type
        if self._array is not None or self.blob is None or et.dtype is None or et.name == "bf16":
            value = self.array()
            for start in range(0, len(value), max(1, rows)):
                yield value[start:start + rows]
            return
        row_bytes = self.size // self.shape[0] if self.shape[0] else 0
        pieces = self.blob.pieces(self.offset, self.size, max(1, rows) * max(1, row_bytes))
        for piece in pieces:
            yield np.frombuffer(piece, dtype=et.dtype).reshape(-1, *self.shape[1:])


__all__ = ["Blob", "ConstantData", "element_type"]
