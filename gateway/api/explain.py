"""POST /v1/explain: why the gateway would decide a call the way it does (docs/rules.md#explain).

For people (operator keys of any role, the admin key) writing or debugging a pack: the facts the analysis
found, every rule that matches in priority order, the one that decides, and what the agent would be told to
do instead. Nothing is consumed and nothing is recorded. Agent keys are refused: an agent that could ask
which rule stops it could search for a spelling that none does.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from acteon_core import contract as c
from gateway.api.deps import State, Viewer
from gateway.models import DispatchRequest, ExplainRequest

router = APIRouter(prefix=c.API_PREFIX, tags=["rules"])


@router.post("/explain", summary="Explain how a call would be decided")
async def explain(body: ExplainRequest, st: State, who: Viewer) -> dict[str, Any]:
    tool_input = body.input if body.input is not None else {"command": body.command or ""}
    req = DispatchRequest(run_id=body.run_id, agent_id="explain", role=body.role, provider=body.provider,
                          tool=body.tool, input=tool_input, cwd=body.cwd, home=body.home, files=body.files)
    return await st.dispatcher.explain(req)
