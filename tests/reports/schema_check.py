"""Enough of JSON Schema to check lpt's report documents against report.schema.json.

jsonschema is not a dependency; this covers the keywords the schema uses: $ref, oneOf,
const, enum, type, required, properties, additionalProperties, items.
"""
from __future__ import annotations

import json
from importlib import resources

SCHEMA = json.loads(resources.files("lpt_cli.reports").joinpath("report.schema.json").read_text())


def check(value, schema, defs):
    """Enough of JSON Schema for this file: $ref, const, enum, type, required, properties, items, oneOf."""
    if "$ref" in schema:
        return check(value, defs[schema["$ref"].split("/")[-1]], defs)
    if "oneOf" in schema:
        matches = 0
        for option in schema["oneOf"]:
            try:
                check(value, option, defs)
                matches += 1
            except AssertionError:
                pass
        assert matches == 1, (value, schema)
        return None
    assert "const" not in schema or value == schema["const"]
    assert "enum" not in schema or value in schema["enum"], value
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    pytypes = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float),
               "null": type(None), "boolean": bool}
    assert not kinds or any(isinstance(value, pytypes[k]) for k in kinds), (value, kinds)
    if isinstance(value, dict):
        assert set(schema.get("required", ())) <= set(value), schema.get("required")
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            assert set(value) <= set(props), set(value) - set(props)
        for key, item in value.items():
            sub = props.get(key) or (schema.get("additionalProperties") if isinstance(
                schema.get("additionalProperties"), dict) else None)
            if sub:
                check(item, sub, defs)
    if isinstance(value, list) and "items" in schema:
        for item in value:
            check(item, schema["items"], defs)
    return None


def load_schema(name: str) -> dict:
    """Another schema of lpt_cli/reports, its `report.schema.json#/...` references replaced by
    the parts of SCHEMA they name (check() only follows references into `$defs`)."""
    schema = json.loads(resources.files("lpt_cli.reports").joinpath(name).read_text())

    def resolve(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("report.schema.json#/"):
                target = SCHEMA
                for key in ref.split("#/", 1)[1].split("/"):
                    target = target[key]
                return target
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)


def check_document(doc, schema: dict) -> None:
    """`doc` against `schema` (from load_schema), its own and the report's `$defs` both known."""
    check(doc, schema, {**SCHEMA["$defs"], **schema.get("$defs", {})})
