"""POST /v1/dispatch (SPEC §2.1)."""

from __future__ import annotations

from fastapi import APIRouter

from gateway.api.deps import Caller, State
from gateway.errors import NotFound
from gateway.models import DispatchRequest, DispatchResponse
from gateway.store import runs
from hook import contract as c

router = APIRouter(prefix=c.API_PREFIX, tags=["dispatch"])


@router.post("/dispatch", response_model=DispatchResponse, response_model_exclude_none=True)
async def dispatch(body: DispatchRequest, st: State, who: Caller, dry_run: bool = False) -> DispatchResponse:
    """Decide whether one agent tool call may run. Every policy verdict is a 200."""
    who.require_run(body.run_id)
    try:
        return await st.dispatcher.dispatch(body, dry_run=dry_run)
    except NotFound:
        if body.run_id != c.DEFAULT_RUN_ID:
            raise
        # The default run always exists; recreate it if Redis was flushed or restarted empty.
        await runs.create(st.backend, c.DEFAULT_RUN_ID, agent_key_hash="", quota=None, rules=None,
                          rules_version="0", exist_ok=True)
        return await st.dispatcher.dispatch(body, dry_run=dry_run)
