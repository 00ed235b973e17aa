"""The audit trail (one stream entry per non-dry-run dispatch) and tool completion events."""

from __future__ import annotations

import json
from typing import Any

from gateway.errors import BadRequest
from gateway.store import keys
from gateway.store.backend import Backend

_INT_FIELDS = ("ts", "retry_after_ms", "latency_us")
_SCAN_CHUNK = 500
_SCAN_LIMIT = 20_000  # entries examined per page at most, so a rare filter cannot stall the server


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
            try:
                rec[k] = int(v)
            except ValueError:
                rec[k] = None
        else:
            rec[k] = v if v != "" else None
    return rec


async def query(
    backend: Backend,
    run_id: str,
    *,
    filters: dict[str, str],
    since_ms: int | None,
    cursor: str | None,
    limit: int,
) -> tuple[list[dict[str, Any]], str | None]:
    """Records oldest first after ``cursor``; returns (records, next cursor or None when done)."""
    if cursor is not None:
        parts = cursor.split("-")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise BadRequest("cursor: not a cursor returned by this endpoint")
        start = "(" + cursor
    else:
        start = "-"
    out: list[dict[str, Any]] = []
    scanned = 0
    last: str | None = None
    while scanned < _SCAN_LIMIT:
        chunk = await backend.call(backend.redis.xrange(keys.audit(run_id), start, "+", count=_SCAN_CHUNK))
        if not chunk:
            return out, None
        for entry_id, fields in chunk:
            scanned += 1
            last = entry_id
            if since_ms is not None and int(fields.get("ts", 0)) < since_ms:
                continue
            rec = _record(entry_id, fields)
            if all(rec.get(k) == v for k, v in filters.items()):
                out.append(rec)
                if len(out) >= limit:
                    return out, entry_id
        if len(chunk) < _SCAN_CHUNK:
            return out, None
        start = "(" + chunk[-1][0]
    return out, last


async def append_event(backend: Backend, run_id: str, event: dict[str, Any]) -> str:
    fields: dict[Any, Any] = {
        k: ("" if v is None else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in event.items()
    }
    fields["ts"] = str(await backend.now_ms())
    return str(await backend.call(backend.redis.xadd(keys.events(run_id), fields)))

