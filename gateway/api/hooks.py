"""POST /v1/hooks/claude: Claude Code's native ``http`` hook (docs/gateway.md).

Claude POSTs the same JSON a command hook reads on stdin and reads the same output schema back, so no
process starts per tool call. Identity comes from the key and the ``X-Acteon-*`` headers.

Every answer is a 200 in Claude's schema. A failure the gateway can see (bad key, Redis down, malformed
event) becomes an explicit deny with the reason, which reaches the model; failures it cannot see
(gateway down, timeout) are blocked by Claude itself because ``install --http`` sets
``onFailure: "block"``.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request, Response
from pydantic import ValidationError

from acteon_core import contract as c
from acteon_core import dialects
from gateway.api.dispatch import RawRoute
from gateway.api.runs import record_completion
from gateway.errors import GatewayError
from gateway.models import DispatchRequest, EventIn
from gateway.state import GatewayState
from gateway.store import runs

router = APIRouter(prefix=c.API_PREFIX, tags=["hooks"], route_class=RawRoute)
MAX_APPROVAL_WAIT_S = 600.0

_OPENAPI: dict[str, Any] = {
    "parameters": [
        {"name": c.QUERY_APPROVAL_WAIT, "in": "query", "required": False,
         "schema": {"type": "number", "minimum": 0, "maximum": MAX_APPROVAL_WAIT_S, "default": 0},
         "description": "seconds to wait for a human when the call needs approval"},
        *({"name": h, "in": "header", "required": False, "schema": {"type": "string"}}
          for h in (c.HEADER_RUN_ID, c.HEADER_AGENT_ID, c.HEADER_AGENT_ROLE, c.HEADER_HOME)),
    ],
    "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}},
    "security": [{"HTTPBearer": []}],
}


def _json(data: dict[str, Any]) -> Response:
    return Response(orjson.dumps(data), media_type="application/json")


def _deny(reason: str) -> Response:
    return _json(dialects.deny(dialects.CLAUDE, reason))


@router.post("/hooks/claude", openapi_extra=_OPENAPI, summary="Claude Code http hook (PreToolUse, PostToolUse)")
async def claude_hook(request: Request) -> Response:
    """Decide a Claude Code tool call; answers in Claude's hook output schema."""
    try:
        return await _handle(request)
    except GatewayError as e:
        return _deny(f"acteon-swarm: {e.message}; call blocked (fail closed)")


async def _handle(request: Request) -> Response:
    st: GatewayState = request.app.state.gateway
    who = await st.auth.principal(request.headers.get("authorization"))
    try:
        event = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return _deny("acteon-swarm: the hook body is not JSON; call blocked")
    if not isinstance(event, dict):
        return _deny("acteon-swarm: the hook body is not a JSON object; call blocked")
    name = event.get("hook_event_name")
    headers = request.headers
    # Claude expands an unset $VAR in a header to "": treat empty as absent.
    run_id = headers.get(c.HEADER_RUN_ID) or who.run_id or c.DEFAULT_RUN_ID
    agent_id = headers.get(c.HEADER_AGENT_ID) or dialects.default_agent_id(event, dialects.CLAUDE)
    who.require_actor(run_id)
    if name == "PostToolUse":
        await _record_completion(st, run_id, dialects.completion(event, agent_id))
        return _json({})
    if name != "PreToolUse":
        return _json({})  # no decision to make for other events
    fields = dialects.dispatch_fields(event, dialects.CLAUDE, run_id=run_id, agent_id=agent_id,
                                      role=headers.get(c.HEADER_AGENT_ROLE) or None,
                                      home=headers.get(c.HEADER_HOME) or None)
    try:
        body = DispatchRequest.model_validate(fields)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        return _deny(f"acteon-swarm: malformed hook event ({where}: {err['msg']}); call blocked")
    result = await st.dispatcher.dispatch(body, dry_run=False, binding=who.binding)
    if result[c.R_OUTCOME] == c.PENDING_APPROVAL and result.get(c.R_APPROVAL_ID):
        wait = _approval_wait(request)
        if wait > 0:
            view = await st.notifier.await_resolution(result[c.R_APPROVAL_ID], wait)
            if view["status"] == c.APPROVAL_APPROVED:
                result = await st.dispatcher.dispatch(body, dry_run=False, binding=who.binding)
            elif view["status"] == c.APPROVAL_REJECTED:
                return _deny(dialects.rejected(view["approval_id"], view))
    authoritative = request.query_params.get(c.QUERY_AUTHORITATIVE) in ("1", "true")
    return _json(dialects.answer(result, dialects.CLAUDE, authoritative=authoritative))


def _approval_wait(request: Request) -> float:
    raw = request.query_params.get(c.QUERY_APPROVAL_WAIT, "0")
    try:
        return max(0.0, min(MAX_APPROVAL_WAIT_S, float(raw)))
    except ValueError:
        return 0.0


async def _record_completion(st: GatewayState, run_id: str, body: dict[str, Any]) -> None:
    try:
        ev = EventIn.model_validate(body)
    except ValidationError:
        return  # the tool already ran; a malformed completion is simply not recorded
    await runs.get(st.backend, run_id)
    await record_completion(st.backend, run_id, ev)
