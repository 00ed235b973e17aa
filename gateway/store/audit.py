"""The audit trail (one stream entry per non-dry-run dispatch), tool completion events, and the
orchestrator's task state changes.

All three are Redis streams read oldest first with the same opaque cursor (the stream entry id), so one
pager serves the audit route and the events route.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gateway.errors import BadRequest
from gateway.store import keys
from gateway.store.backend import Backend

_INT_FIELDS = ("ts", "retry_after_ms", "latency_us", "quota_warned")
_SCAN_CHUNK = 500
_SCAN_LIMIT = 20_000  # entries examined per page at most, so a rare filter cannot stall the server

# Turns one stream entry (id, fields) into the record to return, or None to leave it out.
Select = Callable[[str, dict[str, str]], dict[str, Any] | None]


def _int_or_none(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def _record(entry_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """One stream entry as an audit record: the decision's fields plus the call's packed fields."""
    rec: dict[str, Any] = {"cursor": entry_id}
    try:
        rec.update(json.loads(fields.get("call") or "{}"))
    except ValueError:
        rec["call"] = fields.get("call")
    for k, v in fields.items():
        if k == "call":
            continue
        if k in _INT_FIELDS:
            rec[k] = _int_or_none(v)
        else:
            rec[k] = v if v != "" else None
    return rec


def _start(cursor: str | None) -> str:
    """The XRANGE start for a page: just after ``cursor`` (an entry id this API returned)."""
    if cursor is None:
        return "-"
    parts = cursor.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise BadRequest("cursor: not a cursor returned by this endpoint")
    return "(" + cursor


async def _page(
    backend: Backend, stream: str, *, select: Select, cursor: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """Up to ``limit`` selected entries of ``stream`` after ``cursor``, oldest first; returns
    (records, next cursor or None when the stream is exhausted). At most ``_SCAN_LIMIT`` entries are
    examined per page: a selective filter then answers a short page with a cursor to continue from."""
    start = _start(cursor)
    out: list[dict[str, Any]] = []
    scanned = 0
    last: str | None = None
    while scanned < _SCAN_LIMIT:
        chunk = await backend.call(backend.redis.xrange(stream, start, "+", count=_SCAN_CHUNK))
        if not chunk:
            return out, None
        for entry_id, fields in chunk:
            scanned += 1
            last = entry_id
            rec = select(entry_id, fields)
            if rec is not None:
                out.append(rec)
                if len(out) >= limit:
                    return out, entry_id
        if len(chunk) < _SCAN_CHUNK:
            return out, None
        start = "(" + chunk[-1][0]
    return out, last


def matches(rec: dict[str, Any], filters: dict[str, str]) -> bool:
    return all(rec.get(k) == v for k, v in filters.items())


async def query(
    backend: Backend,
    run_id: str,
    *,
    filters: dict[str, str],
    since_ms: int | None,
    cursor: str | None,
    limit: int,
    until_ms: int | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Records oldest first after ``cursor``; returns (records, next cursor or None when done)."""

    def select(entry_id: str, fields: dict[str, str]) -> dict[str, Any] | None:
        ts = int(fields.get("ts", 0))
        if (since_ms is not None and ts < since_ms) or (until_ms is not None and ts > until_ms):
            return None
        rec = _record(entry_id, fields)
        return rec if matches(rec, filters) else None

    return await _page(backend, keys.audit(run_id), select=select, cursor=cursor, limit=limit)


def _event(entry_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """One completion event as stored: ``ts`` as an int, empty strings as None, the rest as text (the
    store does not know the event model; the API turns its typed fields back into their types)."""
    ev: dict[str, Any] = {"cursor": entry_id}
    for k, v in fields.items():
        ev[k] = _int_or_none(v) if k == "ts" else (v if v != "" else None)
    return ev


async def query_events(
    backend: Backend, run_id: str, *, cursor: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """Completion events oldest first after ``cursor``; returns (events, next cursor or None when done)."""
    return await _page(backend, keys.events(run_id), select=_event, cursor=cursor, limit=limit)


async def append_event(backend: Backend, run_id: str, event: dict[str, Any]) -> str:
    fields: dict[Any, Any] = {
        k: ("" if v is None else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in event.items()
    }
    fields["ts"] = str(await backend.now_ms())
    return str(await backend.call(backend.redis.xadd(keys.events(run_id), fields)))


STATE_MAXLEN = 10_000  # task state changes kept per run (a run has far fewer)


async def append_state(backend: Backend, run_id: str, change: dict[str, Any]) -> str:
    """One task (or the run itself, ``task_id`` empty) changing state, as the orchestrator reports it."""
    fields: dict[Any, Any] = {k: "" if v is None else str(v) for k, v in change.items()}
    fields["ts"] = str(await backend.now_ms())
    return str(await backend.call(
        backend.redis.xadd(keys.run_state(run_id), fields, maxlen=STATE_MAXLEN, approximate=True)))


async def query_state(
    backend: Backend, run_id: str, *, cursor: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """Task state changes oldest first after ``cursor``."""
    return await _page(backend, keys.run_state(run_id), select=_event, cursor=cursor, limit=limit)


def state_entry(entry_id: str, fields: dict[str, str]) -> dict[str, Any]:
    return _event(entry_id, fields)


def audit_entry(entry_id: str, fields: dict[str, str]) -> dict[str, Any]:
    return _record(entry_id, fields)
