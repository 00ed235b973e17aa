"""Approvals: listing, reading (with lazy expiry), and resolving through ``lua/resolve_approval.lua``."""

from __future__ import annotations

import json
import re
from typing import Any

from acteon_core import contract as c
from gateway import reveal
from gateway.errors import Conflict, NotFound
from gateway.models import RUN_ID_PATTERN
from gateway.store import keys
from gateway.store.backend import Backend

# An approval id names its run (acteon_core/contract.py), so any process can find the record with no global index
# (a global index would put the decision script across two cluster slots).
_RUN = re.compile(RUN_ID_PATTERN)


def new_id(token_hex: str, run_id: str) -> str:
    return c.approval_id(token_hex, run_id)


def run_of(approval_id: str) -> str:
    run_id = c.approval_run(approval_id)
    if run_id is None or not _RUN.match(run_id):
        raise NotFound(f"approval '{approval_id[:200]}' not found")
    return run_id


def _view(raw: dict[str, str], now: int, shown: bool = True) -> dict[str, Any]:
    status = raw.get("status", c.APPROVAL_PENDING)
    if status == c.APPROVAL_PENDING and now >= int(raw.get("expires_ms", 0)):
        status = c.APPROVAL_EXPIRED
    out: dict[str, Any] = {
        "approval_id": raw.get("id"), "status": status, "run_id": raw.get("run_id"),
        "agent_id": raw.get("agent_id"), "role": raw.get("role") or None, "provider": raw.get("provider"),
        "tool": raw.get("tool"), "action_type": raw.get("action_type"), "target": raw.get("target"),
        "rule": raw.get("rule"), "reason": raw.get("reason"),
        "created_ms": int(raw.get("created_ms", 0)), "expires_ms": int(raw.get("expires_ms", 0)),
    }
    try:
        out["input"] = json.loads(raw.get("input") or "{}")
    except ValueError:
        out["input"] = None
    if "resolved_ms" in raw:
        out.update(
            resolved_ms=int(raw["resolved_ms"]), resolved_by=raw.get("resolved_by"),
            resolution_reason=raw.get("resolution_reason") or None,
            resolved_shown_sha256=raw.get("shown_sha256") or None,
        )
    return with_shown(out) if shown else out


def with_shown(view: dict[str, Any]) -> dict[str, Any]:
    """Add the document a person is shown and its digest (gateway.reveal) to an approval view."""
    doc = reveal.render(view)
    view.update(shown=doc.text, shown_escaped=doc.escaped, shown_sha256=doc.sha256)
    return view


async def get(backend: Backend, approval_id: str, *, shown: bool = True) -> dict[str, Any]:
    """One approval; ``shown=False`` skips rendering its document (a poll that only looks at the status:
    rendering a large input on every re-check would cost the gateway for nothing)."""
    run_id = run_of(approval_id)
    raw = await backend.call(backend.redis.hgetall(keys.approval(run_id, approval_id)))
    if not raw:
        raise NotFound(f"approval '{approval_id}' not found")
    return _view(raw, await backend.now_ms(), shown)


async def list_for_run(backend: Backend, run_id: str, status: str | None, limit: int) -> list[dict[str, Any]]:
    ids = await backend.call(backend.redis.zrevrange(keys.approvals_index(run_id), 0, 4999))
    if not ids:
        return []
    now = await backend.now_ms()
    async with backend.redis.pipeline(transaction=False) as p:
        for i in ids:
            p.hgetall(keys.approval(run_id, i))
        raws = await backend.call(p.execute())
    out = []
    for raw in raws:
        if not raw:
            continue  # retention expired
        v = _view(raw, now)
        if status is None or v["status"] == status:
            out.append(v)
            if len(out) >= limit:
                break
    return out


async def resolve(
    backend: Backend, approval_id: str, *, approve: bool, by: str, reason: str, shown_sha256: str | None,
) -> dict[str, Any]:
    """Approve or reject; with ``shown_sha256``, only if it is the digest of the item as it stands (what
    the person saw is what is decided)."""
    run_id = run_of(approval_id)
    if shown_sha256 is not None:
        current = await get(backend, approval_id)
        if current["shown_sha256"] != shown_sha256:
            raise Conflict(f"approval '{approval_id}' is not what was shown (its content hash differs): "
                           "look at it again before deciding")
    status = c.APPROVAL_APPROVED if approve else c.APPROVAL_REJECTED
    [result] = await backend.durable(backend.eval_command(  # never undecided again after a failover
        "resolve_approval.lua", [keys.approval(run_id, approval_id)],
        [backend.now_arg(), status, by, reason, keys.NOTIFY_CHANNEL, shown_sha256 or ""]))
    if result[0] == "not_found":
        raise NotFound(f"approval '{approval_id}' not found")
    if result[0] == "conflict":
        raise Conflict(f"approval '{approval_id}' is already {result[1]}")
    return await get(backend, approval_id)
