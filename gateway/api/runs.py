"""Runs, their stats, cancel, audit and completion events (docs/gateway.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from acteon_core import contract as c
from acteon_core.vocabulary import TOOL_ACTIONS, ActionType, Outcome
from gateway.api.deps import Admin, Caller, Operator, State, Viewer
from gateway.auth import hash_key, new_key
from gateway.errors import BadRequest
from gateway.models import (
    RUN_ID_PATTERN,
    AgentKeyCreate,
    EventIn,
    RulesPut,
    RunCreate,
    RunCreated,
    RunStateIn,
)
from gateway.rules import RuleError, parse
from gateway.state import GatewayState
from gateway.store import agents, audit, claims, runs
from gateway.store.backend import Backend

router = APIRouter(prefix=f"{c.API_PREFIX}/runs", tags=["runs"])
SPAWN_TOOLS = frozenset(t for t, a in TOOL_ACTIONS.items() if a == c.SPAWN_AGENT)
RunPath = Annotated[str, Path(pattern=RUN_ID_PATTERN, description="run id")]


def _rules_items(rules: str | list[dict[str, Any]] | None, source: str, backend: Backend,
                 ) -> tuple[list[dict[str, Any]], str]:
    """Validate per-run rules (YAML text or a list) and return (items, version)."""
    if rules is None:
        return [], "0"
    try:
        pack, items = parse(rules, source)
        if backend.cluster and pack.cluster_problems():
            raise RuleError(pack.cluster_problems())
    except RuleError as e:
        raise BadRequest("rules: " + "; ".join(e.errors)) from None
    return (items if pack.rules else []), pack.version


@router.post("", response_model=RunCreated, status_code=201)
async def create_run(body: RunCreate, st: State, _: Admin) -> RunCreated:
    """Create a run; the answer carries its agent key, shown only this once."""
    items, version = _rules_items(body.rules, f"run:{body.run_id}", st.backend)
    key = new_key("acteon_agent")
    await runs.create(
        st.backend, body.run_id, agent_key_hash=hash_key(key),
        quota=body.quota.model_dump() if body.quota else None, rules=items or None, rules_version=version,
        agents=body.agents.model_dump() if body.agents else None,
    )
    return RunCreated(run_id=body.run_id, agent_key=key)


@router.post("/{run_id}/agent-keys", response_model=RunCreated, status_code=201)
async def mint_agent_key(run_id: RunPath, st: State, _: Admin, body: AgentKeyCreate | None = None) -> RunCreated:
    """Another agent key for an existing run. With a body, the key is one agent's: its calls act as that
    agent whatever they claim, and writes outside its worktree and file scope are suppressed."""
    binding: dict[str, Any] | None = None
    if body is not None:
        binding = {"agent_id": body.agent_id, "root": body.root, "scope": body.files_scope}
        if body.claim is not None:
            binding.update(await claim_binding(st, run_id, body))
    key = new_key("acteon_agent")
    await runs.add_agent_key(st.backend, run_id, hash_key(key), binding)
    return RunCreated(run_id=run_id, agent_key=key)


async def claim_binding(st: GatewayState, run_id: str, body: AgentKeyCreate) -> dict[str, str]:
    """The fencing part of a key's binding: the scope claim the agent works under, checked to be held, and
    copied to the run (its decisions read the copy)."""
    assert body.claim is not None
    if body.root is None:
        raise BadRequest("claim: a key under a scope claim needs the agent's root")
    await runs.get(st.backend, run_id)
    if not await claims.copy_to_run(st.backend, run_id, body.claim.repo, body.claim.claim_id, body.claim.token):
        raise BadRequest(f"claim: {body.claim.claim_id} is not held with token {body.claim.token}")
    return {"claim_key": claims.claim_key(body.claim.repo, body.claim.claim_id), "token": str(body.claim.token)}


@router.get("")
async def list_runs(st: State, _: Viewer) -> dict[str, Any]:
    return {"runs": await runs.list_runs(st.backend)}


@router.get("/{run_id}")
async def get_run(run_id: RunPath, st: State, _: Viewer) -> dict[str, Any]:
    return await runs.get(st.backend, run_id)


@router.get("/{run_id}/stats")
async def get_stats(run_id: RunPath, st: State, _: Viewer) -> dict[str, Any]:
    return {"run_id": run_id, **(await runs.stats(st.backend, run_id))}


@router.post("/{run_id}/cancel")
async def cancel_run(run_id: RunPath, st: State, _: Operator) -> dict[str, Any]:
    """Every later dispatch for this run answers ``cancelled``."""
    await runs.cancel(st.backend, run_id)
    return await runs.get(st.backend, run_id)


@router.get("/{run_id}/audit")
async def get_audit(
    run_id: RunPath,
    st: State,
    _: Viewer,
    agent: Annotated[str | None, Query(max_length=256)] = None,
    outcome: Outcome | None = None,
    rule: Annotated[str | None, Query(max_length=100)] = None,
    action_type: ActionType | None = None,
    since: Annotated[int | None, Query(ge=0, description="only records at or after this time (ms)")] = None,
    until: Annotated[int | None, Query(ge=0, description="only records at or before this time (ms)")] = None,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Audit records, oldest first. Pass ``next_cursor`` back as ``cursor`` for the next page."""
    await runs.get(st.backend, run_id)
    filters = {k: v for k, v in
               (("agent_id", agent), ("outcome", outcome), ("rule", rule), ("action_type", action_type)) if v}
    records, nxt = await audit.query(st.backend, run_id, filters=filters, since_ms=since, cursor=cursor, limit=limit,
                                     until_ms=until)
    return {"run_id": run_id, "records": records, "next_cursor": nxt}


@router.post("/{run_id}/state", status_code=202)
async def post_state(run_id: RunPath, body: RunStateIn, st: State, _: Admin) -> dict[str, Any]:
    """The orchestrator reports a task state change (the console's run page shows them live)."""
    await runs.get(st.backend, run_id)
    entry = await audit.append_state(st.backend, run_id, body.model_dump())
    if body.final:
        st.webhooks.run_ended(run_id, body.state, body.reason or "")
    return {"accepted": True, "cursor": entry}


@router.get("/{run_id}/state")
async def get_state(
    run_id: RunPath,
    st: State,
    _: Viewer,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any]:
    """Task state changes, oldest first, with ``next_cursor`` to page."""
    await runs.get(st.backend, run_id)
    changes, nxt = await audit.query_state(st.backend, run_id, cursor=cursor, limit=limit)
    return {"run_id": run_id, "changes": changes, "next_cursor": nxt}


# The event model's typed fields: the stream stores text, the API answers JSON booleans and numbers.
_EVENT_BOOLS = frozenset(n for n, f in EventIn.model_fields.items() if f.annotation in (bool, bool | None))
_EVENT_INTS = frozenset(n for n, f in EventIn.model_fields.items() if f.annotation in (int, int | None))


def _typed_event(ev: dict[str, Any]) -> dict[str, Any]:
    for k, v in ev.items():
        if not isinstance(v, str):
            continue
        if k in _EVENT_BOOLS and v in ("true", "false"):
            ev[k] = v == "true"
        elif k in _EVENT_INTS and v.lstrip("-").isdigit():
            ev[k] = int(v)
    return ev


@router.get("/{run_id}/events")
async def get_events(
    run_id: RunPath,
    st: State,
    _: Viewer,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Completion events, oldest first, each with its ``cursor`` and ``ts`` (ms). Pass ``next_cursor``
    back as ``cursor`` for the next page; the orchestrator's monitor and memory follow runs this way."""
    await runs.get(st.backend, run_id)
    events, nxt = await audit.query_events(st.backend, run_id, cursor=cursor, limit=limit)
    return {"run_id": run_id, "events": [_typed_event(e) for e in events], "next_cursor": nxt}


@router.post("/{run_id}/events", status_code=202)
async def post_event(run_id: RunPath, body: EventIn, st: State, who: Caller) -> dict[str, Any]:
    """A tool completed (PostToolUse / AfterTool): duration, success, size."""
    who.require_actor(run_id)
    await runs.get(st.backend, run_id)
    return {"accepted": True, "event_id": await record_completion(st.backend, run_id, body)}


async def record_completion(backend: Backend, run_id: str, body: EventIn) -> str:
    """Journal a tool's completion; a finished spawn tool ends its sub-agent (it stops counting)."""
    event_id = await audit.append_event(backend, run_id, body.model_dump())
    if body.tool in SPAWN_TOOLS:
        await agents.ended(backend, run_id, body.agent_id, body.tool_use_id)
    return event_id


@router.get("/{run_id}/rules")
async def get_run_rules(run_id: RunPath, st: State, _: Viewer) -> dict[str, Any]:
    version, items = await runs.get_run_rules(st.backend, run_id)
    return {"run_id": run_id, "version": version, "rules": items}


@router.put("/{run_id}/rules")
async def put_run_rules(run_id: RunPath, body: RulesPut, st: State, _: Admin) -> dict[str, Any]:
    """Replace the run's own rules (``{"yaml": ...}`` or ``{"rules": [...]}``); invalid → 422, nothing changes."""
    if (body.yaml is None) == (body.rules is None):
        raise BadRequest("body: give exactly one of 'yaml' or 'rules'")
    items, version = _rules_items(body.yaml if body.yaml is not None else body.rules, f"run:{run_id}", st.backend)
    await runs.put_run_rules(st.backend, run_id, items, version)
    await st.policy.reload_run(run_id)
    return {"run_id": run_id, "version": version if items else "0", "rules": len(items)}
