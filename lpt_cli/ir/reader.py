"""OpenVINO IR v10/v11 (XML + .bin) -> Graph.

The XML is parsed with a hardened lxml parser (no DTD, no entities, no network) and
checked for everything that would otherwise surface later as a confusing failure:
dangling edges, unfed or doubly fed inputs, cycles, unknown element types, constants
outside the .bin. Constants are never decoded here: each keeps a (blob, offset, size)
slice of the memory-mapped .bin. Anything lpt does not interpret (rt_info, sub-graph
bodies, port maps, unknown layer attributes) is kept as opaque XML for the writer.
"""
from __future__ import annotations

import functools
import os
import re
import stat
from pathlib import Path
from typing import Any, NamedTuple

from lxml import etree

from ..errors import IRReadError, clip
from .arity import describe, expected_arity
from .consistency import shape_problem
from .constant import Blob, ConstantData
from .eltypes import ElementType, UnknownElementType, element_type
from .graph import Graph, GraphError, Node, Shape, collector_paused, type_signature

SUPPORTED_VERSIONS = ("10", "11")
FROM_IR_TYPE = {"Const": "Constant", "ReLU": "Relu", "PReLU": "PRelu", "SoftMax": "Softmax"}
_LAYER_KEYS = frozenset({"id", "name", "type", "version"})
_KNOWN_CHILDREN = ("data", "rt_info", "input", "output")
_UINT = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() and int() accept '²', '\u0661', '1_0'
MAX_DIM = 2**40  # a dimension beyond any real tensor; keeps element counts inside int64
MAX_ELEMENTS = 2**62


def regular_file_problem(path: Path) -> str | None:
    """Why `path` cannot be read as a file (None when it is a regular file).

    Checked before opening: a FIFO or a device would block or stream forever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"is {kind}, not a regular file"


class _LayerName:
    """`layer ID 'NAME'` in a message, spelled (clipped) only when a message is made: clipping
    every layer's id and name up front showed in profiles of reading."""

    __slots__ = ("raw_id", "name")

    def __init__(self, raw_id: str | None, name: str) -> None:
        self.raw_id, self.name = raw_id, name

    def __str__(self) -> str:
        return f"layer {clip(self.raw_id)} '{clip(self.name)}'"


Where = str | _LayerName  # what a message names


# Plain classes, not dataclasses: creating a dataclass (~0.8 ms each on Python 3.11) was paid
# at import by every `lpt` process.
class _Port(NamedTuple):
    pid: str
    precision: str | None
    dims: list[str] | None  # None: the port has no <dim> children
    names: str | None = None
    rt_info: Any = None


class _Layer:
    __slots__ = ("node", "inputs", "outputs", "fed")

    def __init__(self, node: Node, inputs: list[_Port], outputs: list[_Port]) -> None:
        self.node = node
        self.inputs = inputs
        self.outputs = outputs
        self.fed: list[Any] = []  # source Output per input slot


class _Context:
    """Where we are (for messages) and the .bin, opened on first use."""

    def __init__(self, xml_path: Path) -> None:
        self.xml_path = xml_path
        self.bin_path = xml_path.with_suffix(".bin")
        self.where = str(xml_path)
        self._blob: Blob | None = None

    def fail(self, message: str) -> IRReadError:
        return IRReadError(f"{self.where}: {message}")

    def blob(self, what: Where) -> Blob:
        if self._blob is None:
            problem = regular_file_problem(self.bin_path)
            if problem is not None:
                raise self.fail(f"{what}: needs weights from {self.bin_path.name}, which {problem}")
            try:
                self._blob = Blob(self.bin_path)
            except OSError as exc:
                raise self.fail(f"cannot open {self.bin_path.name}: {exc.strerror or exc}") from None
        return self._blob


def read_ir(xml_path: str | Path) -> Graph:
    """Reads `xml_path` and the .bin of the same stem into a Graph (constants stay mapped)."""
    with collector_paused():
        return _read(_Context(Path(xml_path)))


def _read(ctx: _Context) -> Graph:
    root = _parse_xml(ctx)
    graph = Graph(root.get("name") or ctx.xml_path.stem)
    graph.source = str(ctx.xml_path)
    layers = _read_layers(ctx, root, graph)
    _wire_edges(ctx, root, layers)
    for layer in layers.values():
        for port, source in zip(layer.inputs, layer.fed):
            layer.node.add_input(source).xml_rt_info = port.rt_info
    for lid, layer in layers.items():
        problem = shape_problem(layer.node)
        if problem is not None:
            raise ctx.fail(f"layer {clip(lid)} '{clip(layer.node.name)}' ({layer.node.type}): {problem}")
    try:
        order = graph.topological_order()
    except GraphError as exc:
        raise ctx.fail(str(exc)) from None
    _mark_dynamic_ranks(order)
    graph.read_types = {node.id: type_signature(node) for node in order}
    if root.get("version") == "10":
        _name_v10_tensors(graph)
    graph.xml_model_extra = [child for child in root if child.tag not in ("layers", "edges")]
    graph.xml_blob = ctx._blob
    return graph


def _parse_xml(ctx: _Context) -> Any:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_blank_text=True, remove_comments=True, remove_pis=True)
    problem = regular_file_problem(ctx.xml_path)
    if problem is not None:
        raise ctx.fail(problem)
    try:
        tree = etree.parse(str(ctx.xml_path), parser)
    except OSError as exc:
        raise ctx.fail(f"cannot read the file: {clip(exc, 200)}") from None
    except etree.XMLSyntaxError as exc:
        raise ctx.fail(f"malformed XML: {clip(exc, 200)}") from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise ctx.fail("has a DOCTYPE (entity declarations are not allowed in an IR)")
    root = tree.getroot()
    if root.tag != "net":
        raise ctx.fail(f"not an OpenVINO IR: the root element is <{clip(root.tag)}>, expected <net>")
    version = root.get("version")
    if version not in SUPPORTED_VERSIONS:
        raise ctx.fail(f"unsupported IR version {clip(version)!r} (lpt reads versions 10 and 11)")
    if root.find("layers") is None:
        raise ctx.fail("not an OpenVINO IR: <net> has no <layers>")
    return root


def _read_layers(ctx: _Context, root: Any, graph: Graph) -> dict[str, _Layer]:
    layers: dict[str, _Layer] = {}
    for element in root.find("layers"):
        if element.tag != "layer":
            raise ctx.fail(f"unexpected <{element.tag}> in <layers>")
        raw_id = element.get("id")
        if raw_id in layers:
            raise ctx.fail(f"duplicate layer id {clip(raw_id)} ('{clip(element.get('name', ''))}')")
        layers[raw_id] = _read_layer(ctx, element, graph)
    return layers


def _read_layer(ctx: _Context, element: Any, graph: Graph) -> _Layer:
    # Each lxml call makes a Python proxy or string: the attributes are read once and the
    # children sorted in one pass (this loop is most of reading a large IR).
    attrib: dict[str, str] = dict(element.attrib)
    raw_id, name = attrib.get("id"), attrib.get("name", "")
    what = _LayerName(raw_id, name)
    if raw_id is None or not _UINT.fullmatch(raw_id) or int(raw_id) > MAX_ELEMENTS:
        raise ctx.fail(f"{what}: the layer id must be a non-negative integer")
    ir_type = attrib.get("type")
    if ir_type is None:
        raise ctx.fail(f"{what}: no type")
    known: dict[str, Any] = {}
    extra = []
    for child in element:
        tag = child.tag
        if tag in _KNOWN_CHILDREN:
            known.setdefault(tag, child)
        else:
            extra.append(child)
    data = known.get("data")
    attrs = dict(data.attrib) if data is not None else {}
    op_type = FROM_IR_TYPE.get(ir_type, ir_type)
    node = graph.add_node(op_type, attrs=attrs, version=attrib.get("version", ""), name=name,
                          node_id=int(raw_id))
    if not attrib.keys() <= _LAYER_KEYS:  # most layers have no other attribute
        node.xml_attrs = {k: v for k, v in attrib.items() if k not in _LAYER_KEYS}
    node.xml_rt_info = known.get("rt_info")
    node.xml_extra = extra
    layer = _Layer(node, _ports(ctx, known.get("input"), what), _ports(ctx, known.get("output"), what))
    layer.fed = [None] * len(layer.inputs)
    _check_arity(ctx, node, len(layer.inputs), len(layer.outputs), what)
    for port in layer.outputs:
        out = node.add_output(_output_type(ctx, node, port, what), _shape(ctx, port.dims, what))
        out.names, out.xml_rt_info = port.names, port.rt_info
    if node.is_constant:
        node.data = _constant(ctx, node, what)
    for body in extra:
        _check_body_constants(ctx, body, what)
    return layer


def _check_arity(ctx: _Context, node: Node, inputs: int, outputs: int, what: Where) -> None:
    arity = expected_arity(node.type, node.version)
    if arity is None:
        return
    in_min, in_max, out_min, out_max = arity
    if not in_min <= inputs <= (inputs if in_max is None else in_max):
        raise ctx.fail(f"{what}: {_spec(node)} takes {describe(in_min, in_max, 'input')}, the layer has {inputs}")
    if not out_min <= outputs <= (outputs if out_max is None else out_max):
        raise ctx.fail(f"{what}: {_spec(node)} has {describe(out_min, out_max, 'output')}, the layer has {outputs}")


def _spec(node: Node) -> str:
    return f"{node.type}-{node.version.removeprefix('opset')}"


def _ports(ctx: _Context, parent: Any, what: Where) -> list[_Port]:
    if parent is None:
        return []
    ports = []
    for element in parent:
        pid = element.get("id")
        if element.tag != "port" or pid is None:
            raise ctx.fail(f"{what}: <{parent.tag}> holds a <{element.tag}> without a port id")
        dims = []
        rt_info = None
        for child in element:
            tag = child.tag
            if tag == "dim":
                dims.append(child.text or "")
            elif tag == "rt_info" and rt_info is None:
                rt_info = child
        ports.append(_Port(pid, element.get("precision"), dims or None, element.get("names"), rt_info))
    return ports


_TYPE_ATTRIBUTE = {"Constant": "element_type", "Parameter": "element_type", "Convert": "destination_type"}


def _output_type(ctx: _Context, node: Node, port: _Port, what: Where) -> ElementType:
    """Const and Parameter declare their type in <data>, Convert its destination_type (OpenVINO
    ignores a port precision that says otherwise); other layers on the port."""
    key = _TYPE_ATTRIBUTE.get(node.type)
    spelled = node.attrs.get(key) if key else None
    spelled = spelled or port.precision
    if spelled is None:
        raise ctx.fail(f"{what}: output port {port.pid} has no precision")
    try:
        return element_type(spelled)
    except UnknownElementType:
        raise ctx.fail(f"{what}: unknown element type {clip(spelled)!r}") from None


def _dim(text: str) -> int:
    text = text.strip()
    if text in ("?", "-1"):
        return -1
    if ".." in text:  # an interval: both ends, when given, are dimensions
        if not all(_UINT.fullmatch(end) for end in text.split("..", 1) if end):
            raise ValueError(text)
        return -1
    if not _UINT.fullmatch(text) or int(text) > MAX_DIM:
        raise ValueError(text)
    return int(text)


@functools.lru_cache(maxsize=4096)
def _dims(spelled: tuple[str, ...]) -> tuple[tuple[int, ...], bool]:
    """A port's dims parsed (ValueError: the bad one) and whether they hold too many elements;
    models repeat a few shapes many times."""
    shape = tuple(_dim(d) for d in spelled)
    return shape, _too_many(shape)


def _shape(ctx: _Context, dims: list[str] | None, what: Where) -> Shape:
    try:
        shape, too_many = _dims(tuple(dims)) if dims else ((), False)
    except ValueError as exc:
        raise ctx.fail(f"{what}: bad dimension {clip(exc)!r} (a dimension is 0..2^40, ?, -1 or a..b)") from None
    if too_many:
        raise ctx.fail(f"{what}: shape {clip(list(shape))} has too many elements")
    return shape


def _too_many(dims: tuple[int, ...]) -> bool:
    count = 1
    for d in dims:
        count *= max(d, 1)
    return count > MAX_ELEMENTS


def _check_count(ctx: _Context, dims: tuple[int, ...], what: Where) -> None:
    if _too_many(dims):
        raise ctx.fail(f"{what}: shape {clip(list(dims))} has too many elements")


def _constant(ctx: _Context, node: Node, what: Where) -> ConstantData:
    if len(node.outputs) != 1:
        raise ctx.fail(f"{what}: a Const needs exactly one output port")
    missing = [k for k in ("element_type", "shape", "offset", "size") if k not in node.attrs]
    if missing:
        raise ctx.fail(f"{what}: Const <data> lacks {', '.join(missing)}")
    etype = node.outputs[0].element_type
    dims = _const_dims(node.attrs["shape"])
    if dims is None or not (_is_count(node.attrs["offset"].strip()) and _is_count(node.attrs["size"].strip())):
        raise ctx.fail(f"{what}: Const shape {clip(node.attrs['shape'])!r}, offset {clip(node.attrs['offset'])!r} "
                       f"and size {clip(node.attrs['size'])!r} must be non-negative integers")
    if any(d > MAX_DIM for d in dims):
        raise ctx.fail(f"{what}: Const shape {clip(list(dims))} has a dimension above 2^40")
    _check_count(ctx, dims, what)
    offset, size = int(node.attrs["offset"]), int(node.attrs["size"])
    data = ConstantData(etype, dims, offset=offset, size=size)
    if size != etype.nbytes(data.count):
        raise ctx.fail(f"{what}: Const size {size} does not match shape {list(dims)} of {etype} "
                       f"({etype.nbytes(data.count)} bytes)")
    data.blob = _checked_blob(ctx, what, offset, size)
    node.outputs[0].shape = dims
    return data


@functools.lru_cache(maxsize=4096)
def _const_dims(spelled: str) -> tuple[int, ...] | None:
    """A Const's `shape` attribute parsed (None: a part is not a count); constants repeat a few shapes."""
    parts = [d.strip() for d in spelled.split(",")]
    if parts == [""]:
        return ()
    return tuple(int(p) for p in parts) if all(_is_count(p) for p in parts) else None


def _is_count(text: str) -> bool:
    return _UINT.fullmatch(text) is not None and int(text) <= MAX_ELEMENTS


def _checked_blob(ctx: _Context, what: Where, offset: int, size: int) -> Blob:
    blob = ctx.blob(what)
    if offset + size > blob.size:
        raise ctx.fail(f"{what}: Const offset {offset}+{size} is outside {ctx.bin_path.name} "
                       f"({blob.size} bytes)")
    return blob


def _check_body_constants(ctx: _Context, extra: Any, what: Where) -> None:
    """Sub-graph bodies stay opaque, but their constants must lie inside the .bin too."""
    for layer in extra.iter("layer"):
        if layer.get("type") != "Const":
            continue
        data = layer.find("data")
        inner = f"{what}: body layer {clip(layer.get('id'))} '{clip(layer.get('name', ''))}'"
        raw = [data.get(k) for k in ("offset", "size")] if data is not None else [None, None]
        values = [int(r) for r in raw if r is not None and _UINT.fullmatch(r.strip())]
        if len(values) != 2 or max(values) > MAX_ELEMENTS:
            raise ctx.fail(f"{inner}: Const <data> needs integer offset and size")
        offset, size = values
        _checked_blob(ctx, inner, offset, size)


def _wire_edges(ctx: _Context, root: Any, layers: dict[str, _Layer]) -> None:
    """Maps IR port ids (inputs 0..k-1, outputs k..) to slots and fills `fed` per layer."""
    in_index = {lid: {p.pid: i for i, p in enumerate(layer.inputs)} for lid, layer in layers.items()}
    out_index = {lid: {p.pid: i for i, p in enumerate(layer.outputs)} for lid, layer in layers.items()}
    edges = root.find("edges")
    shapes: dict[tuple[str, ...], Shape] = {}  # an edge's port dims, parsed once per spelling
    for edge in (edges if edges is not None else ()):
        attrib = edge.attrib
        src, sport, dst, dport = attrib.get("from-layer"), attrib.get("from-port"), attrib.get("to-layer"), attrib.get("to-port")
        if src not in layers or dst not in layers or sport not in out_index[src] or dport not in in_index[dst]:
            raise ctx.fail(_edge_problem(src, sport, dst, dport, layers, in_index, out_index))
        target = layers[dst]
        slot = in_index[dst][dport]
        if target.fed[slot] is not None:
            raise ctx.fail(f"{_edge(src, sport, dst, dport)}: input port {dport} of layer {dst} "
                           f"'{clip(target.node.name)}' is fed twice")
        source = layers[src].node.outputs[out_index[src][sport]]
        dims = target.inputs[slot].dims
        key = tuple(dims) if dims else ()
        if key in shapes:
            expected = shapes[key]
        else:
            expected = shapes[key] = _shape(ctx, dims, f"layer {clip(dst)} '{clip(target.node.name)}'")
        if source.shape != expected and not _compatible(source.shape, expected):
            raise ctx.fail(f"{_edge(src, sport, dst, dport)}: layer {clip(src)} '{clip(layers[src].node.name)}' produces shape "
                           f"{clip(list(source.shape or ()))}, the input port says {clip(list(expected or ()))}")
        target.fed[slot] = source
    for lid, layer in layers.items():
        for slot, source in enumerate(layer.fed):
            if source is None:
                raise ctx.fail(f"layer {clip(lid)} '{clip(layer.node.name)}': input port {clip(layer.inputs[slot].pid)} "
                               "is not connected")


def _edge(src: str | None, sport: str | None, dst: str | None, dport: str | None) -> str:
    """An edge as messages name it (made only for a message: clipping every edge showed in profiles)."""
    return f"edge {clip(src)}:{clip(sport)} -> {clip(dst)}:{clip(dport)}"


def _edge_problem(src: str | None, sport: str | None, dst: str | None, dport: str | None,
                  layers: dict[str, _Layer], in_index: dict[str, dict[str, int]],
                  out_index: dict[str, dict[str, int]]) -> str:
    """Why an edge names no existing ports: the first missing layer or port."""
    what = _edge(src, sport, dst, dport)
    for lid in (src, dst):
        if lid not in layers:
            return f"{what}: no layer with id {clip(lid)}"
    assert src is not None and dst is not None
    if sport not in out_index[src]:
        return f"{what}: layer {clip(src)} '{clip(layers[src].node.name)}' has no output port {clip(sport)}"
    return f"{what}: layer {clip(dst)} '{clip(layers[dst].node.name)}' has no input port {clip(dport)}"


def _compatible(a: Shape, b: Shape) -> bool:
    """Both ends of an edge describe one value: same rank, and equal where both are static."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x == y or x < 0 or y < 0 for x, y in zip(a, b))


def _mark_dynamic_ranks(order: list[Node]) -> None:
    """A port without <dim> is a scalar, unless its value has a dynamic rank.

    The IR cannot tell the two apart, so: a Parameter with shape "..." has a dynamic rank,
    and so does a dim-less output of any op fed by a value of dynamic rank."""
    for node in order:
        if node.type == "Parameter" and node.attrs.get("shape", "").strip() == "...":
            node.outputs[0].shape = None
        elif node.type != "Constant" and any(s.source.shape is None for s in node.inputs):
            for out in node.outputs:
                if out.shape == ():
                    out.shape = None


def _name_v10_tensors(graph: Graph) -> None:
    """IR v10 has no tensor names; OpenVINO names inputs and outputs after their layers.

    Writing v11, we make that explicit so the model keeps its input and output names."""
    for node in graph.parameters:
        if node.outputs and not node.outputs[0].names:
            node.outputs[0].names = node.name
    for result in graph.results:
        source = result.inputs[0].source if result.inputs else None
        if source is not None and not source.names:
            producer = source.node
            multi = len(producer.outputs) > 1
            source.names = f"{producer.name}.{source.index}" if multi else producer.name
