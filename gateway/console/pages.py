"""The operator console's routes: sign-in, approvals, runs, audit, and their live feeds.

Server-rendered (Jinja2), one small script for keys and live updates, every asset served from here. A
page needs a signed-in person (operator or admin key; agent keys cannot sign in); a state-changing request
also needs the session's CSRF token. Decisions go through the same code as the API
(``gateway.api.approvals.resolve``), with the hash of what the page showed.
"""

from __future__ import annotations

import csv
import io
import json
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from acteon_core import contract as c
from gateway.api.approvals import resolve
from gateway.auth import Principal, hash_key
from gateway.console import sessions, views
from gateway.console.live import Hub
from gateway.errors import BadRequest, Forbidden, GatewayError, NotFound, Unauthorized
from gateway.models import RUN_ID_PATTERN, Resolution, Sha256, ShortText
from gateway.state import GatewayState
from gateway.store import approvals, audit, keys, runs

router = APIRouter(prefix="/console", include_in_schema=False)
RunPath = Annotated[str, Path(pattern=RUN_ID_PATTERN)]
OUTCOMES = c.OUTCOMES
ACTION_TYPES = c.ACTION_TYPES
EXPORT_MAX = 100_000  # records in one export
SSE_PING_S = 15


class NotSignedIn(Exception):
    """A page asked for without a session: the browser goes to the sign-in page."""


def _state(request: Request) -> GatewayState:
    st: GatewayState = request.app.state.gateway
    return st


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.console_hub
    return hub


class Person:
    """The signed-in principal and its session (for the CSRF token)."""

    def __init__(self, principal: Principal, session: sessions.Session) -> None:
        self.principal, self.session = principal, session

    @property
    def can_decide(self) -> bool:
        return self.principal.role in ("operator", "admin")


async def _person(request: Request) -> Person:
    st = _state(request)
    session = await sessions.read_session(st.backend, request.cookies.get(sessions.COOKIE))
    if session is None:
        raise NotSignedIn
    try:
        principal = await st.auth.principal_of(session.key_digest)
    except Unauthorized:  # the key was revoked: the session ends with it
        raise NotSignedIn from None
    if not principal.is_person:
        raise NotSignedIn
    return Person(principal, session)


async def _acting(request: Request, person: Annotated[Person, Depends(_person)]) -> Person:
    """A state-changing request: the CSRF token from the header (script) or the form."""
    given = request.headers.get(sessions.CSRF_HEADER)
    if given is None and request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        given = str((await request.form()).get("csrf") or "")
    if not sessions.same_token(person.session.csrf, given):
        raise Forbidden("missing or wrong CSRF token: reload the page")
    return person


Signed = Annotated[Person, Depends(_person)]
Acting = Annotated[Person, Depends(_acting)]


def page(request: Request, template: str, person: Person | None, status: int = 200, **context: Any) -> HTMLResponse:
    html = views.render(template, request=request, me=person.principal if person else None,
                        csrf=person.session.csrf if person else "", can_decide=bool(person and person.can_decide),
                        **context)
    return HTMLResponse(html, status_code=status)


# -- sign-in ------------------------------------------------------------------------------------------

@router.get("")
async def home() -> RedirectResponse:
    return RedirectResponse("/console/approvals", status_code=303)


@router.get("/login")
async def login_page(request: Request) -> HTMLResponse:
    token = request.cookies.get(sessions.LOGIN_COOKIE) or secrets.token_urlsafe(24)
    response = page(request, "login.html", None, login_csrf=token, error=None)
    _set_cookie(request, response, sessions.LOGIN_COOKIE, token, max_age=3600)
    return response


@router.post("/login")
async def login(request: Request, key: Annotated[str, Form(max_length=512)] = "",
                csrf: Annotated[str, Form(max_length=128)] = "") -> Response:
    st = _state(request)
    expected = request.cookies.get(sessions.LOGIN_COOKIE) or ""
    if not expected or not sessions.same_token(expected, csrf):
        return page(request, "login.html", None, status=403, login_csrf=expected or secrets.token_urlsafe(24),
                    error="The sign-in form expired: try again.")
    error, status = None, 200
    try:
        principal = await st.auth.principal_of(hash_key(key.strip()))
        if not principal.is_person:
            error, status = "Agent keys cannot sign in to the console: use an operator key.", 403
    except Unauthorized:
        error, status = "Unknown key.", 401
    if error:
        return page(request, "login.html", None, status=status, login_csrf=expected, error=error)
    token, _session = await sessions.open_session(st.backend, hash_key(key.strip()), st.settings.console_session_s)
    response = RedirectResponse("/console/approvals", status_code=303)
    _set_cookie(request, response, sessions.COOKIE, token, max_age=st.settings.console_session_s)
    response.delete_cookie(sessions.LOGIN_COOKIE, path="/console", httponly=True, samesite="strict")
    return response


@router.post("/logout")
async def logout(request: Request, _: Acting) -> RedirectResponse:
    await sessions.close_session(_state(request).backend, request.cookies.get(sessions.COOKIE))
    response = RedirectResponse("/console/login", status_code=303)
    response.delete_cookie(sessions.COOKIE, path="/console", httponly=True, samesite="strict")
    return response


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int) -> None:
    response.set_cookie(name, value, max_age=max_age, path="/console", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


# -- approvals ----------------------------------------------------------------------------------------

class QueueFilter(BaseModel):
    run: str | None = None
    agent: str | None = None
    rule: str | None = None

    def accepts(self, a: dict[str, Any]) -> bool:
        return ((not self.run or a.get("run_id") == self.run) and (not self.agent or a.get("agent_id") == self.agent)
                and (not self.rule or a.get("rule") == self.rule))


def _filters(run: str | None, agent: str | None, rule: str | None) -> QueueFilter:
    return QueueFilter(run=run or None, agent=agent or None, rule=rule or None)


Text = Annotated[str | None, Query(max_length=256)]


async def _pending(st: GatewayState, flt: QueueFilter, newest_first: bool) -> list[dict[str, Any]]:
    run_ids = [flt.run] if flt.run else await runs.list_runs(st.backend)
    items: list[dict[str, Any]] = []
    for rid in run_ids:
        items += [a for a in await approvals.list_for_run(st.backend, rid, c.APPROVAL_PENDING, 1000)
                  if flt.accepts(a)]
    items.sort(key=lambda a: int(a.get("created_ms") or 0), reverse=newest_first)
    return items


@router.get("/approvals")
async def approvals_page(request: Request, me: Signed, run: Text = None, agent: Text = None, rule: Text = None,
                         order: Annotated[str, Query(pattern="^(newest|oldest)$")] = "newest",
                         focus: Text = None) -> HTMLResponse:
    st = _state(request)
    flt = _filters(run, agent, rule)
    items = await _pending(st, flt, order == "newest")
    return page(request, "approvals.html", me, items=items, now_ms=await st.backend.now_ms(), flt=flt, order=order,
                live_url="/console/live/approvals?" + urlencode({k: v for k, v in flt.model_dump().items() if v}),
                runs=await runs.list_runs(st.backend), focus=focus)


@router.get("/live/approvals")
async def approvals_live(request: Request, me: Signed, run: Text = None, agent: Text = None,
                         rule: Text = None) -> EventSourceResponse:
    """The queue, live: first the whole queue as it is now (also after a reconnect: a queue is state, and
    the snapshot replaces whatever the page held), then each new or resolved approval."""
    st, hub = _state(request), _hub(request)
    flt = _filters(run, agent, rule)
    sub = hub.subscribe_queue(flt.accepts, me.can_decide)  # before the snapshot: nothing falls in between

    async def stream() -> AsyncIterator[ServerSentEvent | bytes]:
        try:
            now = await st.backend.now_ms()
            items = await _pending(st, flt, True)
            html = "".join(views.approval_html(a, now, me.can_decide) for a in items)
            yield ServerSentEvent(html or " ", event="snapshot", id=f"q{now}")
            async for chunk in sub.events():
                yield chunk
        finally:
            hub.unsubscribe_queue(sub)

    return EventSourceResponse(stream(), ping=SSE_PING_S, headers={"Cache-Control": "no-store"})


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    shown_sha256: Sha256
    reason: ShortText | None = None


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    approval_id: str = Field(max_length=300)
    shown_sha256: Sha256


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[BatchItem] = Field(min_length=1, max_length=500)
    reason: ShortText | None = None


def _as_operator(me: Person) -> Principal:
    """Decisions in the console are made by the signed-in person, under their own name."""
    p = me.principal
    return p if p.kind == "operator" else Principal("operator", name=p.name, role=p.role)


@router.post("/approvals/batch")
async def approve_batch(request: Request, body: BatchIn, me: Acting) -> dict[str, Any]:
    """Approve exactly the reviewed snapshot: the ids (and what each showed) the person confirmed. An item
    that arrived after the review is not in the list, so it is not approved by it."""
    st = _state(request)
    results = []
    for item in body.items:
        try:
            a = await resolve(st, _as_operator(me), item.approval_id,
                              Resolution(reason=body.reason, shown_sha256=item.shown_sha256), True)
            results.append({"approval_id": item.approval_id, "status": a["status"]})
        except GatewayError as e:
            results.append({"approval_id": item.approval_id, "error": e.message})
    return {"results": results}


@router.post("/approvals/{approval_id}/{verb}")
async def decide(request: Request, approval_id: Annotated[str, Path(max_length=300)],
                 verb: Annotated[str, Path(pattern="^(approve|reject)$")], body: DecisionIn,
                 me: Acting) -> dict[str, Any]:
    if verb == "reject" and not (body.reason or "").strip():
        raise BadRequest("reason: a rejection needs a reason (the agent is told it)")
    return await resolve(_state(request), _as_operator(me), approval_id,
                         Resolution(reason=body.reason, shown_sha256=body.shown_sha256), verb == "approve")


# -- runs ---------------------------------------------------------------------------------------------

@router.get("/runs")
async def runs_page(request: Request, me: Signed) -> HTMLResponse:
    st = _state(request)
    rows = []
    for rid in await runs.list_runs(st.backend, limit=200):
        try:
            rows.append({**await runs.get(st.backend, rid), "stats": await runs.stats(st.backend, rid),
                         "ended": await _ended(st, rid)})
        except NotFound:
            continue
    return page(request, "runs.html", me, rows=rows, outcomes=OUTCOMES)


async def _ended(st: GatewayState, run_id: str) -> dict[str, Any] | None:
    """The run's final state as the orchestrator reported it, if it did."""
    last = await st.backend.call(st.backend.redis.xrevrange(keys.run_state(run_id), "+", "-", count=20))
    for entry_id, fields in last:
        if fields.get("final") == "True":
            return audit.state_entry(entry_id, fields)
    return None


async def _tasks(st: GatewayState, run_id: str) -> list[dict[str, Any]]:
    """Each task's latest state, in the order tasks first appeared."""
    latest: dict[str, dict[str, Any]] = {}
    cursor = None
    while True:
        changes, cursor = await audit.query_state(st.backend, run_id, cursor=cursor, limit=1000)
        for ch in changes:
            if ch.get("task_id"):
                latest[str(ch["task_id"])] = ch
        if cursor is None:
            return list(latest.values())


@router.get("/runs/{run_id}")
async def run_page(request: Request, run_id: RunPath, me: Signed) -> HTMLResponse:
    st = _state(request)
    run = await runs.get(st.backend, run_id)
    recent = await st.backend.call(st.backend.redis.xrevrange(keys.audit(run_id), "+", "-", count=50))
    decisions = [audit.audit_entry(i, f) for i, f in reversed(recent)]
    pack = st.policy.pack_for(run_id)
    return page(request, "run.html", me, run=run, stats=await runs.stats(st.backend, run_id),
                tasks=await _tasks(st, run_id), decisions=decisions, now_ms=await st.backend.now_ms(),
                pending=await approvals.list_for_run(st.backend, run_id, c.APPROVAL_PENDING, 1000),
                rules=sorted(pack.rules, key=lambda r: (r.priority, r.name)), ended=await _ended(st, run_id),
                outcomes=OUTCOMES)


@router.post("/runs/{run_id}/cancel")
async def cancel(request: Request, run_id: RunPath, me: Acting) -> RedirectResponse:
    me.principal.require("operator")
    st = _state(request)
    await runs.cancel(st.backend, run_id)
    await audit.append_state(st.backend, run_id, {"task_id": "", "state": "cancelled", "final": False,
                                                  "reason": f"cancelled in the console by {me.principal.name}"})
    return RedirectResponse(f"/console/runs/{run_id}", status_code=303)


@router.get("/live/runs/{run_id}")
async def run_live(request: Request, run_id: RunPath, me: Signed) -> EventSourceResponse:
    """The run's decisions, task states and approvals, live; ``Last-Event-ID`` resumes after a reconnect."""
    st, hub = _state(request), _hub(request)
    await runs.get(st.backend, run_id)
    feed, sub, upto = await hub.subscribe_run(run_id, me.can_decide)
    last = request.headers.get("last-event-id")

    async def stream() -> AsyncIterator[ServerSentEvent | bytes]:
        try:
            for missed in await feed.backlog(last, upto):
                yield missed
            async for chunk in sub.events():
                yield chunk
        finally:
            await hub.unsubscribe_run(run_id, sub)

    return EventSourceResponse(stream(), ping=SSE_PING_S, headers={"Cache-Control": "no-store"})


# -- audit --------------------------------------------------------------------------------------------

def _ms(value: str | None, field: str) -> int | None:
    """A ``datetime-local`` value (UTC) or milliseconds."""
    if not value:
        return None
    if value.isdigit():
        return int(value)
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"{field}: not a time (YYYY-MM-DDTHH:MM)") from None
    return int((dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000)


class AuditQuery(BaseModel):
    run: str | None
    agent: str | None
    outcome: str | None
    rule: str | None
    action_type: str | None
    since: str | None
    until: str | None

    def filters(self) -> dict[str, str]:
        pairs = (("agent_id", self.agent), ("outcome", self.outcome), ("rule", self.rule),
                 ("action_type", self.action_type))
        return {k: v for k, v in pairs if v}

    def params(self, **extra: str) -> str:
        return urlencode({**{k: v for k, v in self.model_dump().items() if v}, **extra})


def _audit_query(run: Text = None, agent: Text = None,
                 outcome: Annotated[str | None, Query(max_length=32)] = None, rule: Text = None,
                 action_type: Annotated[str | None, Query(max_length=32)] = None,
                 since: Annotated[str | None, Query(max_length=32)] = None,
                 until: Annotated[str | None, Query(max_length=32)] = None) -> AuditQuery:
    if outcome and outcome not in OUTCOMES:
        raise BadRequest(f"outcome: one of {', '.join(OUTCOMES)}")
    if action_type and action_type not in ACTION_TYPES:
        raise BadRequest(f"action_type: one of {', '.join(ACTION_TYPES)}")
    return AuditQuery(run=run or None, agent=agent or None, outcome=outcome or None, rule=rule or None,
                      action_type=action_type or None, since=since or None, until=until or None)


AuditParams = Annotated[AuditQuery, Depends(_audit_query)]


@router.get("/audit")
async def audit_page(request: Request, me: Signed, q: AuditParams,
                     cursor: Annotated[str | None, Query(max_length=64)] = None) -> HTMLResponse:
    st = _state(request)
    all_runs = await runs.list_runs(st.backend)
    run_id = q.run or (all_runs[0] if all_runs else None)
    records: list[dict[str, Any]] = []
    nxt = None
    if run_id is not None:
        await runs.get(st.backend, run_id)
        records, nxt = await audit.query(st.backend, run_id, filters=q.filters(), since_ms=_ms(q.since, "since"),
                                         until_ms=_ms(q.until, "until"), cursor=cursor, limit=100)
    q = q.model_copy(update={"run": run_id})
    return page(request, "audit.html", me, q=q, runs=all_runs, records=records, outcomes=OUTCOMES,
                action_types=ACTION_TYPES, next_url=f"/console/audit?{q.params(cursor=nxt)}" if nxt else None,
                export_jsonl=f"/console/audit/export?{q.params(format='jsonl')}",
                export_csv=f"/console/audit/export?{q.params(format='csv')}")


CSV_FIELDS = ("ts", "cursor", "run_id", "agent_id", "role", "provider", "tool", "action_type", "target", "outcome",
              "rule", "reason", "approval_id", "decided_by", "decision_reason", "shown_sha256", "retry_after_ms",
              "latency_us", "quota_warned")


@router.get("/audit/export")
async def audit_export(request: Request, me: Signed, q: AuditParams,
                       format: Annotated[str, Query(pattern="^(jsonl|csv)$")] = "jsonl") -> StreamingResponse:
    """Every record of the filtered set (up to 100,000), oldest first, streamed."""
    st = _state(request)
    if not q.run:
        raise BadRequest("run: choose the run to export")
    await runs.get(st.backend, q.run)
    since, until = _ms(q.since, "since"), _ms(q.until, "until")

    async def rows() -> AsyncIterator[str]:
        cursor, sent = None, 0
        if format == "csv":
            yield _csv_line(CSV_FIELDS)
        while sent < EXPORT_MAX:
            records, cursor = await audit.query(st.backend, str(q.run), filters=q.filters(), since_ms=since,
                                                until_ms=until, cursor=cursor, limit=1000)
            for rec in records:
                sent += 1
                yield (json.dumps(rec, ensure_ascii=False) + "\n" if format == "jsonl"
                       else _csv_line(tuple("" if rec.get(f) is None else str(rec.get(f)) for f in CSV_FIELDS)))
            if cursor is None:
                return

    media = "application/x-ndjson" if format == "jsonl" else "text/csv"
    name = f"audit-{q.run}.{format}"
    return StreamingResponse(rows(), media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


def _csv_line(values: tuple[Any, ...]) -> str:
    buf = io.StringIO()
    csv.writer(buf).writerow(values)
    return buf.getvalue()
