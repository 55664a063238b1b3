"""Mutation fuzzer for `lpt transform`: every run ends as ok, a clean error, or a DEFECT.

Usage: python benchmarks/fuzz.py [--runs 1500] [--configs 300] [--seed 0] [--jobs 2]
                                 [--defects fuzz-defects]

IR runs mutate a bundled fixture (fixtures/models/*.xml): XML byte flips and truncations;
removed, duplicated or rewired layers, ports, edges and attributes; wrong element types,
shapes, offsets, sizes, levels, axes, pads, opset versions and op types; a truncated .bin
and NaN/inf FakeQuantize intervals. Config runs transform an intact fixture under a mutated
config (the FORMAT.md schema with wrong types, values, keys or depth; broken YAML).

lpt runs in-process in a worker (click's CliRunner, 30 s alarm); OpenVINO reads and compiles
models in a persistent child process per worker, so a segfault there is a result, not a crash.
A run is:
  ok          exit 0, and OpenVINO reads and compiles the output (or rejects the mutated
              input too: `ok, input invalid`); stderr empty but for `lpt: warning: ...`
              lines (a config whose `only` list runs nothing)
  clean error exit 2 with exactly one stderr line `lpt: error: ...`
  DEFECT      anything else: exit 1, a traceback, a hang, more than one stderr line, stderr
              noise on success, output left behind on error, the input changed, or an output
              OpenVINO rejects although it reads and compiles the mutated input.
Each defect is saved as DEFECTS/<n>_<kind>/ (model, config, command, what happened).
Every run is reproducible from (seed, index).
"""
from __future__ import annotations

import argparse
import hashlib
import math
import random
import shutil
import signal
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from lpt_cli.runtime.oracle import CompileChecker

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "models"
MODELS = ("resnet", "decoder", "mobilenet", "resnet_fp32", "mobilenet_fp32", "decoder_fp32")
HANG_SECONDS = 30
CHECK_SECONDS = 60
PROFILES = ("cpu", "default", "gpu", "cpu-vnni", "cpu-amx")

# Attribute values that are wrong in some way for whatever attribute they land in.
BAD_VALUES = ("many", "1.5", "abc", "1,,2", "", " ", "-1", "0", "-7", "2", "1000000", "18446744073709551616",
              "²", "١", "1_0", "nan", "inf", "-inf", "1e400", "true", "false", "yes", "1,2,3,4,5,6,7,8",
              "0,0", "-1,-1", "3,", ",3", "u8", "f32", "numpy", "none", "explicit", "same_upper", "\u00e9",
              "x" * 300)
DATA_KEYS_LPT_READS = ("levels", "axis", "axes", "pads_begin", "pads_end", "strides", "dilations", "kernel",
                       "transpose_a", "transpose_b", "group", "num_splits", "special_zero", "auto_broadcast",
                       "mode", "min", "max", "keep_dims", "batch_dims", "reduction_axes", "normalize_variance",
                       "eps", "eps_mode", "begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                       "ellipsis_mask", "destination_type", "element_type", "shape", "offset", "size",
                       "rounding_type", "exclude-pad", "auto_pad", "across_channels", "pad_mode",
                       "coordinate_transformation_mode", "align_corners", "output_padding", "m_pythondiv")
ELEMENT_TYPES = ("f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "boolean",
                 "u1", "u4", "i4", "nf4", "f8e4m3", "string", "dynamic", "undefined", "FP32", "I8", "U8", "Q78")
OP_TYPES = ("Relu", "Add", "Multiply", "Subtract", "Convolution", "FakeQuantize", "Concat", "Reshape",
            "Transpose", "MatMul", "MaxPool", "AvgPool", "Convert", "Const", "Parameter", "Result", "Clamp",
            "Split", "NoSuchOp", "GroupConvolution", "Interpolate", "MVN", "Squeeze", "Unsqueeze")


class Hang(BaseException):
    """Raised by the alarm inside a worker; a BaseException so lpt's handler does not eat it."""


# --- IR mutations -------------------------------------------------------------------------
@dataclass
class Case:
    """One mutated input: files in `folder`, how lpt is invoked, and what was done."""

    kind: str
    model: str
    xml: Path
    config: str
    detail: str


def _tree(xml: Path) -> Any:
    from lxml import etree

    return etree.parse(str(xml), etree.XMLParser(remove_blank_text=False))


def _layers(tree: Any, types: tuple[str, ...] | None = None) -> list[Any]:
    return [l for l in tree.getroot().iter("layer") if types is None or l.get("type") in types]


def _save(tree: Any, xml: Path) -> None:
    tree.write(str(xml), xml_declaration=True, encoding="utf-8")


def _data_attr_targets(tree: Any) -> list[tuple[Any, str]]:
    pairs = [(data, key) for layer in _layers(tree) for data in layer.findall("data") for key in data.attrib]
    read = [p for p in pairs if p[1] in DATA_KEYS_LPT_READS]
    return read or pairs


def m_xml_byte_flip(rng: random.Random, xml: Path, bin_: Path) -> str:
    raw = bytearray(xml.read_bytes())
    flips = rng.randint(1, 8)
    for _ in range(flips):
        at = rng.randrange(len(raw))
        raw[at] = rng.choice((rng.randrange(256), ord(rng.choice('<>"=/ 0129-,.a\x00'))))
    xml.write_bytes(bytes(raw))
    return f"{flips} bytes"


def m_xml_truncate(rng: random.Random, xml: Path, bin_: Path) -> str:
    raw = xml.read_bytes()
    cut = rng.randrange(len(raw))
    xml.write_bytes(raw[:cut])
    return f"at {cut}"


def m_layer_remove(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    layer = rng.choice(_layers(tree))
    layer.getparent().remove(layer)
    if rng.random() < 0.5:  # also drop its edges, leaving consumers unfed
        for edge in list(tree.getroot().iter("edge")):
            if layer.get("id") in (edge.get("from-layer"), edge.get("to-layer")):
                edge.getparent().remove(edge)
    _save(tree, xml)
    return f"layer {layer.get('id')} ({layer.get('type')})"


def m_layer_duplicate(rng: random.Random, xml: Path, bin_: Path) -> str:
    import copy

    tree = _tree(xml)
    layer = rng.choice(_layers(tree))
    twin = copy.deepcopy(layer)
    if rng.random() < 0.7:
        twin.set("id", str(max(int(l.get("id")) for l in _layers(tree)) + 1))
        twin.set("name", twin.get("name", "") + "_dup")
    layer.addnext(twin)
    _save(tree, xml)
    return f"layer {layer.get('id')} ({layer.get('type')})"


def m_edge_rewire(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    edges = list(tree.getroot().iter("edge"))
    edge = rng.choice(edges)
    key = rng.choice(("from-layer", "from-port", "to-layer", "to-port"))
    other = rng.choice(edges).get(key) if rng.random() < 0.7 else rng.choice(("0", "1", "2", "3", "99", "-1", "x"))
    edge.set(key, other)
    _save(tree, xml)
    return f"{key}={other}"


def m_edge_remove(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    edge = rng.choice(list(tree.getroot().iter("edge")))
    edge.getparent().remove(edge)
    _save(tree, xml)
    return f"{edge.get('from-layer')}->{edge.get('to-layer')}"


def m_edge_duplicate(rng: random.Random, xml: Path, bin_: Path) -> str:
    import copy

    tree = _tree(xml)
    edge = rng.choice(list(tree.getroot().iter("edge")))
    edge.addnext(copy.deepcopy(edge))
    _save(tree, xml)
    return f"{edge.get('from-layer')}->{edge.get('to-layer')}"


def m_port_remove(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    ports = [p for l in _layers(tree) for side in ("input", "output") for s in l.findall(side) for p in s]
    port = rng.choice(ports)
    layer = port.getparent().getparent()
    port.getparent().remove(port)
    _save(tree, xml)
    return f"layer {layer.get('id')} ({layer.get('type')}) port {port.get('id')}"


def m_port_add(rng: random.Random, xml: Path, bin_: Path) -> str:
    """An extra input port, fed by some other layer's output (an op with one input too many)."""
    import copy

    tree = _tree(xml)
    layers = [l for l in _layers(tree) if l.find("input") is not None and len(l.find("input"))]
    layer = rng.choice(layers)
    inputs = layer.find("input")
    new = copy.deepcopy(inputs[-1])
    used = [int(p.get("id")) for side in ("input", "output") for s in layer.findall(side) for p in s]
    new.set("id", str(max(used) + 1))
    inputs.append(new)
    edges = tree.getroot().find("edges")
    source = rng.choice(list(edges))
    from lxml import etree

    etree.SubElement(edges, "edge", {"from-layer": source.get("from-layer"), "from-port": source.get("from-port"),
                                     "to-layer": layer.get("id"), "to-port": new.get("id")})
    _save(tree, xml)
    return f"layer {layer.get('id')} ({layer.get('type')})"


def m_attr_remove(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    data, key = rng.choice(_data_attr_targets(tree))
    del data.attrib[key]
    _save(tree, xml)
    return f"{data.getparent().get('type')}.{key}"


def m_attr_value(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    data, key = rng.choice(_data_attr_targets(tree))
    value = rng.choice(BAD_VALUES)
    data.set(key, value)
    _save(tree, xml)
    return f"{data.getparent().get('type')}.{key}={value[:20]!r}"


def m_element_type(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    if rng.random() < 0.5:
        data = rng.choice([l.find("data") for l in _layers(tree, ("Const", "Parameter", "Convert"))])
        key = "destination_type" if "destination_type" in data.attrib else "element_type"
        value = rng.choice(ELEMENT_TYPES)
        data.set(key, value)
        what = f"{data.getparent().get('type')}.{key}={value}"
    else:
        ports = [p for l in _layers(tree) for s in l.findall("output") for p in s]
        port = rng.choice(ports)
        value = rng.choice(ELEMENT_TYPES).upper()
        port.set("precision", value)
        what = f"port precision={value}"
    _save(tree, xml)
    return what


def m_port_dim(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    dims = [d for l in _layers(tree) for d in l.iter("dim")]
    dim = rng.choice(dims)
    choice = rng.random()
    if choice < 0.2:
        dim.getparent().remove(dim)
        value = "removed"
    elif choice < 0.3:
        import copy

        dim.addnext(copy.deepcopy(dim))
        value = "duplicated"
    else:
        value = rng.choice(("0", "1", "2", "3", "7", "64", "-1", "?", "1..8", "-5", "x", "1.5", "²",
                            "18446744073709551616", "99999999999"))
        dim.text = value
    _save(tree, xml)
    return value


def m_const_shape(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    data = rng.choice([l.find("data") for l in _layers(tree, ("Const",))])
    value = rng.choice(("1", "", "1,1", "2,2", "1,64,1,1", "1,1,1,1,1", "0", "-1", "1,,1", "a", "3.0",
                        "18446744073709551616,1", "١"))
    data.set("shape", value)
    if rng.random() < 0.5:  # keep the port in step, so only the data disagrees with its users
        port = data.getparent().find("output")[0]
        for dim in list(port):
            if dim.tag == "dim":
                port.remove(dim)
        from lxml import etree

        for d in value.split(","):
            if d.strip():
                etree.SubElement(port, "dim").text = d.strip()
    _save(tree, xml)
    return value


def _fed_ports(tree: Any, layer_id: str, port_id: str) -> list[Any]:
    """The input <port>s that an output port feeds (so a shape edit keeps both edge ends in step)."""
    by_id = {l.get("id"): l for l in _layers(tree)}
    ports = []
    for edge in tree.getroot().iter("edge"):
        if edge.get("from-layer") == layer_id and edge.get("from-port") == port_id and edge.get("to-layer") in by_id:
            ports += [p for s in by_id[edge.get("to-layer")].findall("input") for p in s
                      if p.get("id") == edge.get("to-port")]
    return ports


def _set_dims(port: Any, dims: list[str]) -> None:
    from lxml import etree

    for dim in port.findall("dim"):
        port.remove(dim)
    for d in dims:
        etree.SubElement(port, "dim").text = d


def m_shape_in_step(rng: random.Random, xml: Path, bin_: Path) -> str:
    """An output shape changed on both ends of its edges: consistent in the XML, wrong for the op."""
    tree = _tree(xml)
    ports = [(l, p) for l in _layers(tree) if l.get("type") != "Const" for s in l.findall("output") for p in s]
    layer, port = rng.choice(ports)
    dims = [d.text or "" for d in port.findall("dim")]
    choice = rng.random()
    if choice < 0.3 and dims:
        dims.pop(rng.randrange(len(dims)))
    elif choice < 0.5:
        dims.insert(rng.randrange(len(dims) + 1), "1")
    elif dims:
        dims[rng.randrange(len(dims))] = rng.choice(("1", "2", "3", "5", "16", "-1", "0"))
    for target in [port, *_fed_ports(tree, layer.get("id"), port.get("id"))]:
        _set_dims(target, dims)
    _save(tree, xml)
    return f"{layer.get('type')} -> {dims}"


def m_const_shape_in_step(rng: random.Random, xml: Path, bin_: Path) -> str:
    """A Const with a different (valid) shape and size, its edges in step: e.g. per-channel
    FakeQuantize intervals with the wrong channel count, weights of the wrong rank."""
    tree = _tree(xml)
    layer = rng.choice(_layers(tree, ("Const",)))
    data = layer.find("data")
    dims = [d for d in data.get("shape", "").replace(" ", "").split(",") if d]
    choice = rng.random()
    if choice < 0.3 and dims:
        dims.pop(rng.randrange(len(dims)))
    elif choice < 0.5:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(("1", "2")))
    elif dims:
        dims[rng.randrange(len(dims))] = rng.choice(("1", "2", "3", "4", "7"))
    else:
        dims = [rng.choice(("1", "2", "3"))]
    count = math.prod(int(d) for d in dims)
    bits = {"f32": 32, "f16": 16, "i64": 64, "i32": 32, "i8": 8, "u8": 8, "i4": 4, "u4": 4}.get(
        data.get("element_type"), 32)
    size = (count * bits + 7) // 8
    offset = int(data.get("offset"))
    if offset + size > bin_.stat().st_size:
        offset = 0
    data.set("shape", ",".join(dims))
    data.set("size", str(size))
    data.set("offset", str(offset))
    port = layer.find("output")[0]
    for target in [port, *_fed_ports(tree, layer.get("id"), port.get("id"))]:
        _set_dims(target, dims)
    _save(tree, xml)
    return f"{layer.get('name')} -> {dims}"


def m_const_offset_size(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    data = rng.choice([l.find("data") for l in _layers(tree, ("Const",))])
    key = rng.choice(("offset", "size"))
    old = int(data.get(key))
    value = rng.choice((str(old + rng.choice((-4, -1, 1, 4, 1 << 20))), "0", "-1", "x", "1.5",
                        str(bin_.stat().st_size), "18446744073709551616"))
    data.set(key, value)
    _save(tree, xml)
    return f"{key}={value}"


def m_fq_levels(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    fqs = _layers(tree, ("FakeQuantize",))
    if not fqs:
        return m_attr_value(rng, xml, bin_)
    data = rng.choice(fqs).find("data")
    value = rng.choice(("many", "0", "1", "2", "3", "15", "16", "255", "65536", "-256", "1.5", "", "4294967297"))
    data.set("levels", value)
    _save(tree, xml)
    return value


def m_axes_pads(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    keys = ("axis", "axes", "pads_begin", "pads_end", "strides", "dilations", "kernel", "group", "reduction_axes",
            "special_zero", "transpose_a", "transpose_b", "num_splits", "batch_dims")
    pairs = [(d, k) for d, k in _data_attr_targets(tree) if k in keys]
    if not pairs:
        return m_attr_value(rng, xml, bin_)
    data, key = rng.choice(pairs)
    value = rng.choice(("0", "1", "-1", "4", "-5", "99", "0,0", "1,1,1", "0,0,0,0,0", "2,2", "-1,-1", "true", ""))
    data.set(key, value)
    _save(tree, xml)
    return f"{data.getparent().get('type')}.{key}={value}"


def m_opset_version(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    layer = rng.choice(_layers(tree))
    value = rng.choice(("opset1", "opset3", "opset4", "opset6", "opset8", "opset11", "opset13", "opset99", "",
                        "extension", "ie_internal_opset"))
    layer.set("version", value)
    _save(tree, xml)
    return f"{layer.get('type')} -> {value}"


def m_op_type(rng: random.Random, xml: Path, bin_: Path) -> str:
    tree = _tree(xml)
    layer = rng.choice(_layers(tree))
    old = layer.get("type")
    layer.set("type", rng.choice(OP_TYPES))
    _save(tree, xml)
    return f"{old} -> {layer.get('type')}"


def m_bin_truncate(rng: random.Random, xml: Path, bin_: Path) -> str:
    raw = bin_.read_bytes()
    cut = rng.randrange(len(raw)) if rng.random() < 0.8 else 0
    bin_.write_bytes(raw[:cut])
    return f"at {cut} of {len(raw)}"


def m_fq_nan_inf(rng: random.Random, xml: Path, bin_: Path) -> str:
    """NaN, inf or extreme values written into the bytes of a FakeQuantize interval (or any f32 Const)."""
    tree = _tree(xml)
    consts = {l.get("id"): l for l in _layers(tree, ("Const",)) if l.find("data").get("element_type") == "f32"}
    feeding_fq = {e.get("from-layer") for e in tree.getroot().iter("edge")
                  if e.get("from-layer") in consts and e.get("to-port") in ("1", "2", "3", "4")
                  and any(l.get("id") == e.get("to-layer") and l.get("type") == "FakeQuantize" for l in _layers(tree))}
    pool = sorted(feeding_fq) if feeding_fq and rng.random() < 0.8 else sorted(consts)
    if not pool:
        return m_bin_truncate(rng, xml, bin_)
    data = consts[rng.choice(pool)].find("data")
    offset, size = int(data.get("offset")), int(data.get("size"))
    value = rng.choice((math.nan, math.inf, -math.inf, 3.4e38, -3.4e38, 0.0, 1e-45))
    raw = bytearray(bin_.read_bytes())
    count = size // 4
    for i in (range(count) if rng.random() < 0.5 else [rng.randrange(count)]):
        raw[offset + 4 * i: offset + 4 * i + 4] = struct.pack("<f", value)
    bin_.write_bytes(bytes(raw))
    return f"{data.getparent().get('name')}={value}"


IR_MUTATIONS: dict[str, Callable[[random.Random, Path, Path], str]] = {
    name[2:]: fn for name, fn in globals().items() if name.startswith("m_")}


# --- config mutations ---------------------------------------------------------------------
TRANSFORMATION_NAMES = ("ConvolutionTransformation", "MatMulTransformation", "FakeQuantizeDecompositionTransformation",
                        "AddTransformation", "MultiplyPartialTransformation", "ConcatTransformation",
                        "FuseConvertTransformation", "FoldFakeQuantizeTransformation", "LinOpSequenceFusion",
                        "PullReshapeThroughDequantization", "ReshapeTransformation", "MaxPoolTransformation",
                        "AvgPoolTransformation", "NoSuchTransformation")
WRONG_TYPED = (None, 1, -1, 2.5, "yes", "", [], {}, [[1]], {"a": 1}, True, "f32", ["u8"], "2020-01-01", 10**30)


def _valid_config(rng: random.Random) -> dict[str, Any]:
    """A random config that follows the schema."""
    types = ["u8", "i8"]
    cfg: dict[str, Any] = {}
    if rng.random() < 0.5:
        cfg["update_precisions"] = rng.random() < 0.5
    if rng.random() < 0.5:
        # f32 only: with f16 dequantization the CPU plugin refuses some of lpt's outputs (mobilenet:
        # "could not append an elementwise post-op" on an f16 FakeQuantize after an f16 Convolution),
        # an LPT-semantics finding reported separately, not an input-robustness one.
        cfg["deq_precision"] = "f32"
    if rng.random() < 0.5:
        cfg["default_precisions"] = rng.sample(types, rng.randint(1, 2))
    for key in ("asymmetric_quantization", "asymmetric_weights", "common_optimizations"):
        if rng.random() < 0.4:
            cfg[key] = rng.random() < 0.5
    if rng.random() < 0.5:
        cfg["restrictions"] = {
            "precisions": [{"op": rng.choice(("Convolution", "MatMul", "Add", "Multiply")),
                            "ports": {p: rng.sample(types, rng.randint(1, 2)) for p in range(rng.randint(0, 2))}}],
            "per_tensor": [{"op": rng.choice(("Convolution", "MatMul")), "ports": [0]}]}
    if rng.random() < 0.5:
        names = [n for n in TRANSFORMATION_NAMES if n != "NoSuchTransformation"]
        cfg["transformations"] = {rng.choice(("only", "disable")): rng.sample(names, rng.randint(0, 5))}
    if rng.random() < 0.3:
        cfg["params"] = {"skip_bias_add": rng.random() < 0.5, "support_3d_tensor_on_activations": True}
    return cfg


def _paths(cfg: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(cfg, dict):
        for k, v in cfg.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(cfg, list):
        for i, v in enumerate(cfg):
            out += _paths(v, (*prefix, i))
    return out


def _set(cfg: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = cfg
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return cfg


def config_mutation(rng: random.Random) -> tuple[str, str]:
    """(kind, YAML text)."""
    import yaml

    cfg = _valid_config(rng)
    kind = rng.choice(("valid", "wrong_type", "bad_value", "unknown_key", "deep", "yaml_bytes", "yaml_tag"))
    if kind == "wrong_type" or kind == "bad_value":
        path = rng.choice(_paths(cfg)[1:] or [("deq_precision",)])
        if kind == "wrong_type":
            value = rng.choice(WRONG_TYPED)
        else:
            value = rng.choice(("nf4", "u4", "bf16", "f64", "i64", "boolean", "NoSuchTransformation", "Convolution",
                                -1, 99, "x" * 200, "u1", "string"))
        cfg = _set(cfg, path, value)
    elif kind == "unknown_key":
        where = rng.choice([p for p in _paths(cfg) if isinstance(_get(cfg, p), dict)])
        _get(cfg, where)[rng.choice(("onl", "Restrictions", "ports", "op", 7, "precisions", "x" * 200))] = [1]
    elif kind == "deep" and rng.random() < 0.5:  # written as text: PyYAML's dumper recurses
        depth = rng.choice((100, 1200, 5000))
        nested = "".join(rng.choice("[{") for _ in range(depth))
        closing = "".join("]" if c == "[" else ": 1}" for c in reversed(nested))
        key = rng.choice(("params", "restrictions", "transformations", "default_precisions"))
        return "cfg_deep", f"{yaml.safe_dump(cfg) if cfg else ''}{key}: {nested}u8{closing}\n"
    elif kind == "deep":
        depth = rng.choice((5, 20, 60))
        value: Any = "u8"
        for _ in range(depth):
            value = [value] if rng.random() < 0.5 else {"k": value}
        cfg = _set(cfg, rng.choice(_paths(cfg)[1:] or [("params",)]), value)
    if kind in ("yaml_bytes", "yaml_tag"):
        text = yaml.safe_dump(cfg)
        if kind == "yaml_bytes":
            raw = bytearray(text.encode())
            for _ in range(rng.randint(1, 5)):
                raw.insert(rng.randrange(len(raw) + 1), ord(rng.choice(":[]{}-&*!%@`|>'\"\t\n ,#\x00")))
            return f"cfg_{kind}", raw.decode("utf-8", errors="replace")
        tag = rng.choice(("!!python/object:os.system", "!custom", "!!binary", "!!set", "!!timestamp", "!!omap",
                          "!!float", "!!str"))
        return f"cfg_{kind}", f"deq_precision: {tag} f32\n" + text
    return f"cfg_{kind}", yaml.safe_dump(cfg, default_flow_style=rng.random() < 0.5)


def _get(cfg: Any, path: tuple) -> Any:
    for key in path:
        cfg = cfg[key]
    return cfg


# --- one run ------------------------------------------------------------------------------
_CHECKER: CompileChecker | None = None


def _worker_init() -> None:
    global _CHECKER
    import warnings

    warnings.simplefilter("always")  # a warning is a finding every time, not only the first
    _CHECKER = CompileChecker(timeout=CHECK_SECONDS)
    signal.signal(signal.SIGALRM, _on_alarm)


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise Hang()


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _prepare(seed: int, index: int, is_config: bool, work: Path) -> Case:
    rng = random.Random(f"{seed}:{index}:{'cfg' if is_config else 'ir'}")
    model = rng.choice(MODELS)
    inputs = work / "in"
    inputs.mkdir(parents=True)
    xml, bin_ = inputs / "model.xml", inputs / "model.bin"
    shutil.copyfile(FIXTURES / f"{model}.xml", xml)
    shutil.copyfile(FIXTURES / f"{model}.bin", bin_)
    if is_config:
        kind, text = config_mutation(rng)
        config = work / "cfg" / "config.yaml"
        config.parent.mkdir()
        config.write_text(text, encoding="utf-8")
        return Case(kind, model, xml, str(config), text[:200].replace("\n", " | "))
    kind = rng.choice(sorted(IR_MUTATIONS))
    detail = IR_MUTATIONS[kind](rng, xml, bin_)
    return Case(kind, model, xml, rng.choice(PROFILES), detail)


def run_one(args: tuple[int, int, bool, str]) -> dict[str, Any]:
    """Mutates, runs lpt, classifies; saves a reproducer for a defect."""
    from click.testing import CliRunner

    from lpt_cli.cli.main import main

    seed, index, is_config, defects_dir = args
    assert _CHECKER is not None
    work = Path(tempfile.mkdtemp(prefix="lptfuzz-"))
    try:
        try:
            case = _prepare(seed, index, is_config, work)
        except Exception as exc:  # noqa: BLE001 - a mutator that does not apply to this fixture
            return {"index": index, "kind": "skipped", "cls": "skipped", "why": f"{type(exc).__name__}: {exc}"[:120]}
        out_dir = work / "out"
        out_dir.mkdir()
        out = out_dir / "out.xml"
        before = _digest(case.xml.parent)
        argv = ["transform", str(case.xml), "-o", str(out), "-q", "--config", case.config]
        started = time.perf_counter()
        signal.alarm(HANG_SECONDS)
        try:
            result = CliRunner().invoke(main, argv, catch_exceptions=True)
            code, stderr = result.exit_code, result.stderr
            trace = result.exc_info if result.exception is not None and not isinstance(result.exception, SystemExit) else None
        except Hang:
            code, stderr, trace = None, "", None
        finally:
            signal.alarm(0)
        seconds = time.perf_counter() - started
        lines = [line for line in stderr.splitlines() if line.strip()]
        left = sorted(p.name for p in out_dir.iterdir())
        why, cls = "", "clean error"
        if code is None:
            cls, why = "DEFECT", f"hang over {HANG_SECONDS} s"
        elif trace is not None:
            cls, why = "DEFECT", f"uncaught {type(result.exception).__name__}: {result.exception}"
        elif _digest(case.xml.parent) != before:
            cls, why = "DEFECT", "the input changed"
        elif code == 2:
            if len(lines) != 1 or not lines[0].startswith("lpt: error: "):
                cls, why = "DEFECT", f"exit 2 with {len(lines)} stderr lines: {stderr[:300]!r}"
            elif left:
                cls, why = "DEFECT", f"output left behind on error: {left}"
            elif len(lines[0]) > 400:
                cls, why = "DEFECT", f"error line of {len(lines[0])} characters"
        elif code == 0:
            cls = "ok"
            if any(not line.startswith("lpt: warning: ") for line in lines):
                cls, why = "DEFECT", f"stderr on success: {stderr[:300]!r}"
            else:
                out_why = _CHECKER.check(out)
                if out_why is not None:
                    if _CHECKER.check(case.xml) is None:
                        cls, why = "DEFECT", f"OpenVINO rejects the output of a valid input: {out_why}"
                    else:
                        cls = "ok, input invalid"
        else:
            cls, why = "DEFECT", f"exit {code}: {' | '.join(lines)[:300]}"
        record = {"index": index, "kind": case.kind, "cls": cls, "why": why, "model": case.model,
                  "detail": case.detail, "seconds": round(seconds, 3)}
        if cls == "DEFECT":
            record["saved"] = str(_save_defect(Path(defects_dir), case, index, argv, record, work))
        return record
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _save_defect(folder: Path, case: Case, index: int, argv: list[str], record: dict[str, Any], work: Path) -> Path:
    target = folder / f"{index:05d}_{case.kind}"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(work / "in", target)
    config = case.config
    if (work / "cfg").is_dir():
        shutil.copy(work / "cfg" / "config.yaml", target / "config.yaml")
        config = "config.yaml"
    command = f"python -m lpt_cli transform model.xml -o /tmp/out.xml --config {config}"
    (target / "README.txt").write_text(
        f"{record['why']}\nmutation: {case.kind} on {case.model}: {case.detail}\n"
        f"reproduce (in this folder, PYTHONPATH=<repo>): {command}\n", encoding="utf-8")
    return target


# --- main ---------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1500, help="mutated IRs")
    parser.add_argument("--configs", type=int, default=300, help="mutated configs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--defects", type=Path, default=Path("fuzz-defects"), help="folder for reproducers")
    opts = parser.parse_args()
    records = fuzz(opts.runs, opts.configs, opts.seed, opts.jobs, opts.defects)
    print_report(records)
    return 1 if any(r["cls"] == "DEFECT" for r in records) else 0


def fuzz(runs: int, configs: int, seed: int, jobs: int, defects: Path) -> list[dict[str, Any]]:
    """Runs `runs` IR and `configs` config mutations; returns one record per run."""
    defects.mkdir(parents=True, exist_ok=True)
    tasks = [(seed, i, False, str(defects.resolve())) for i in range(runs)]
    tasks += [(seed, runs + i, True, str(defects.resolve())) for i in range(configs)]
    with Pool(jobs, initializer=_worker_init, maxtasksperchild=400) as pool:
        return list(pool.imap_unordered(run_one, tasks, chunksize=4))


def print_report(records: list[dict[str, Any]]) -> None:
    classes = ("ok", "ok, input invalid", "clean error", "DEFECT", "skipped")
    by_kind: dict[str, Counter[str]] = {}
    for r in records:
        by_kind.setdefault(r["kind"], Counter())[r["cls"]] += 1
    total = Counter(r["cls"] for r in records)
    width = max((len(k) for k in by_kind), default=10)
    print(f"{'mutation':<{width}} " + " ".join(f"{c:>17}" for c in classes))
    for kind in sorted(by_kind):
        print(f"{kind:<{width}} " + " ".join(f"{by_kind[kind][c]:>17}" for c in classes))
    print(f"{'TOTAL':<{width}} " + " ".join(f"{total[c]:>17}" for c in classes))
    defects = [r for r in records if r["cls"] == "DEFECT"]
    seconds = sum(r.get("seconds", 0) for r in records)
    print(f"\n{len(records)} runs, {len(defects)} defects, lpt time {seconds:.0f} s")
    for why, count in Counter(r["why"] for r in records if r["cls"] == "skipped").most_common(5):
        print(f"skipped x{count} (the mutation does not apply to the fixture): {why}")
    for r in sorted(defects, key=lambda r: r["index"]):
        print(f"DEFECT #{r['index']} {r['kind']} ({r['model']}: {r['detail'][:60]}): {r['why'][:200]}\n"
              f"    -> {r['saved']}")


if __name__ == "__main__":
    sys.exit(main())
