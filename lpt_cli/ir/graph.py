"""The in-memory graph lpt reads an IR into, transforms, and writes back.

Values are SSA-style: each `Output` is produced by exactly one node and knows the `Input`
slots that consume it, so "replace all uses" costs O(uses). Nodes live in an
insertion-ordered dict: removal is O(1) and iterating over `list(graph.nodes)` while
mutating is safe (check `node.alive`). Anything the transformations do not understand
(rt_info, port names, sub-graph bodies, unknown child elements) rides along in opaque
`xml_*` fields that only the reader and writer interpret.
"""
from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar, cast, overload

import math
import re

import numpy as np

from ..errors import IRReadError, clip
from .constant import ConstantData
from .eltypes import ElementType, element_type

Dim = int  # -1 is a dynamic dimension
Shape = tuple[Dim, ...] | None  # None is a dynamic rank


_INT = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: str.isdigit() accepts '²' and '\u0661'
_BOOL_SPELLINGS = {"true": True, "1": True, "false": False, "0": False}
T = TypeVar("T")
MAX_ATTR_INT = 2**62  # far beyond any real size or index, well inside int64 and numpy


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector waits while a graph is built or rewritten: that makes tens of
    thousands of long-lived objects and next to no cyclic garbage, and the collector's passes
    over them grow with the model (about a third of the pipeline's CPU on a 50,000-node
    chain, a tenth of reading). It is enabled again afterwards only if it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class AttributeValueError(IRReadError):
    """A layer attribute (or constant input) lpt needs has a value it cannot use (bad input, exit 2)."""


class GraphError(ValueError):
    """A structural problem with a graph (dangling edge, cycle, misuse of the API)."""


class Output:
    """Output port `index` of `node`: a value with an element type and a (partial) shape."""

    __slots__ = ("node", "index", "element_type", "shape", "uses", "names", "xml_rt_info", "annotations")

    def __init__(self, node: Node, index: int, etype: ElementType, shape: Shape) -> None:
        self.node = node
        self.index = index
        self.element_type = etype
        self.shape = shape
        self.uses: list[Input] = []
        self.names: str | None = None  # the port's `names` attribute, verbatim
        self.xml_rt_info: Any = None
        self.annotations: dict[str, Any] = {}

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(d >= 0 for d in self.shape)

    @property
    def dims(self) -> tuple[Dim, ...]:
        """The shape, for code that needs the rank (dimensions may still be -1): a dynamic
        rank there is a GraphError naming the value instead of a TypeError on None."""
        if self.shape is None:
            raise GraphError(f"{self!r}: the rank is dynamic")
        return self.shape

    def consumers(self) -> list[Input]:
        return list(self.uses)

    def consumer_nodes(self) -> list[Node]:
        return [use.node for use in self.uses]

    def replace_all_uses_with(self, other: Output, *, skip: Node | None = None) -> None:
        """Re-points every consumer of this value (except `skip`) to `other`."""
        if other is self:
            return
        for use in list(self.uses):
            if use.node is not skip:
                use.set_source(other)

    def __repr__(self) -> str:
        return f"{self.node.name}:{self.index}<{self.element_type}{list(self.shape) if self.shape is not None else '[?]'}>"


class Input:
    """Input slot `index` of `node`, fed by `source`."""

    __slots__ = ("node", "index", "source", "xml_rt_info", "annotations")

    def __init__(self, node: Node, index: int, source: Output) -> None:
        self.node = node
        self.index = index
        self.source = source
        self.xml_rt_info: Any = None
        self.annotations: dict[str, Any] = {}
        source.uses.append(self)

    def set_source(self, new: Output) -> None:
        """Re-wires this slot to `new`, keeping both use lists right."""
        old = self.source
        old.uses.remove(self)
        self.source = new
        new.uses.append(self)
        graph = self.node.graph
        graph.structure_changed()
        if graph._upstream:
            graph._rewired(old.node, new.node)


class Node:
    """One operation. `attrs` holds the `<data>` attributes as the IR spells them (strings)."""

    __slots__ = (
        "graph", "id", "name", "type", "version", "attrs", "inputs", "outputs", "data",
        "alive", "annotations", "xml_rt_info", "xml_extra", "xml_attrs",
    )

    def __init__(self, graph: Graph, node_id: int, name: str, op_type: str, version: str,
                 attrs: dict[str, str]) -> None:
        self.graph = graph
        self.id = node_id
        self.name = name
        self.type = op_type
        self.version = version
        self.attrs = attrs
        self.inputs: list[Input] = []
        self.outputs: list[Output] = []
        self.data: ConstantData | None = None  # Constant nodes only
        self.alive = True
        self.annotations: dict[str, Any] = {}  # free-form per-node facts (LPT attributes live here)
        self.xml_rt_info: Any = None  # opaque <rt_info> element
        self.xml_extra: list[Any] = []  # opaque other children (bodies, port_map, back_edges)
        self.xml_attrs: dict[str, str] = {}  # other <layer> attributes (e.g. Result output_names)

    # --- navigation -------------------------------------------------------------------
    def output(self, index: int = 0) -> Output:
        return self.outputs[index]

    def input_value(self, index: int) -> Output:
        return self.inputs[index].source

    def input_node(self, index: int) -> Node:
        return self.inputs[index].source.node

    def input_values(self) -> list[Output]:
        return [slot.source for slot in self.inputs]

    def consumers(self) -> list[Node]:
        """All consumer nodes of all outputs, in use order (duplicates kept)."""
        return [use.node for out in self.outputs for use in out.uses]

    @property
    def is_constant(self) -> bool:
        return self.type == "Constant"

    @property
    def constant_data(self) -> ConstantData:
        """The data of a Constant (type, shape, count without decoding it)."""
        if self.data is None:
            raise GraphError(f"node {self.name!r} ({self.type}) is not a Constant")
        return self.data

    @property
    def value(self) -> np.ndarray:
        """Decoded value of a Constant (reads the .bin only now)."""
        return self.constant_data.array()

    # --- attributes -------------------------------------------------------------------
    # Attributes are strings from the IR; each accessor validates what it parses, so a bad
    # value is one clear error naming the file, layer and attribute (never a bare ValueError).
    # With a default the result is never None: the overloads let callers skip the check.
    @overload
    def attr(self, key: str, default: str) -> str: ...
    @overload
    def attr(self, key: str, default: None = None) -> str | None: ...
    def attr(self, key: str, default: str | None = None) -> str | None:
        return self.attrs.get(key, default)

    @overload
    def attr_int(self, key: str, default: int) -> int: ...
    @overload
    def attr_int(self, key: str, default: None = None) -> int | None: ...
    def attr_int(self, key: str, default: int | None = None) -> int | None:
        raw = self.attrs.get(key)
        return default if raw is None else self._parse_int(key, raw, raw)

    def attr_ints(self, key: str) -> list[int]:
        raw = self.attrs.get(key, "")
        items = [v.strip() for v in raw.split(",")]
        if items == [""]:
            return []
        if "" in items:
            raise self.attr_error(key, raw, "expected comma-separated integers")
        return [self._parse_int(key, raw, item) for item in items]

    def attr_bool(self, key: str, default: bool = False) -> bool:
        raw = self.attrs.get(key)
        if raw is None:
            return default
        value = raw.strip().lower()
        if value not in _BOOL_SPELLINGS:
            raise self.attr_error(key, raw, "expected true or false")
        return _BOOL_SPELLINGS[value]

    def attr_float(self, key: str, default: float | None = None) -> float | None:
        raw = self.attrs.get(key)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise self.attr_error(key, raw, "expected a number") from None
        if math.isnan(value):
            raise self.attr_error(key, raw, "expected a number, not NaN")
        return value

    def _parse_int(self, key: str, raw: str, item: str) -> int:
        text = item.strip()
        if not _INT.fullmatch(text):
            raise self.attr_error(key, raw, "expected an integer")
        value = int(text)
        if abs(value) > MAX_ATTR_INT:
            raise self.attr_error(key, raw, "integer out of range")
        return value

    def attr_error(self, key: str, raw: str, expected: str) -> AttributeValueError:
        """The one-line error for a bad attribute value of this layer."""
        return self.error(f"attribute {key}={clip(raw)!r}: {expected}")

    def axis(self, value: int, rank: int, what: str = "axis") -> int:
        """`value` as an axis of a rank-`rank` tensor (negative counts from the end); an axis
        outside the rank is bad input, not an IndexError later."""
        if not -rank <= value < rank:
            raise self.error(f"{what} {value} is outside the rank {rank}")
        return value + rank if value < 0 else value

    def error(self, problem: str) -> AttributeValueError:
        """A bad-input error naming the file and this layer (e.g. an axis outside the rank)."""
        source = f"{self.graph.source}: " if self.graph.source else ""
        return AttributeValueError(f"{source}layer {self.id} '{clip(self.name)}' ({self.type}): {problem}")

    # --- mutation ---------------------------------------------------------------------
    def set_input(self, index: int, source: Output) -> None:
        self.inputs[index].set_source(source)

    def add_input(self, source: Output) -> Input:
        slot = Input(self, len(self.inputs), source)
        self.inputs.append(slot)
        self.graph.structure_changed()
        return slot

    def add_output(self, etype: ElementType | str, shape: Shape) -> Output:
        out = Output(self, len(self.outputs), element_type(etype), None if shape is None else tuple(shape))
        self.outputs.append(out)
        return out

    def __repr__(self) -> str:
        return f"<{self.type} {self.name!r} #{self.id}>"


TypeSignature = tuple[tuple[ElementType, ...], tuple[ElementType, ...]]  # (inputs, outputs)


def type_signature(node: Node) -> TypeSignature:
    """The element types `node` reads and makes, port by port."""
    return (tuple(slot.source.element_type for slot in node.inputs), tuple(out.element_type for out in node.outputs))


class Graph:
    """A model: nodes, ordered Parameters and Results, and model-level opaque XML."""

    def __init__(self, name: str = "model") -> None:
        self.name = name
        self.source: str | None = None  # the file it was read from, for error messages
        self.nodes: dict[int, Node] = {}
        self.parameters: list[Node] = []
        self.results: list[Node] = []
        self.xml_model_extra: list[Any] = []  # opaque <rt_info>, <meta_data> of the model
        self.xml_blob: Any = None  # the .bin that offsets inside opaque xml (bodies) point into
        self._next_id = 0
        self._names: set[str] = set()
        self._upstream: dict[frozenset[str], set[int]] = {}  # has_upstream's positive answers
        self._structure = 0  # counts the changes of nodes and wiring: what an order depends on
        self._by_structure: dict[str, tuple[int, Any]] = {}
        # Per node id, the (input, output) element types the model was read with: what a pass
        # changed (a FakeQuantize made u8, weights made i8) differs from it, a node it made has none.
        self.read_types: dict[int, TypeSignature] = {}

    def structure_changed(self) -> None:
        """Called on each added or removed node and each (re)wired input."""
        self._structure += 1

    def per_structure(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()`, remembered under `key` until the nodes or their wiring change: a run of
        passes that finds nothing to rewrite sorts the model once, not once per pass."""
        known = self._by_structure.get(key)
        if known is not None and known[0] == self._structure:
            return cast(T, known[1])
        value = compute()
        self._by_structure[key] = (self._structure, value)
        return value

    @property
    def next_id(self) -> int:
        """The id the next new node gets; nodes with ids >= a saved value are newer."""
        return self._next_id

    def __iter__(self) -> Iterator[Node]:
        return iter(list(self.nodes.values()))

    def __len__(self) -> int:
        return len(self.nodes)

    # --- building ---------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        name, k = base, 1
        while name in self._names:
            name = f"{base}_{k}"
            k += 1
        return name

    def add_node(
        self,
        op_type: str,
        inputs: Sequence[Output] = (),
        *,
        outputs: Iterable[tuple[ElementType | str, Shape]] = (),
        attrs: dict[str, str] | None = None,
        version: str = "opset1",
        name: str | None = None,
        node_id: int | None = None,
    ) -> Node:
        """Creates a node wired to `inputs` with the given output (type, shape) pairs."""
        if node_id is None:
            node_id = self._next_id
        if node_id in self.nodes:
            raise GraphError(f"duplicate layer id {node_id}")
        self._next_id = max(self._next_id, node_id + 1)
        name = name if name is not None else self.unique_name(f"{op_type}_{node_id}")
        self._names.add(name)
        node = Node(self, node_id, name, op_type, version, dict(attrs or {}))
        for source in inputs:
            node.add_input(source)
        for etype, shape in outputs:
            node.add_output(etype, shape)
        self.nodes[node_id] = node
        self.structure_changed()
        if op_type == "Parameter":
            self.parameters.append(node)
        elif op_type == "Result":
            self.results.append(node)
        return node

    def add_constant(self, value: np.ndarray | float, etype: ElementType | str | None = None,
                     *, shape: Sequence[int] | None = None, name: str | None = None) -> Node:
        """A Constant holding `value` (cast to `etype`; reshaped to `shape` when given)."""
        array = np.asarray(value)
        et = element_type(etype) if etype is not None else None
        return self.add_constant_data(ConstantData.from_array(array, et, shape), name=name)

    def add_constant_data(self, data: ConstantData, *, name: str | None = None) -> Node:
        """A Constant holding `data` as it is (a slice of the input .bin stays one)."""
        node = self.add_node(
            "Constant", outputs=[(data.element_type, data.shape)],
            attrs={"element_type": data.element_type.name, "shape": ",".join(map(str, data.shape))},
            name=name or self.unique_name(f"Constant_{self._next_id}"),
        )
        node.data = data
        return node

    def rename(self, node: Node, name: str) -> None:
        """Gives `node` a new name (which must be free), keeping the name registry right."""
        self._names.discard(node.name)
        node.name = name
        self._names.add(name)

    # --- removal ----------------------------------------------------------------------
    def remove(self, node: Node) -> None:
        """Detaches and deletes `node`; its outputs must have no consumers left."""
        for out in node.outputs:
            if out.uses:
                raise GraphError(f"cannot remove {node!r}: output {out.index} still has consumers")
        for slot in node.inputs:
            slot.source.uses.remove(slot)
        node.inputs = []
        node.alive = False
        del self.nodes[node.id]
        self.structure_changed()
        self._names.discard(node.name)  # a replacement may take the name over
        # (a node's type never changes: only a Parameter or Result can be in these lists,
        # and scanning them for every removal was quadratic in a model with many outputs)
        if node.type == "Parameter" and node in self.parameters:
            self.parameters.remove(node)
        elif node.type == "Result" and node in self.results:
            self.results.remove(node)

    def remove_dead(self) -> int:
        """Deletes nodes whose values reach no Result or sink; returns how many went."""
        alive = set()
        stack = [n for n in self.nodes.values() if self._is_root(n)]
        while stack:
            node = stack.pop()
            if node.id in alive:
                continue
            alive.add(node.id)
            stack.extend(slot.source.node for slot in node.inputs)
        dead = [n for n in self.nodes.values() if n.id not in alive]
        if dead:
            self.structure_changed()
        for node in dead:
            for slot in node.inputs:
                slot.source.uses.remove(slot)
            node.inputs = []
        for node in dead:
            for out in node.outputs:
                out.uses = [u for u in out.uses if u.node.id in alive]
            node.alive = False
            del self.nodes[node.id]
            if node.type == "Parameter" and node in self.parameters:
                self.parameters.remove(node)
        return len(dead)

    @staticmethod
    def _is_root(node: Node) -> bool:
        # Results and sinks (Assign, or anything without outputs) keep their inputs alive;
        # Parameters are part of the model's signature and are never removed.
        return node.type in ("Result", "Assign", "Parameter") or not node.outputs

    # --- ordering ---------------------------------------------------------------------
    def topological_order(self) -> list[Node]:
        """Producers before consumers; ties broken by insertion order. Raises on a cycle."""
        return list(self.per_structure("topological_order", self._sort))

    def _sort(self) -> list[Node]:
        indegree = {n.id: len(n.inputs) for n in self.nodes.values()}
        ready = [n for n in self.nodes.values() if indegree[n.id] == 0]
        ready.reverse()
        order: list[Node] = []
        while ready:
            node = ready.pop()
            order.append(node)
            for out in node.outputs:
                for use in out.uses:
                    indegree[use.node.id] -= 1
                    if indegree[use.node.id] == 0:
                        ready.append(use.node)
        if len(order) != len(self.nodes):
            stuck = next(n for n in self.nodes.values() if indegree[n.id] > 0)
            raise GraphError(f"the graph has a cycle through layer {stuck.name!r} (id {stuck.id})")
        return order

    def has_upstream(self, node: Node, types: frozenset[str]) -> bool:
        """Whether `node` or any node feeding it, however indirectly, has a type in `types`.

        Breadth-first with an early exit, and positive answers are remembered for every node
        on the path found: asking this of each node of a long chain costs O(chain), not
        O(chain^2). Only re-pointing an input can take such an ancestor away (adding inputs
        or removing consumer-less nodes cannot), and `_rewired` keeps the memo right then.
        """
        known = self._upstream.setdefault(types, set())
        if node.id in known:
            return True
        if node.type in types:
            known.add(node.id)
            return True
        came_from: dict[int, Node | None] = {node.id: None}
        queue = deque([node])
        while queue:
            current = queue.popleft()
            for slot in current.inputs:
                parent = slot.source.node
                if parent.id in came_from:
                    continue
                came_from[parent.id] = current
                if parent.id in known or parent.type in types:
                    step: Node | None = parent
                    while step is not None:
                        known.add(step.id)
                        step = came_from[step.id]
                    return True
                queue.append(parent)
        return False

    def _rewired(self, old: Node, new: Node) -> None:
        """An input fed by `old` is now fed by `new`: its consumer keeps a remembered ancestor
        of `has_upstream` only if `new` has one too; otherwise forget what may have changed."""
        for types, known in self._upstream.items():
            if old.id in known and new.id not in known and not self.has_upstream(new, types):
                known.clear()

    def read_value_of(self, assign: Node) -> Node | None:
        """The ReadValue of an Assign's variable: OpenVINO's control dependency of the Assign (the
        IR reader adds it; passes and the node order follow it as if it were an input)."""
        variable = assign.attrs.get("variable_id")
        if assign.type != "Assign" or variable is None:
            return None
        return next((n for n in self.nodes.values() if n.type == "ReadValue" and n.attrs.get("variable_id") == variable),
                    None)

    def find(self, name: str) -> Node:
        for node in self.nodes.values():
            if node.name == name:
                return node
        raise KeyError(name)
