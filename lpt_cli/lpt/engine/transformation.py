"""The contract every LPT transformation and cleanup pass fulfils.

A transformation roots on nodes of its `op_types` (its registry row); the engine offers it each such node and
stops trying further transformations on that node as soon as one returns True (OpenVINO's
GraphRewrite semantics, which the reference results depend on). When a transformation
declines a node it says why through `reject`, so reports can explain "why FP32?".
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ...ir import Graph, Node

if TYPE_CHECKING:
    from .config import Config


@dataclass
class Decision:
    """Why a transformation left a node alone (stable `code` for reports)."""

    transformation: str
    code: str
    detail: str


@dataclass
class Context:
    """What a pass needs besides the node: the graph, the config, and a decision log."""

    graph: Graph
    config: Config
    decisions: dict[int, list[Decision]] = field(default_factory=dict)
    # The plugin's callbacks (config `callbacks`, lpt_cli/lpt/callbacks): pass name -> (node, config) -> reason | None
    callbacks: Mapping[str, Callable[[Node, Any], str | None]] = field(default_factory=dict)

    def record(self, node: Node, decision: Decision) -> None:
        self.decisions.setdefault(node.id, []).append(decision)


class Transformation:
    """Base of all passes of steps 1, 3 and 4. Subclasses set `name`; the op types a pass roots
    on are written once, in its registry row (so the pipeline imports no pass the model lacks)."""

    name: ClassVar[str] = ""
    # Whether the nodes `transform` creates are offered to the step's passes next (OpenVINO's
    # register_new_node). Most LPT passes never register theirs: False keeps e.g. the Add that
    # AddTransformation builds from being transformed again. A set of op types: only the created
    # nodes of those types (the FakeQuantize a pass fuses and registers, nothing else it built).
    revisits_created: ClassVar[bool | frozenset[str]] = True
    # The opset versions the pass matches (OpenVINO's LPT matches e.g. opset1::MaxPool only);
    # None: any version. Reports name the version when a consumer is outside it.
    op_versions: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, ctx: Context) -> None:
        from . import registry  # registry imports this module

        self.op_types = registry.op_types(self.name)
        self.ctx = ctx
        self.graph = ctx.graph
        self.config = ctx.config

    def applies_to(self, node: Node) -> bool:
        """The matcher's pattern: by default, the node's type."""
        return node.type in self.op_types

    def transform(self, node: Node) -> bool:
        """Rewrites around `node`; True means 'matched, stop trying other passes here'."""
        raise NotImplementedError

    def reject(self, node: Node, code: str, detail: str = "") -> bool:
        """Records why `node` stays as it is and returns False (to `return self.reject(...)`)."""
        self.ctx.record(node, Decision(self.name, code, detail))
        return False
