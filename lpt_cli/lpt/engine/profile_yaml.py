"""The YAML the shipped profiles are written in, read without PyYAML (its import alone is ~6 % of
`lpt transform` on ResNet-50): block mappings by indentation, `- ` items, flow {} and [],
comments, and scalars that are `true`, `false`, integers or plain names. Anything else is
refused, never read differently from YAML (a test compares each profile with safe_load).
A user's config file is read by PyYAML (config.parse_yaml).
"""
from __future__ import annotations

import re
from typing import Any

_FLOW_TOKEN = re.compile(r"\s*([{}\[\],]|:(?=\s)|[A-Za-z0-9_.-]+)")
_YAML_WORDS = frozenset({"yes", "no", "on", "off", "null", "true", "false"})  # YAML 1.1, any case


def read_profile(text: str) -> Any:
    """A built-in profile's YAML as yaml.safe_load reads it (ValueError outside the subset)."""
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        content = re.sub(r"(^|\s)#.*", "", raw).rstrip()
        if content:
            stripped = content.lstrip(" ")
            lines.append((number, len(content) - len(stripped), stripped))
    value, end = _block(lines, 0, 0) if lines else (None, 0)
    if end != len(lines):
        raise ValueError(f"profile line {lines[end][0]}: unexpected indentation")
    return value


def _block(lines: list[tuple[int, int, str]], start: int, indent: int) -> tuple[Any, int]:
    """The block mapping or `- ` sequence whose lines start at `start` with `indent` spaces."""
    items: list[Any] = []
    mapping: dict[Any, Any] = {}
    at = start
    while at < len(lines) and lines[at][1] == indent:
        number, _, content = lines[at]
        at += 1
        if content.startswith("- ") and not mapping:
            items.append(_flow(content[2:], number))
            continue
        key, colon, rest = content.partition(": ") if ": " in content else content.rpartition(":")
        if items or not colon or (rest and ": " not in content):
            raise ValueError(f"profile line {number}: expected `key: value` or `- item`")
        if rest:
            mapping[_scalar(key, number)] = _flow(rest, number)
        elif at < len(lines) and lines[at][1] > indent:
            mapping[_scalar(key, number)], at = _block(lines, at, lines[at][1])
        else:
            mapping[_scalar(key, number)] = None
    return (items if items else mapping), at


def _flow(text: str, number: int) -> Any:
    """A flow value ({...}, [...] or a scalar) filling the rest of line `number`."""
    tokens = _FLOW_TOKEN.findall(text)
    if "".join(tokens) != "".join(text.split()):
        raise ValueError(f"profile line {number}: unsupported YAML: {text.strip()}")
    value, end = _flow_value(tokens, 0, number)
    if end != len(tokens):
        raise ValueError(f"profile line {number}: unexpected {tokens[end]!r}")
    return value


def _flow_value(tokens: list[str], at: int, number: int) -> tuple[Any, int]:
    opening = _token(tokens, at, number)
    if opening not in ("{", "["):
        return _scalar(opening, number), at + 1
    closing = "}" if opening == "{" else "]"
    mapping: dict[Any, Any] = {}
    items: list[Any] = []
    at += 1
    while _token(tokens, at, number) != closing:
        if opening == "{":
            key = _scalar(tokens[at], number)
            if _token(tokens, at + 1, number) != ":":
                raise ValueError(f"profile line {number}: expected `: ` after {key!r}")
            mapping[key], at = _flow_value(tokens, at + 2, number)
        else:
            item, at = _flow_value(tokens, at, number)
            items.append(item)
        if _token(tokens, at, number) == ",":
            at += 1
        elif tokens[at] != closing:
            raise ValueError(f"profile line {number}: expected `,` or `{closing}`, got {tokens[at]!r}")
    return (mapping if opening == "{" else items), at + 1


def _token(tokens: list[str], at: int, number: int) -> str:
    if at >= len(tokens):
        raise ValueError(f"profile line {number}: the line ends inside a value")
    return tokens[at]


def _scalar(word: str, number: int) -> Any:
    if word in ("true", "false"):
        return word == "true"
    if re.fullmatch(r"[1-9][0-9]*|0", word):
        return int(word)
    if word.lower() in _YAML_WORDS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", word):
        raise ValueError(f"profile line {number}: unsupported scalar {word!r}")
    return word
