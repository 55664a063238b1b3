"""A plugin's callbacks on LPT's own passes (`callbacks: NAME` in a config).

A plugin registers LowPrecision with `pass_config->set_callback<SomeTransformation>(fn)`: when fn
says true for the node a transformation matched, the transformation leaves it alone (LPT's
matchers ask `transformation_callback(op)` before `transform`). MarkupPrecisions asks it per node
and skips the node's marks. Each module here is one plugin's set: `CALLBACKS` maps a pass name
(or "MarkupPrecisions") to a function `(node, config) -> reason | None`, the reason being why the
plugin skips the node (recorded as the decision `plugin_callback`). The pipeline loads a set by
name (engine/registry.py, CALLBACK_SETS), so the engine imports no transformation helper.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ...ir import Node

if TYPE_CHECKING:
    from ..engine.config import Config

Callback = Callable[[Node, "Config"], "str | None"]
Callbacks = Mapping[str, Callback]
