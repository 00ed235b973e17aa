"""Human approvals (docs/gateway.md). Only people with the operator role (or the admin key) resolve them, each
decision carrying the hash of what they were shown: an agent can never approve itself."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from acteon_core import contract as c
from acteon_core.vocabulary import ApprovalStatus
from gateway.api.deps import Caller, Operator, State
from gateway.auth import Principal
from gateway.errors import BadRequest, Forbidden
from gateway.models import RUN_ID_PATTERN, Resolution
from gateway.state import GatewayState
from gateway.store import approvals, runs

router = APIRouter(prefix=f"{c.API_PREFIX}/approvals", tags=["approvals"])
ApprovalId = Annotated[str, Query(max_length=300)]


@router.get("")
async def list_approvals(
    st: State,
    who: Caller,
    run: Annotated[str | None, Query(pattern=RUN_ID_PATTERN)] = None,
    status: ApprovalStatus | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    if not who.is_person:
        if run is None:
            run = who.run_id
        who.require_run(run or "")
    run_ids = [run] if run else await runs.list_runs(st.backend)
    out: list[dict[str, Any]] = []
    for rid in run_ids:
        out.extend(await approvals.list_for_run(st.backend, rid, status, limit - len(out)))
        if len(out) >= limit:
            break
    return {"approvals": out}


@router.get("/{approval_id}")
async def get_approval(approval_id: str, st: State, who: Caller) -> dict[str, Any]:
    who.require_run(approvals.run_of(approval_id))
    return await approvals.get(st.backend, approval_id)


@router.get("/{approval_id}/wait")
async def wait_approval(
    approval_id: str,
    st: State,
    who: Caller,
    timeout_s: Annotated[float, Query(ge=0, le=300)] = 30.0,
) -> dict[str, Any]:
    """Long poll: answer as soon as the approval leaves ``pending``, or at the timeout."""
    who.require_run(approvals.run_of(approval_id))
    return await st.notifier.await_resolution(approval_id, timeout_s)


async def resolve(
    st: GatewayState, who: Principal, approval_id: str, body: Resolution | None, approve: bool
) -> dict[str, Any]:
    """One decision by a person. An operator key decides as its operator and must say what it was shown;
    the admin key (automation, the CLI) may name the person and decide without a view."""
    who.require("operator")
    body = body or Resolution()
    reason = body.reason or ""
    if who.kind == "operator":
        if body.by is not None and body.by != who.name:
            raise Forbidden(f"operator '{who.name}' decides as itself, not as '{body.by}'")
        if body.shown_sha256 is None:
            raise BadRequest("shown_sha256: required from an operator key (the hash of what was shown)")
    by = who.name if who.kind == "operator" else (body.by or who.name)
    if not approve and not reason.strip():
        reason = "rejected"
    return await approvals.resolve(st.backend, approval_id, approve=approve, by=by, reason=reason,
                                   shown_sha256=body.shown_sha256)


@router.post("/{approval_id}/approve")
async def approve(approval_id: str, st: State, who: Operator, body: Resolution | None = None) -> dict[str, Any]:
    return await resolve(st, who, approval_id, body, approve=True)


@router.post("/{approval_id}/reject")
async def reject(approval_id: str, st: State, who: Operator, body: Resolution | None = None) -> dict[str, Any]:
    return await resolve(st, who, approval_id, body, approve=False)
