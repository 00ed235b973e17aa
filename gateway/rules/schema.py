"""The JSON Schema of a rule pack (``GET /v1/rules/schema``): the closed fields' values as enums, for editors
and for checking a pack before it is uploaded (docs/rules.md)."""

from __future__ import annotations

from typing import Any

from gateway.rules import vocabulary
from gateway.rules.conditions import FIELDS, OPERATORS


def schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of a rule pack, with the closed fields' values as enums."""
    def matcher(enum: tuple[str, ...] | None) -> dict[str, Any]:
        scalar: dict[str, Any] = {"type": "string", "enum": list(enum)} if enum else {"type": ["string", "number"]}
        if enum and enum is vocabulary.VOCABULARY["tool"]:
            scalar = {"anyOf": [scalar, {"type": "string", "pattern": vocabulary.MCP_TOOL.pattern}]}
        return {"anyOf": [scalar, {"type": "array", "items": scalar, "minItems": 1},
                          {"type": "object", "propertyNames": {"enum": sorted(OPERATORS)}, "minProperties": 1}]}

    fields = {f: matcher(vocabulary.VOCABULARY.get(f)) for f in sorted(FIELDS)}
    condition = {
        "type": "object",
        "properties": {**fields, "all": {"type": "array", "items": {"$ref": "#/$defs/condition"}},
                       "any": {"type": "array", "items": {"$ref": "#/$defs/condition"}},
                       "not": {"$ref": "#/$defs/condition"}},
        "additionalProperties": False,
    }
    rule = {
        "type": "object",
        "required": ["name", "priority", "action"],
        "properties": {
            "name": {"type": "string", "pattern": r"^[a-z0-9]+(?:-[a-z0-9]+)*$", "maxLength": 100},
            "priority": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
            "action": {"enum": ["allow", "suppress", "request_approval", "reroute", "throttle", "deduplicate"]},
            "description": {"type": "string"}, "reason": {"type": "string", "maxLength": 2000},
            "when": {"$ref": "#/$defs/condition"},
            "timeout_s": {"type": "number", "exclusiveMinimum": 0}, "limit": {"type": "integer", "minimum": 1},
            "window_s": {"type": "number", "exclusiveMinimum": 0}, "per": {"enum": ["agent", "role", "run", "global"]},
            "ttl_s": {"type": "number", "exclusiveMinimum": 0}, "key": {"enum": ["target", "path", "input"]},
            "scope": {"enum": ["cross_agent", "any"]}, "reroute": {"type": ["object", "array"]},
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "acteon-swarm rule pack",
        "type": "object",
        "properties": {"description": {"type": "string"},
                       "rules": {"type": "array", "items": {"$ref": "#/$defs/rule"}}},
        "required": ["rules"],
        "$defs": {"rule": rule, "condition": condition},
    }
