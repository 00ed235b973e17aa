"""Audit filters and cursor pagination; health and metrics."""

from __future__ import annotations

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch


def test_audit_filters_and_cursor_pagination(client, clock) -> None:
    for i in range(25):
        agent = "a" if i % 2 else "b"
        cmd = "rm -rf /" if i % 5 == 0 else f"echo {i}"
        dispatch(client, call(command=cmd, agent_id=agent))
        clock.advance(10)
    seen: list[str] = []
    cursor = None
    while True:
        q = "/v1/runs/default/audit?limit=7" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(q, headers=ADMIN).json()
        seen.extend(r["action_id"] for r in page["records"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 25
    sup = client.get("/v1/runs/default/audit?outcome=suppressed", headers=ADMIN).json()["records"]
    assert len(sup) == 5 and {r["rule"] for r in sup} == {"block-destructive-commands"}
    a = client.get("/v1/runs/default/audit?agent=a&action_type=execute_command", headers=ADMIN).json()["records"]
    assert len(a) == 12 and all(r["agent_id"] == "a" for r in a)
    since = client.get(f"/v1/runs/default/audit?since={clock.ms - 50}", headers=ADMIN).json()["records"]
    assert len(since) == 5
    rule = client.get("/v1/runs/default/audit?rule=allow-normal-operations&limit=1000", headers=ADMIN).json()
    assert len(rule["records"]) == 20 and rule["next_cursor"] is None


def test_health_and_metrics(client) -> None:
    h = client.get("/v1/health")
    assert h.status_code == 200
    assert h.json()["status"] == "ok" and h.json()["rules"]["count"] >= 9
    dispatch(client, call(command="ls"))
    m = client.get("/metrics").text
    assert 'acteon_decisions_total{action_type="execute_command",outcome="executed"} 1.0' in m


def test_openapi_schema_is_served(client) -> None:
    schema = client.get("/openapi.json").json()
    assert "/v1/dispatch" in schema["paths"]
