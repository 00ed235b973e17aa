"""The global rule pack: read, replace, validate (SPEC §2.4)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from gateway.api.deps import Admin, State
from gateway.errors import BadRequest
from gateway.models import RulesPut
from gateway.rules import Pack, RuleError, parse
from gateway.store import runs
from hook import contract as c

router = APIRouter(prefix=f"{c.API_PREFIX}/rules", tags=["rules"])


def _parse(body: RulesPut, source: str) -> tuple[Pack, list[Any]]:
    if (body.yaml is None) == (body.rules is None):
        raise BadRequest("body: give exactly one of 'yaml' or 'rules'")
    try:
        return parse(body.yaml if body.yaml is not None else (body.rules or []), source)
    except RuleError as e:
        raise BadRequest("rules: " + "; ".join(e.errors)) from None


@router.get("")
async def get_rules(st: State, _: Admin) -> dict[str, Any]:
    p = st.policy.global_pack
    return {"version": p.version, "source": st.policy.global_source, "rules": p.to_list()}


@router.put("")
async def put_rules(body: RulesPut, st: State, _: Admin) -> dict[str, Any]:
    """Replace the global pack for every gateway process. A pack that does not load changes nothing."""
    pack, items = _parse(body, "api")
    if not pack.rules:
        raise BadRequest("rules: refusing an empty global pack (everything would be denied)")
    await runs.put_global_rules(st.backend, items, pack.version)
    await st.policy.refresh_global()
    return {"version": pack.version, "rules": len(pack.rules)}


@router.post("/validate")
async def validate_rules(body: RulesPut, _: Admin) -> dict[str, Any]:
    """Check a pack without installing it; errors name the rule."""
    try:
        pack, _items = _parse(body, "request")
    except BadRequest as e:
        return {"valid": False, "errors": e.message.removeprefix("rules: ").split("; ")}
    return {"valid": True, "version": pack.version, "rules": [r.name for r in pack.rules]}
