"""Loads the reference cases (fixtures/lpt-cases, format in its FORMAT.md) into `Graph`s.

Graphs are built with the graph API directly, the way the IR reader would leave them:
attributes as IR strings, Results last, every value with an element type and a shape
(shapes come from OpenVINO, see shapes.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from lpt_cli.ir.eltypes import ElementType, element_type
from lpt_cli.ir.graph import Graph, Output

from . import shapes
from .yamlio import case_names, load_yaml

CASES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "lpt-cases"

DEFAULT_VERSIONS = {
    "Gather": "opset8", "Interpolate": "opset4", "MVN": "opset6", "Pad": "opset12",
    "Broadcast": "opset3", "SpaceToBatch": "opset2", "BatchToSpace": "opset2",
}


class CaseError(ValueError):
    """A case file this kit cannot turn into graphs."""


@dataclass
class Case:
    """One reference case: `input` run through LPT under `config` must give `expected`."""

    id: str  # group/file::case
    note: str
    config: dict[str, Any]
    input: Graph
    expected: Graph
    numerics: dict[str, Any] = field(default_factory=dict)  # {"skip": reason} / {"shapes": {...}}


def case_files(root: Path = CASES_DIR) -> list[Path]:
    return sorted(root.glob("*/*.yaml"))


@lru_cache(maxsize=None)
def case_ids(root: Path = CASES_DIR) -> tuple[str, ...]:
    """Every case's id, `group/file::case`, in file order (the files are parsed, not loaded:
    three test modules call this at collection; each case is built when its test runs)."""
    return tuple(f"{_file_id(path)}::{name}" for path in case_files(root) for name in case_names(path))


def _file_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _raw_case(case_id: str, root: Path) -> dict[str, Any]:
    file_part, _, name = case_id.partition("::")
    raw = next((c for c in load_yaml(root / f"{file_part}.yaml")["cases"] if c["name"] == name), None)
    if raw is None:
        raise CaseError(f"no case {case_id!r}")
    return raw


def case_numerics(case_id: str, root: Path = CASES_DIR) -> dict[str, Any]:
    """The case's `numerics:` options without building its graphs."""
    return numerics_options(_raw_case(case_id, root))


def load_case(case_id: str, root: Path = CASES_DIR) -> Case:
    """Builds the case `group/file::case` fresh (callers may mutate its graphs)."""
    raw = _raw_case(case_id, root)
    name = raw["name"]
    try:
        return Case(
            id=case_id, note=raw.get("note", ""), config=raw.get("config") or {},
            input=build_graph(raw["input"], f"{name}_input"),
            expected=build_graph(raw["expected"], f"{name}_expected"),
            numerics=numerics_options(raw),
        )
    except Exception as exc:
        raise CaseError(f"{case_id}: {exc}") from exc


def load_input(case_id: str, root: Path = CASES_DIR) -> Graph:
    """The case's input graph alone, built fresh: the untouched reference the numerics checks
    compare a transformed copy with (the expected graph is not built)."""
    raw = _raw_case(case_id, root)
    try:
        return build_graph(raw["input"], f"{raw['name']}_input")
    except Exception as exc:
        raise CaseError(f"{case_id}: {exc}") from exc


def numerics_options(raw: dict[str, Any]) -> dict[str, Any]:
    """The case's `numerics:` in one form: `skip` (a reason) and/or `shapes`."""
    value = raw.get("numerics")
    if value is None:
        return {}
    if isinstance(value, str):
        head, _, reason = value.partition(":")
        if head.strip() != "skip":
            raise CaseError(f"numerics: {value!r} is not 'skip' or 'skip: reason'")
        return {"skip": reason.strip() or raw.get("note", "") or "skip"}
    return dict(value)


def build_graph(spec: dict[str, Any], name: str) -> Graph:
    return _Builder(spec, name).build()


class _Builder:
    """Adds the nodes of one graph spec in topological order (ties: listing order)."""

    def __init__(self, spec: dict[str, Any], name: str) -> None:
        self.graph = Graph(name)
        self.specs = {node["name"]: node for node in spec["nodes"]}
        if len(self.specs) != len(spec["nodes"]):
            raise CaseError(f"{name}: duplicate node names")
        self.outputs_spec = spec["outputs"]
        self.built: dict[str, list[Output]] = {}
        self.mirror: dict[int, Any] = {}  # id(Output) -> OpenVINO output
        self.visiting: set[str] = set()

    def build(self) -> Graph:
        for node_name in self.specs:
            self._node(node_name)
        for ref in self.outputs_spec:
            self.graph.add_node("Result", [self._ref(ref)], name=self.graph.unique_name("Result"))
        return self.graph

    def _ref(self, ref: Any) -> Output:
        if isinstance(ref, dict):
            return self._inline_constant(ref)
        node_name, port = str(ref), 0
        head, sep, tail = node_name.rpartition(":")
        if sep and tail.isdigit() and head in self.specs:
            node_name, port = head, int(tail)
        if node_name not in self.specs:
            raise CaseError(f"unknown node {node_name!r}")
        return self._node(node_name)[port]

    def _node(self, node_name: str) -> list[Output]:
        if node_name in self.built:
            return self.built[node_name]
        if node_name in self.visiting:
            raise CaseError(f"cycle through {node_name!r}")
        self.visiting.add(node_name)
        spec = self.specs[node_name]
        if spec["op"] == "Parameter":
            outputs = [self._parameter(spec)]
        elif spec["op"] == "Constant":
            outputs = [self._constant(spec["value"], spec["type"], spec.get("shape"), node_name)]
        else:
            outputs = self._operation(spec, [self._ref(ref) for ref in spec.get("inputs", [])])
        self.built[node_name] = outputs
        return outputs

    def _parameter(self, spec: dict[str, Any]) -> Output:
        etype, dims = element_type(spec["type"]), tuple(int(d) for d in spec["shape"])
        attrs = {"shape": ",".join("?" if d < 0 else str(d) for d in dims), "element_type": etype.name}
        node = self.graph.add_node("Parameter", outputs=[(etype, dims)], attrs=attrs,
                                   version=spec.get("version", "opset1"), name=spec["name"])
        self.mirror[id(node.output())] = shapes.parameter(etype, dims)
        return node.output()

    def _constant(self, value: Any, etype_name: str, shape: Any, node_name: str | None) -> Output:
        etype = element_type(etype_name)
        array = np.asarray(value)
        if shape is not None and array.ndim and list(array.shape) != list(shape):
            raise CaseError(f"constant {node_name!r}: value has shape {list(array.shape)}, not {shape}")
        node = self.graph.add_constant(array, etype, shape=shape, name=node_name)
        self.mirror[id(node.output())] = shapes.constant(node.value, etype)
        return node.output()

    def _inline_constant(self, ref: dict[str, Any]) -> Output:
        value = ref["value"]
        return self._constant(value, ref.get("type", "f32"), ref.get("shape", np.shape(value)), None)

    def _operation(self, spec: dict[str, Any], inputs: list[Output]) -> list[Output]:
        op = spec["op"]
        version = spec.get("version", DEFAULT_VERSIONS.get(op, "opset1"))
        yaml_attrs = spec.get("attrs") or {}
        mirror = shapes.operation(op, version, [self.mirror[id(src)] for src in inputs], yaml_attrs)
        types = _output_types(spec, inputs, mirror)
        outs = [(etype, shapes.to_shape(mirror.get_output_partial_shape(k))) for k, etype in enumerate(types)]
        node = self.graph.add_node(op, inputs, outputs=outs, version=version, name=spec["name"],
                                   attrs={key: attr_to_ir(val) for key, val in yaml_attrs.items()})
        for k, out in enumerate(node.outputs):
            self.mirror[id(out)] = mirror.output(k)
        return node.outputs


def _output_types(spec: dict[str, Any], inputs: list[Output], mirror: Any) -> list[ElementType]:
    """Output 0: `type`, else Convert's destination, else input 0's; further outputs: the
    mirror's integer type (indices), else output 0's."""
    if "type" in spec:
        first = element_type(spec["type"])
    elif spec["op"] == "Convert":
        first = element_type(str(spec["attrs"]["destination_type"]))
    elif inputs:
        first = inputs[0].element_type
    else:
        raise CaseError(f"node {spec['name']!r}: no inputs, so write its `type`")
    types = [first]
    for k in range(1, mirror.get_output_size()):
        name = mirror.get_output_element_type(k).get_type_name()
        types.append(element_type(name) if name in ("i32", "i64") else first)
    return types


def attr_to_ir(value: Any) -> str:
    """A YAML attribute value as IR `<data>` spells it: lists joined by ", ", true/false."""
    if isinstance(value, (list, tuple)):
        return ", ".join(attr_to_ir(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if math.isfinite(value) and value.is_integer() else repr(value)
    return str(value).strip()
