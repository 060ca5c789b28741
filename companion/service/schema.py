"""Checking a value against its JSON Schema declaration, saying why in the declaration's own words."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fastjsonschema

from companion.rules import node as nd


class CommandError(ValueError):
    """A command the runtime refuses, saying why; nothing changed."""


def _is_node(text: str) -> bool:
    try:
        nd.parse(text, nd.MAX_DEPTH)
    except nd.NodeError:
        return False
    return True


def refusal(schema: dict, err: fastjsonschema.JsonSchemaValueException, says: str) -> str:
    """The failing field's ``x-error``; for a bad node name, the node's own reason."""
    name = err.path[1] if len(err.path) > 1 else None
    declared = schema.get("properties", {}).get(name, {})
    if declared.get("format") == "node" and isinstance(err.value, str):
        try:
            nd.parse(err.value, nd.MAX_DEPTH)
        except nd.NodeError as bad:
            return str(bad)
    return declared.get("x-error", says)


def check(schema: dict, data: dict, says: str) -> None:
    """Raise CommandError unless ``data`` fits ``schema``; 1.0 is no integer here (no game id or ply)."""
    try:
        _compiled(schema)(data)
    except fastjsonschema.JsonSchemaValueException as err:
        raise CommandError(refusal(schema, err, says)) from None
    for name, value in data.items():
        if _float_for_integer(schema.get("properties", {}).get(name, {}), value):
            raise CommandError(schema["properties"][name].get("x-error", says))


def _float_for_integer(schema: dict, value: Any) -> bool:
    if isinstance(value, float):
        return schema.get("type") == "integer"
    if isinstance(value, dict):
        inner = [schema] + schema.get("anyOf", []) + schema.get("oneOf", [])
        return any(
            _float_for_integer(s.get("properties", {}).get(k, {}), v) for s in inner for k, v in value.items()
        )
    if isinstance(value, list):
        return any(_float_for_integer(schema.get("items", {}), v) for v in value)
    return False


_COMPILED: dict[str, Callable[[dict], Any]] = {}  # by JSON text: schemas are remade per call


def _compiled(schema: dict) -> Callable[[dict], Any]:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _COMPILED:
        _COMPILED[key] = fastjsonschema.compile(schema, formats={"node": _is_node})
    return _COMPILED[key]
