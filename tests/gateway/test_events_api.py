"""GET /v1/runs/{id}/events: completion events with cursor paging, typed fields, admin only."""

from __future__ import annotations

from tests.conftest import ADMIN
from tests.gateway.test_gates import _run


def _post(client, key: str, run_id: str, **ev) -> str:  # type: ignore[no-untyped-def]
    body = {"agent_id": "t1.s1", "tool": "Bash", "success": True, **ev}
    r = client.post(f"/v1/runs/{run_id}/events", json=body, headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 202, r.text
    return str(r.json()["event_id"])


def _all(client, run_id: str, limit: int) -> tuple[list[dict], int]:  # type: ignore[no-untyped-def,type-arg]
    events: list[dict] = []  # type: ignore[type-arg]
    pages = 0
    cursor = None
    while True:
        q = f"/v1/runs/{run_id}/events?limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        r = client.get(q, headers=ADMIN)
        assert r.status_code == 200, r.text
        page = r.json()
        events.extend(page["events"])
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            return events, pages


def test_events_page_oldest_first_with_typed_fields(client, clock) -> None:
    key = _run(client, "ev1")
    ids = []
    for i in range(17):
        ids.append(_post(client, key, "ev1", success=i % 3 != 0, duration_ms=i * 10, size=i, tool=f"T{i}"))
        clock.advance(5)
    events, pages = _all(client, "ev1", limit=5)
    assert [e["cursor"] for e in events] == ids and pages == 4
    first, second = events[0], events[1]
    assert first["success"] is False and second["success"] is True
    assert (second["duration_ms"], second["size"], second["tool"]) == (10, 1, "T1")
    assert isinstance(first["ts"], int) and events[-1]["ts"] - first["ts"] == 16 * 5
    assert first["kind"] == "tool_completed" and first["agent_id"] == "t1.s1"
    assert first["error"] is None and first["tool_use_id"] is None  # unset fields come back as null


def test_events_cursor_resumes_after_the_last_seen(client) -> None:
    key = _run(client, "ev2")
    a = _post(client, key, "ev2")
    page = client.get(f"/v1/runs/ev2/events?cursor={a}", headers=ADMIN).json()
    assert page == {"run_id": "ev2", "events": [], "next_cursor": None}
    b = _post(client, key, "ev2", success=False, error="exit 1")
    page = client.get(f"/v1/runs/ev2/events?cursor={a}", headers=ADMIN).json()
    assert [(e["cursor"], e["success"], e["error"]) for e in page["events"]] == [(b, False, "exit 1")]


def test_events_of_an_empty_run_and_a_full_last_page(client) -> None:
    key = _run(client, "ev3")
    assert client.get("/v1/runs/ev3/events", headers=ADMIN).json()["events"] == []
    for _ in range(4):
        _post(client, key, "ev3")
    page = client.get("/v1/runs/ev3/events?limit=4", headers=ADMIN).json()
    # A full page cannot know it was the last: it hands out a cursor, and the next page is empty.
    assert len(page["events"]) == 4 and page["next_cursor"] == page["events"][-1]["cursor"]
    assert client.get(f"/v1/runs/ev3/events?cursor={page['next_cursor']}", headers=ADMIN).json()["events"] == []


def test_bad_cursor_and_limit_are_refused_with_a_clear_message(client) -> None:
    _run(client, "ev4")
    for bad in ("zzz", "1-2-3", "-1", "12-x"):
        r = client.get(f"/v1/runs/ev4/events?cursor={bad}", headers=ADMIN)
        assert r.status_code == 422, (bad, r.status_code)
        err = r.json()["error"]
        assert err["code"] == "invalid_request" and "cursor" in err["message"]
    assert client.get("/v1/runs/ev4/events?limit=0", headers=ADMIN).status_code == 422
    assert client.get("/v1/runs/ev4/events?limit=1001", headers=ADMIN).status_code == 422


def test_events_of_an_unknown_run_are_404_like_the_audit(client) -> None:
    assert client.get("/v1/runs/nope/events", headers=ADMIN).status_code == 404
    assert client.get("/v1/runs/nope/audit", headers=ADMIN).status_code == 404


def test_agent_keys_cannot_read_events(client) -> None:
    key = _run(client, "ev5")
    _post(client, key, "ev5")
    agent = {"Authorization": f"Bearer {key}"}
    r = client.get("/v1/runs/ev5/events", headers=agent)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert client.get("/v1/runs/ev5/events").status_code == 401
