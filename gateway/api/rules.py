"""The global rule pack: read, replace, validate (docs/rules.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from acteon_core import contract as c
from gateway.api.deps import Admin, Caller, State, Viewer
from gateway.errors import BadRequest
from gateway.models import RulesPut
from gateway.rules import Pack, RuleError, parse, vocabulary
from gateway.rules.schema import schema as rule_schema

router = APIRouter(prefix=f"{c.API_PREFIX}/rules", tags=["rules"])
vocabulary_router = APIRouter(prefix=c.API_PREFIX, tags=["rules"])


@vocabulary_router.get("/vocabulary")
async def get_vocabulary(_: Caller) -> dict[str, Any]:
    """The values the gateway produces for the closed rule fields (a rule naming another is an error)."""
    return {
        "fields": {field: list(values) for field, values in vocabulary.VOCABULARY.items()},
        "tool_patterns": ["mcp__<server>__<tool>", "mcp_<server>_<tool>"],
    }


@router.get("/schema")
async def get_schema(_: Caller) -> dict[str, Any]:
    """The JSON Schema of a rule pack file, with the closed fields' values as enums."""
    return rule_schema()


def _parse(body: RulesPut, source: str) -> tuple[Pack, list[Any]]:
    try:
        return _parse_or_raise(body, source)
    except RuleError as e:
        raise BadRequest("rules: " + "; ".join(e.errors)) from None


def _parse_or_raise(body: RulesPut, source: str) -> tuple[Pack, list[Any]]:
    if (body.yaml is None) == (body.rules is None):
        raise RuleError(["body: give exactly one of 'yaml' or 'rules'"])
    return parse(body.yaml if body.yaml is not None else (body.rules or []), source)


@router.get("")
async def get_rules(st: State, _: Viewer) -> dict[str, Any]:
    p = st.policy.global_pack
    return {"version": p.version, "source": st.policy.global_source, "rules": p.to_list()}


@router.put("")
async def put_rules(body: RulesPut, st: State, _: Admin) -> dict[str, Any]:
    """Replace the global pack for every gateway process. A pack that does not load changes nothing."""
    pack, items = _parse(body, "api")
    if not pack.rules:
        raise BadRequest("rules: refusing an empty global pack (everything would be denied)")
    if st.backend.cluster and pack.cluster_problems():
        raise BadRequest("rules: " + "; ".join(pack.cluster_problems()))
    await st.policy.uploaded(items, pack)
    return {"version": pack.version, "rules": len(pack.rules)}


@router.post("/validate")
async def validate_rules(body: RulesPut, _: Admin) -> dict[str, Any]:
    """Check a pack without installing it; errors name the rule."""
    try:
        pack, _items = _parse_or_raise(body, "request")
    except RuleError as e:
        return {"valid": False, "errors": e.errors}
    return {"valid": True, "version": pack.version, "rules": [r.name for r in pack.rules]}
