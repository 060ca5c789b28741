"""Checking a value against its JSON Schema declaration, saying why in the declaration's own words."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fastjsonschema

from companion.rules import node as nd


class CommandError(ValueError):
    """A command the runtime refuses (a bad node, an unknown game, a setting out of range): says why."""


def _is_node(text: str) -> bool:
    try:
        nd.parse(text, nd.MAX_DEPTH)
    except nd.NodeError:
        return False
    return True


def refusal(schema: dict, err: fastjsonschema.JsonSchemaValueException, says: str) -> str:
    """What a refusal says: the failing field's ``x-error``; a node's own reason for a bad node name."""
    name = err.path[1] if len(err.path) > 1 else None
    declared = schema.get("properties", {}).get(name, {})
    if declared.get("format") == "node" and isinstance(err.value, str):
        try:
            nd.parse(err.value, nd.MAX_DEPTH)
        except nd.NodeError as bad:
            return str(bad)
    return declared.get("x-error", says)


def check(schema: dict, data: dict, says: str) -> None:
    """Raise CommandError unless ``data`` fits ``schema``. A whole number is an int: JSON Schema takes 1.0
    for an integer, the companion does not (1.0 is no game id, seat or ply)."""
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


_COMPILED: dict[str, Callable[[dict], Any]] = {}  # by the schema's JSON text: schemas are remade per call


def _compiled(schema: dict) -> Callable[[dict], Any]:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _COMPILED:
        _COMPILED[key] = fastjsonschema.compile(schema, formats={"node": _is_node})
    return _COMPILED[key]
