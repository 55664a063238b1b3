"""Writer guarantees: lazy constants stay undecoded, blobs stored once, atomic, input protected."""
from __future__ import annotations

import errno
import mmap
import os
from pathlib import Path

import numpy as np
import pytest

from ir_models import conv_fq_model
from lpt_cli.errors import IRWriteError, LptError
from lpt_cli.ir.constant import Blob, ConstantData
from lpt_cli.ir.eltypes import element_type
from lpt_cli.ir.graph import Graph
from lpt_cli.ir.reader import read_ir
from lpt_cli.ir import writer
from lpt_cli.ir.writer import _BinWriter, write_ir


@pytest.mark.parametrize("dialect", ["lowp", "runtime"])
def test_untouched_constants_are_never_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               dialect: str) -> None:
    graph = read_ir(conv_fq_model(tmp_path))

    def refuse(self: ConstantData) -> np.ndarray:
        raise AssertionError("a constant was decoded")

    monkeypatch.setattr(ConstantData, "array", refuse)
    write_ir(graph, tmp_path / "out.xml", dialect=dialect)
    constants = [n for n in graph if n.is_constant]
    assert constants and all(n.data.is_lazy for n in constants)
    assert all(n.data.is_lazy for n in read_ir(tmp_path / "out.xml") if n.is_constant)



def test_a_decoded_constant_stays_a_slice_of_the_input(tmp_path: Path) -> None:
    """Decoding a lazy constant keeps it lazy (written as a copy of its input bytes) and gives
    a read-only view of the map, the same value on every call."""
    graph = read_ir(conv_fq_model(tmp_path))
    weights = next(n for n in graph if n.is_constant and n.data.element_type.name == "i8")
    first = weights.value
    assert weights.data.is_lazy and not first.flags.writeable
    assert first.shape == weights.data.shape
    assert np.array_equal(first, weights.value)
    assert first.tobytes() == bytes(weights.data.raw_bytes())

def _two_copies_graph() -> Graph:
    g = Graph("dedup")
    x = g.add_node("Parameter", outputs=[("f32", (64,))], attrs={"shape": "64", "element_type": "f32"}, name="x")
    value = np.linspace(-1, 1, 64, dtype=np.float32)
    first = g.add_constant(value, name="c1")
    second = g.add_constant(value.copy(), name="c2")
    add = g.add_node("Add", [x.outputs[0], first.outputs[0]], outputs=[("f32", (64,))], name="a1")
    mul = g.add_node("Multiply", [add.outputs[0], second.outputs[0]], outputs=[("f32", (64,))], name="m1")
    g.add_node("Result", [mul.outputs[0]], name="r")
    return g


def test_a_deferred_constant_is_computed_once_when_written(tmp_path: Path) -> None:
    calls: list[int] = []

    def compute() -> np.ndarray:
        calls.append(1)
        return np.linspace(-1, 1, 64)  # f64: cast to the constant's f32

    g = _two_copies_graph()
    deferred = ConstantData.deferred(element_type("f32"), (64,), compute)
    g.find("c2").data = deferred
    assert not deferred.is_lazy and not calls
    write_ir(g, tmp_path / "d.xml", dialect="lowp")
    write_ir(g, tmp_path / "e.xml", dialect="lowp")
    assert calls == [1] and (tmp_path / "d.bin").stat().st_size == 64 * 4  # the same bytes as c1: stored once
    assert deferred.array().dtype == np.float32


def test_identical_blobs_are_stored_once(tmp_path: Path) -> None:
    write_ir(_two_copies_graph(), tmp_path / "d.xml", dialect="lowp")
    assert (tmp_path / "d.bin").stat().st_size == 64 * 4
    back = read_ir(tmp_path / "d.xml")
    c1, c2 = back.find("c1").data, back.find("c2").data
    assert (c1.offset, c1.size) == (c2.offset, c2.size)
    assert np.array_equal(c1.array(), np.linspace(-1, 1, 64, dtype=np.float32))


def test_refuses_to_write_over_a_protected_file(tmp_path: Path) -> None:
    model = conv_fq_model(tmp_path)
    before = model.read_bytes(), model.with_suffix(".bin").read_bytes()
    graph = read_ir(model)
    with pytest.raises(IRWriteError, match="refusing to overwrite the input model"):
        write_ir(graph, tmp_path / "sub" / ".." / "conv_fq.xml", protect=[model, model.with_suffix(".bin")])
    with pytest.raises(LptError):  # the .bin alone would be clobbered too
        write_ir(graph, tmp_path / "conv_fq.xml", protect=[model.with_suffix(".bin")])
    assert (model.read_bytes(), model.with_suffix(".bin").read_bytes()) == before


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    graph = _two_copies_graph()
    # an nf4 payload that exists only in memory cannot be encoded: the write fails midway
    graph.find("c1").data = ConstantData(element_type("nf4"), (64,), array=np.zeros(64, np.float32))
    with pytest.raises(ValueError):
        write_ir(graph, tmp_path / "x.xml", dialect="lowp")
    assert list(tmp_path.iterdir()) == []


def test_writes_into_a_missing_folder_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(IRWriteError, match="does not exist"):
        write_ir(_two_copies_graph(), tmp_path / "nowhere" / "x.xml")


def test_output_files_get_normal_permissions(tmp_path: Path) -> None:
    write_ir(_two_copies_graph(), tmp_path / "p.xml", dialect="lowp")
    assert (tmp_path / "p.xml").stat().st_mode & 0o044 == (0o666 & ~_umask()) & 0o044


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_copied_ranges_keep_their_bytes_wherever_they_land(tmp_path: Path) -> None:
    # A range whose output offset is shifted within its pages the kernel copies otherwise than one
    # that lines up with its pages: both must copy exactly.
    source = tmp_path / "in.bin"
    payload = np.random.default_rng(0).integers(0, 256, 5 * mmap.PAGESIZE, dtype=np.uint8).tobytes()
    source.write_bytes(payload)
    blob = Blob(source)
    with open(tmp_path / "out.bin", "w+b") as out:
        bins = _BinWriter(out.fileno())
        assert bins.add_bytes(b"abc") == (0, 3)
        shifted = bins.add_slice(blob, 0, 2 * mmap.PAGESIZE + 5)
        aligned_at = 3 + 2 * mmap.PAGESIZE + 5
        aligned = bins.add_slice(blob, aligned_at % mmap.PAGESIZE + mmap.PAGESIZE, 2 * mmap.PAGESIZE)
        bins.finish()
    written = (tmp_path / "out.bin").read_bytes()
    assert shifted == (3, 2 * mmap.PAGESIZE + 5) and aligned == (aligned_at, 2 * mmap.PAGESIZE)
    assert written == b"abc" + payload[:2 * mmap.PAGESIZE + 5] + payload[
        aligned_at % mmap.PAGESIZE + mmap.PAGESIZE:aligned_at % mmap.PAGESIZE + 3 * mmap.PAGESIZE]


def test_a_large_range_lands_at_its_input_offset_within_a_page(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # From _ALIGNED bytes on, a copied range starts at the same offset within its page as in the
    # input (zeros before it), so the kernel copies whole pages; smaller ones stay packed.
    monkeypatch.setattr(writer, "_ALIGNED", 2 * mmap.PAGESIZE)
    page = mmap.PAGESIZE
    payload = np.random.default_rng(2).integers(0, 256, 4 * page, dtype=np.uint8).tobytes()
    (tmp_path / "in.bin").write_bytes(payload)
    blob = Blob(tmp_path / "in.bin")
    with open(tmp_path / "out.bin", "w+b") as out:
        bins = _BinWriter(out.fileno())
        bins.add_bytes(b"abc")
        small = bins.add_slice(blob, 7, page)
        large = bins.add_slice(blob, 5, 2 * page)
        again = bins.add_slice(blob, 5, 2 * page)
        bins.finish()
    assert small == (3, page) and large == (page + 5, 2 * page) and again == large
    written = (tmp_path / "out.bin").read_bytes()
    assert written == b"abc" + payload[7:7 + page] + bytes(2) + payload[5:5 + 2 * page]


def _no_kernel_copy(*_args: object) -> int:
    raise OSError(errno.EXDEV, "Invalid cross-device link")


def test_without_a_kernel_copy_ranges_are_written_and_compared_a_piece_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Where copy_file_range fails (another file system), ranges are written from the map, and
    # compared with a same-sized blob with the same ends, in pieces of _CHUNK bytes, each
    # piece's pages released once written: memory does not grow with the .bin.
    monkeypatch.setattr(os, "copy_file_range", _no_kernel_copy)
    monkeypatch.setattr(writer, "_CHUNK", 2 * mmap.PAGESIZE)
    released: list[tuple[int, int]] = []
    release = Blob.release

    def recorded(blob: Blob, start: int, end: int) -> None:
        released.append((start, end))
        release(blob, start, end)

    monkeypatch.setattr(Blob, "release", recorded)
    page = mmap.PAGESIZE
    blob_bytes = np.random.default_rng(1).integers(0, 256, 10 * page, dtype=np.uint8).tobytes()
    other = bytearray(blob_bytes)
    other[5 * page] ^= 1  # the same size and ends, one byte apart in the middle
    source = tmp_path / "in.bin"
    source.write_bytes(b"ab" + blob_bytes + b"cd" + bytes(other))
    blob = Blob(source)
    with open(tmp_path / "out.bin", "w+b") as out:
        bins = _BinWriter(out.fileno())
        bins.add_bytes(b"x")
        first, _ = bins.add_slice(blob, 2, 10 * page)
        second, _ = bins.add_slice(blob, 10 * page + 4, 10 * page)
        bins.finish()
    assert (first, second) == (1, 1 + 10 * page)  # compared up to the piece that differs, not merged
    assert (tmp_path / "out.bin").read_bytes() == b"x" + blob_bytes + bytes(other)
    assert len(released) == 5 + 3 + 5  # each copy 5 pieces, the comparison stopped in its third
    pages = {p for start, end in released for p in range(start // page, -(-end // page))}
    assert pages >= set(range(21))


def _refuse_fallocate(*_args: object) -> None:
    raise OSError(errno.EOPNOTSUPP, "Operation not supported")


@pytest.mark.parametrize("reserve", ["ahead", "in small steps", "unsupported"])
def test_the_bin_is_allocated_ahead_without_changing_a_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             reserve: str) -> None:
    # the blocks are reserved before the writes; the file still ends at its last blob
    graph = read_ir(conv_fq_model(tmp_path))
    write_ir(graph, tmp_path / "plain.xml", dialect="lowp")
    calls: list[tuple[int, int]] = []
    real = os.posix_fallocate

    def recorded(fd: int, offset: int, length: int) -> None:
        calls.append((offset, length))
        real(fd, offset, length)

    monkeypatch.setattr(os, "posix_fallocate", _refuse_fallocate if reserve == "unsupported" else recorded)
    if reserve == "in small steps":
        monkeypatch.setattr(writer, "_RESERVE", 16)
    (tmp_path / "plain.bin").rename(tmp_path / "before.bin")
    write_ir(graph, tmp_path / "plain.xml", dialect="lowp")
    assert (tmp_path / "plain.bin").read_bytes() == (tmp_path / "before.bin").read_bytes()
    size = (tmp_path / "plain.bin").stat().st_size
    if reserve == "unsupported":
        return
    assert [offset for offset, _ in calls] == [sum(length for _, length in calls[:i]) for i in range(len(calls))]
    assert sum(length for _, length in calls) >= size
    assert len(calls) == 1 if reserve == "ahead" else len(calls) > 1
