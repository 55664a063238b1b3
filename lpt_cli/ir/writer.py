"""Graph -> OpenVINO IR v11 (XML + .bin), atomically, with each distinct blob stored once.

Two dialects: `lowp` writes the graph verbatim (low precisions on ports, as OpenVINO
serializes LPT's type-relaxed ops); `runtime` first re-expresses those ops with stock
ones (see legalize.py) so stock OpenVINO loads the file and runs it in INT8.
Untouched constants are copied from the input .bin by the kernel, without decoding; the XML
is built as text in lxml's pretty-print layout (opaque elements are still serialized by lxml).
An optional `rt_info` callback adds `<attribute>`s to a layer's or port's <rt_info>, so
callers can show facts the IR does not know about (e.g. LPT's markup) in tools like Netron.
"""
from __future__ import annotations

import copy
import errno
import functools
import mmap
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from lxml import etree

from ..errors import IRWriteError
from . import DIALECTS
from .constant import Blob, ConstantData
from .eltypes import ElementType
from .graph import Graph, GraphError, Input, Node, Output, Shape

TO_IR_TYPE = {"Constant": "Const", "Relu": "ReLU", "PRelu": "PReLU", "Softmax": "SoftMax"}
_PRECISION = {"u1": "BIN"}  # OpenVINO's serializer spells u1 this way
RtInfo = Callable[[Node | Input | Output], Mapping[str, str]]  # holder -> attribute name -> value


def precision_name(etype: ElementType) -> str:
    return _PRECISION.get(etype.name, etype.precision)


_CHUNK = 1 << 24  # bytes per system call when a range is written or compared piecewise
_RESERVE = 1 << 24  # bytes of the .bin allocated ahead of the writes
_SAMPLE = 4096  # bytes from each end of a blob that tell most same-sized blobs apart
# A copied range of at least this many bytes lands at its input offset within a page: the kernel
# then copies whole pages (filesystems with reflinks share them). 1.5 GiB of LLM weights on ext4:
# 0.39 s of CPU against 0.57 s shifted. Below it (every weight of the zoo) the output stays packed.
_ALIGNED = 1 << 24
_NO_KERNEL_COPY = (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EBADF, errno.EPERM)


def _chunks(view: memoryview) -> Iterator[memoryview]:
    return (view[start:start + _CHUNK] for start in range(0, len(view), _CHUNK))


class _BinWriter:
    """Appends blobs to the .bin, storing byte-identical blobs once.

    Ranges of an input .bin are copied by the kernel, never through Python's memory: file to
    file (copy_file_range), or where that is not supported from the memory map (pwrite) 16 MiB
    at a time, each piece's pages released once written (as when compared): memory does not
    grow with the .bin. A range of 16 MiB or more starts at its input offset within a page
    (_ALIGNED). A blob is only looked at once another blob of its size comes
    along: then its first and last 4 KiB pick the candidates, and only a candidate with the
    same ends is compared in full (against the output file), so weights are read at most
    once more, and only when they may repeat.

    The file's blocks are allocated before they are written (`_reserve`); `finish` cuts the
    excess.
    """

    def __init__(self, fd: int, on_bytes: Callable[[int, int], None] | None = None, total: int = 0) -> None:
        self.fd = fd
        self.offset = 0
        self._on_bytes, self._total, self._done = on_bytes, total, 0  # constants' bytes, stored or found
        self._reserved = 0  # the file's length as posix_fallocate left it
        self._reserving = True
        self._sizes: set[int] = set()
        self._unsampled: dict[int, int] = {}  # size -> offset of the one blob of that size not sampled yet
        self._by_sample: dict[tuple[int, bytes, bytes], list[int]] = {}  # (size, head, tail) -> offsets
        self._by_slice: dict[tuple[int, int, int], int] = {}

    def add_slice(self, blob: Blob, offset: int, size: int) -> tuple[int, int]:
        """`size` bytes at `offset` of `blob`, copied unless identical bytes are stored already."""
        key = (id(blob), offset, size)
        if key not in self._by_slice:
            self._by_slice[key] = self._store(size, lambda: blob.view(offset, size),
                                              lambda: blob.pieces(offset, size, _CHUNK),
                                              lambda at: self._copy(blob, offset, size, at),
                                              offset % mmap.PAGESIZE if size >= _ALIGNED else None)
        return self._by_slice[key], size

    def add_bytes(self, raw: bytes | memoryview) -> tuple[int, int]:
        view = memoryview(raw).cast("B")
        return self._store(len(view), lambda: view, lambda: _chunks(view),
                           lambda at: self._write(_chunks(view), at)), len(view)

    def add_constant(self, data: ConstantData) -> tuple[int, int]:
        stored = self.add_slice(data.blob, data.offset, data.size) if data.is_lazy and data.blob is not None \
            else self.add_bytes(data.raw_bytes())
        if self._on_bytes is not None:
            self._done += stored[1]
            self._on_bytes(self._done, self._total)
        return stored

    def _store(self, size: int, content: Callable[[], memoryview], pieces: Callable[[], Iterable[memoryview]],
               write: Callable[[int], None], in_page: int | None = None) -> int:
        """The offset of identical bytes stored before, else of the new bytes appended by `write`
        (`content` is looked at only at its ends, `pieces` read to compare in full), at the
        offset `in_page` within a page when given (up to a page of zeros before it)."""
        key = None
        if size in self._sizes:
            first = self._unsampled.pop(size, None)
            if first is not None:
                self._by_sample[self._written_sample(first, size)] = [first]
            view = content()
            key = (size, bytes(view[:_SAMPLE]), bytes(view[-_SAMPLE:]))
            for candidate in self._by_sample.get(key, ()):
                if size <= _SAMPLE or self._written_equals(candidate, pieces()):  # a small blob is its own sample
                    return candidate
        at = self.offset if in_page is None else self.offset + (in_page - self.offset) % mmap.PAGESIZE
        self._reserve(at + size)
        write(at)
        self.offset = at + size
        self._sizes.add(size)
        if key is None:
            self._unsampled[size] = at
        else:
            self._by_sample.setdefault(key, []).append(at)
        return at

    def _reserve(self, end: int) -> None:
        """Allocates the file up to at least `end`, `_RESERVE` bytes at a time. ext4 otherwise
        delays allocating what is written, and a rename over an existing output then flushes
        the whole new file first (auto_da_alloc): measured with an 86 MB .bin, 50-70 ms less
        wall time writing over a previous output, and 20-30 % less CPU in writing the .bin.
        Only a hint: once it fails (no support, or no room for the excess), writes go on without."""
        if not self._reserving or end <= self._reserved:
            return
        length = max(end, self._reserved + _RESERVE) - self._reserved
        try:
            os.posix_fallocate(self.fd, self._reserved, length)
        except (AttributeError, OSError):  # AttributeError: no posix_fallocate on this system
            self._reserving = False
        else:
            self._reserved += length

    def finish(self) -> None:
        """The file ends where the last blob does (the reservation's excess is cut)."""
        if self._reserved > self.offset:
            os.ftruncate(self.fd, self.offset)

    def _written_sample(self, offset: int, size: int) -> tuple[int, bytes, bytes]:
        head = os.pread(self.fd, min(_SAMPLE, size), offset)
        tail = os.pread(self.fd, min(_SAMPLE, size), offset + size - min(_SAMPLE, size))
        return size, head, tail

    def _written_equals(self, offset: int, pieces: Iterable[memoryview]) -> bool:
        for piece in pieces:
            if os.pread(self.fd, len(piece), offset) != piece:
                return False
            offset += len(piece)
        return True

    def _write(self, pieces: Iterable[memoryview], at: int) -> None:
        for piece in pieces:
            done = 0
            while done < len(piece):
                done += os.pwrite(self.fd, piece[done:], at + done)
            at += done

    def _copy(self, blob: Blob, offset: int, size: int, at: int) -> None:
        """File to file by copy_file_range, also a range that lands shifted within its pages (the
        kernel then splices it piece by piece): with the pages not mapped, as after the weights
        were streamed, measured on ext4 with a 1.5 GiB .bin, 0.57 s of CPU against 0.80 s for pwrite
        from the map (and write_ir of ResNet-50 and BERT-base about 5 % less CPU). pwrite from the
        map, a piece at a time, where the kernel cannot copy."""
        done = 0
        try:
            while done < size:
                copied = os.copy_file_range(blob.fileno(), self.fd, size - done, offset + done, at + done)
                if copied == 0:
                    break  # nothing more to copy (the input .bin shrank): the view below tells
                done += copied
        except AttributeError:
            pass  # no copy_file_range on this system
        except OSError as exc:
            if exc.errno not in _NO_KERNEL_COPY:
                raise
        if done < size:
            self._write(blob.pieces(offset + done, size - done, _CHUNK), at + done)


def write_ir(graph: Graph, xml_path: str | Path, *, dialect: str = "runtime",
             protect: Sequence[Path] = (), rt_info: RtInfo | None = None,
             on_bytes: Callable[[int, int], None] | None = None) -> int:
    """Writes `graph` to `xml_path` and the .bin beside it; never touches a `protect`ed file.
    Returns the number of layers written (the runtime dialect adds some).

    `rt_info(holder)` is asked for extra rt_info attributes of every node and port written.
    `on_bytes(done, total)` follows the constants' bytes into the .bin (a blob stored once
    counts each time it is found).
    """
    xml_path = Path(xml_path)
    bin_path = xml_path.with_suffix(".bin")
    if dialect not in DIALECTS:
        raise IRWriteError(f"{xml_path}: unknown dialect {dialect!r} (use {' or '.join(DIALECTS)})")
    _refuse_protected(xml_path, bin_path, protect)
    if dialect == "runtime":
        from .legalize import legalize_for_runtime

        graph = legalize_for_runtime(graph)
    folder = xml_path.parent if str(xml_path.parent) else Path(".")
    if not folder.is_dir():
        raise IRWriteError(f"{xml_path}: the folder {folder} does not exist")
    temps: list[Path] = []
    try:
        with _temp_file(folder, bin_path.name, temps) as bin_handle:
            total = sum(node.data.element_type.nbytes(node.data.count) for node in graph if node.data is not None) \
                if on_bytes is not None else 0
            bins = _BinWriter(bin_handle.fileno(), on_bytes, total)
            text = _xml_text(graph, bins, rt_info)
            bins.finish()
        with _temp_file(folder, xml_path.name, temps) as xml_handle:
            xml_handle.write(text.encode("utf-8"))
        os.replace(temps[0], bin_path)
        os.replace(temps[1], xml_path)
        return len(graph)  # every node is one layer of the file
    except OSError as exc:
        raise IRWriteError(f"{xml_path}: cannot write: {exc.strerror or exc}") from None
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)


def _refuse_protected(xml_path: Path, bin_path: Path, protect: Sequence[Path]) -> None:
    guarded = [Path(p) for p in protect]
    for target in (xml_path, bin_path):
        for other in guarded:
            same = target.resolve() == other.resolve() or (
                target.exists() and other.exists() and os.path.samefile(target, other))
            if same:
                raise IRWriteError(f"{target}: refusing to overwrite the input model {other}")


def _temp_file(folder: Path, name: str, temps: list[Path]) -> IO[bytes]:
    """A new file beside the target, under a random name, with the permissions a plain open()
    gives (mode 0o666 less the umask). Not tempfile's: its import (shutil, random, bz2, lzma)
    cost every `lpt transform` about 3 ms of CPU."""
    while True:
        path = folder / f".{name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        temps.append(path)
        return os.fdopen(fd, "w+b")


def _layer_order(graph: Graph) -> list[Node]:
    """Parameters first (their order is the model's input order), Results last (in order)."""
    try:
        order = graph.topological_order()
    except GraphError as exc:
        raise IRWriteError(f"cannot write {graph.name!r}: {exc}") from None
    middle = [n for n in order if n.type not in ("Parameter", "Result")]
    return list(graph.parameters) + middle + list(graph.results)


def _xml_text(graph: Graph, bins: _BinWriter, rt_info: RtInfo | None) -> str:
    """The IR's XML as lxml pretty-prints it, built as text: lpt's own elements are written
    directly, opaque ones (rt_info, bodies, model extras) are serialized by lxml."""
    order = _layer_order(graph)
    new_id = {node.id: i for i, node in enumerate(order)}
    out = ["<?xml version='1.0' encoding='UTF-8'?>\n", f"<net{_attrs({'name': graph.name, 'version': '11'})}>\n"]
    edges = []
    for node in order:
        _layer(out, node, new_id[node.id], graph, bins, rt_info)
        to_layer = new_id[node.id]
        for i, slot in enumerate(node.inputs):
            source = slot.source
            edges.append(f'    <edge from-layer="{new_id[source.node.id]}" '
                         f'from-port="{len(source.node.inputs) + source.index}" to-layer="{to_layer}" to-port="{i}"/>\n')
    if order:
        out.insert(2, "  <layers>\n")
        out.append("  </layers>\n")
    else:
        out.append("  <layers/>\n")
    out.extend(["  <edges>\n", *edges, "  </edges>\n"] if edges else ["  <edges/>\n"])
    out.extend(_opaque(extra, 1) for extra in graph.xml_model_extra)
    out.append("</net>\n")
    return "".join(out)


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;",
                          "\t": "&#9;"})


_NEEDS_ESCAPE = re.compile('[&<>"\n\r\t]')


def _attrs(attrs: Mapping[str, str]) -> str:
    """` key="value"` pairs, escaped as libxml2 escapes attribute values (one search over all
    values first: escaping each one was a third of making the XML, and most need none)."""
    if _NEEDS_ESCAPE.search("".join(attrs.values())) is None:
        return "".join([f' {key}="{value}"' for key, value in attrs.items()])
    return "".join([f' {key}="{value.translate(_ESCAPES)}"' for key, value in attrs.items()])


def _layer(out: list[str], node: Node, layer_id: int, graph: Graph, bins: _BinWriter, rt_info: RtInfo | None) -> None:
    # The hot loop of writing: ports are formatted directly (an id and a precision name need
    # no escaping), each plain port's text is made once (_plain_port).
    head = {"id": str(layer_id), "name": node.name, "type": TO_IR_TYPE.get(node.type, node.type),
            "version": node.version}
    if node.xml_attrs:
        head.update(node.xml_attrs)
    children: list[str] = []
    attrs = node.attrs
    if node.data is not None:
        offset, size = bins.add_constant(node.data)
        attrs = {**attrs, "element_type": node.data.element_type.name,
                 "shape": ", ".join(map(str, node.data.shape)), "offset": str(offset), "size": str(size)}
    if attrs or node.type in ("Constant", "Parameter"):
        children.append(f"      <data{_attrs(attrs)}/>\n")
    if node.xml_rt_info is not None or rt_info is not None:
        _add_rt_info(children, 3, node.xml_rt_info, node, rt_info)
    ports: tuple[tuple[str, Sequence[Input | Output], int], ...] = (
        ("input", node.inputs, 0), ("output", node.outputs, len(node.inputs)))
    for tag, holders, first in ports:
        if not holders:
            continue
        children.append(f"      <{tag}>\n")
        for port_id, holder in enumerate(holders, first):
            value = holder.source if isinstance(holder, Input) else holder
            names = value.names if tag == "output" else None
            if names or holder.xml_rt_info is not None or rt_info is not None:
                extra: list[str] = []
                _add_rt_info(extra, 5, holder.xml_rt_info, holder, rt_info)
                children.append(_port(port_id, precision_name(value.element_type), value.shape, names, "".join(extra)))
            else:
                children.append(_plain_port(port_id, precision_name(value.element_type), value.shape))
        children.append(f"      </{tag}>\n")
    if node.xml_extra:
        children.extend(_opaque(_relocated_body(extra, graph.xml_blob, bins), 3) for extra in node.xml_extra)
    out.extend([f"    <layer{_attrs(head)}>\n", *children, "    </layer>\n"] if children
               else [f"    <layer{_attrs(head)}/>\n"])


def _port(port_id: int, precision: str, shape: Shape, names: str | None, rt_info: str) -> str:
    port = f'        <port id="{port_id}" precision="{precision}"'
    if names:
        port += f' names="{names.translate(_ESCAPES)}"'
    inner = (_dims(shape) if shape else "") + rt_info
    return f"{port}>\n{inner}        </port>\n" if inner else f"{port}/>\n"


@functools.lru_cache(maxsize=4096)
def _plain_port(port_id: int, precision: str, shape: Shape) -> str:
    """A port without names or rt_info: a model repeats a few (id, precision, shape) many times."""
    return _port(port_id, precision, shape, None, "")


@functools.lru_cache(maxsize=4096)
def _dims(shape: tuple[int, ...]) -> str:
    return "".join(f"          <dim>{dim}</dim>\n" for dim in shape)


def _add_rt_info(out: list[str], depth: int, read: Any, holder: Node | Input | Output, rt_info: RtInfo | None) -> None:
    """The <rt_info> read from the input (kept verbatim) plus the callback's attributes."""
    extra = rt_info(holder) if rt_info is not None else {}
    if read is None and not extra:
        return
    element = copy.deepcopy(read) if read is not None else etree.Element("rt_info")
    for name, value in extra.items():
        etree.SubElement(element, "attribute", name=name, version="0", value=value)
    out.append(_opaque(element, depth))


def _opaque(element: Any, depth: int) -> str:
    """`element` pretty-printed by lxml as it would be `depth` levels down in the document
    (nested in placeholders, so text holding line breaks comes out exactly as before)."""
    element = copy.copy(element)
    element.tail = None
    holder = root = etree.Element("_")
    for _ in range(depth - 1):
        holder = etree.SubElement(holder, "_")
    holder.append(element)
    lines = etree.tostring(root, encoding="unicode", pretty_print=True).split("\n")
    return "\n".join(lines[depth:-depth - 1]) + "\n"


def _relocated_body(extra: Any, blob: Blob | None, bins: _BinWriter) -> Any:
    """A copy of an opaque child whose Const layers point at their bytes in the new .bin."""
    element = copy.deepcopy(extra)
    for layer in element.iter("layer"):
        data = layer.find("data") if layer.get("type") == "Const" else None
        if data is None:
            continue
        if blob is None:
            raise IRWriteError(f"layer '{layer.get('name')}' in a sub-graph body has no .bin to copy from")
        offset, size = int(data.get("offset")), int(data.get("size"))
        new_offset, _ = bins.add_slice(blob, offset, size)
        data.set("offset", str(new_offset))
    return element
