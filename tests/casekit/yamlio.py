"""Strict YAML for case files: duplicate keys are errors and `1e-5` is a float.

PyYAML follows YAML 1.1, where a float needs a dot (`1e-5` would load as a string); the
case files are written by tools that follow YAML 1.2, so the float rule is widened here.
The loader parses with libyaml when PyYAML has it (six times faster than the pure-Python
parser, which matters because test collection reads every case file); both resolve tags and
build values with the same Python code, so the result does not depend on which one runs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

try:  # only when PyYAML was built against libyaml
    from yaml import CSafeLoader as _BaseLoader
except ImportError:
    from yaml import SafeLoader as _BaseLoader

_FLOAT = re.compile(
    r"^[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[0-9][0-9_]*[eE][-+]?[0-9]+|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN)$"
)


class _StrictLoader(_BaseLoader):
    """A safe loader that rejects duplicate mapping keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:float"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


@lru_cache(maxsize=None)
def load_yaml(path: Path) -> Any:
    """The parsed file (cached: parametrized tests load each file many times)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass



@dataclass
class _Open:
    """A collection the parser is inside: in a mapping, an even count of completed children
    means the next node is a key, an odd one means it is the value of `key`."""

    is_mapping: bool
    completed: int = 0
    key: Any = None


def case_names(path: Path) -> list[str]:
    """The `name` of each item of the file's top-level `cases` list, in order.

    Read from the parser's events without building any value: test collection needs every
    case's id, and building every value of every case file costs seconds.
    """
    names: list[str] = []
    stack: list[_Open] = []
    with open(path, encoding="utf-8") as handle:
        for event in yaml.parse(handle, Loader=_StrictLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                stack.append(_Open(isinstance(event, yaml.MappingStartEvent)))
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)) and stack:
                parent = stack[-1]
                if parent.is_mapping and parent.completed % 2 == 0:
                    parent.key = getattr(event, "value", None)
                elif (isinstance(event, yaml.ScalarEvent) and len(stack) == 3 and parent.key == "name"
                      and stack[0].key == "cases" and not stack[1].is_mapping):
                    names.append(event.value)
            else:
                continue  # stream and document events
            if stack:
                stack[-1].completed += 1
    return names
