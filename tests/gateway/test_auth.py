"""Keys: admin vs run-scoped agent keys; an agent key is confined to its own run."""

from __future__ import annotations

import stat

from tests.conftest import ADMIN, call
from tests.gateway.test_gates import _run


def test_missing_and_unknown_keys_are_401(client) -> None:
    assert client.post("/v1/dispatch", json=call(command="ls")).status_code == 401
    r = client.post("/v1/dispatch", json=call(command="ls"), headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    r = client.post("/v1/dispatch", json=call(command="ls"), headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_agent_key_is_confined_to_its_run(client) -> None:
    k1 = {"Authorization": f"Bearer {_run(client, 'one')}"}
    _run(client, "two")
    assert client.post("/v1/dispatch", json=call(run_id="one", command="ls"), headers=k1).status_code == 200
    r = client.post("/v1/dispatch", json=call(run_id="two", command="ls"), headers=k1)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert client.post("/v1/dispatch", json=call(run_id="default", command="ls"), headers=k1).status_code == 403


def test_agent_key_cannot_read_runs_change_rules_or_create_runs(client) -> None:
    k1 = {"Authorization": f"Bearer {_run(client, 'one')}"}
    _run(client, "two")
    for method, path, body in [
        ("get", "/v1/runs/two", None), ("get", "/v1/runs/two/stats", None), ("get", "/v1/runs/two/audit", None),
        ("get", "/v1/runs/one/audit", None), ("get", "/v1/approvals?run=two", None),
        ("put", "/v1/rules", {"yaml": "rules: []"}), ("put", "/v1/runs/one/rules", {"rules": []}),
        ("post", "/v1/runs", {"run_id": "three"}), ("post", "/v1/runs/one/cancel", None),
        ("post", "/v1/runs/two/events", {"agent_id": "x", "tool": "Bash", "success": True}),
    ]:
        r = client.request(method, path, json=body, headers=k1)
        assert r.status_code == 403, (method, path, r.status_code)


def test_agent_key_may_post_events_for_its_run(client) -> None:
    k1 = {"Authorization": f"Bearer {_run(client, 'one')}"}
    ev = {"agent_id": "a", "tool": "Bash", "success": True, "duration_ms": 12, "size": 100}
    assert client.post("/v1/runs/one/events", json=ev, headers=k1).status_code == 202


def test_creating_a_run_twice_is_a_conflict(client) -> None:
    _run(client, "dup")
    assert client.post("/v1/runs", json={"run_id": "dup"}, headers=ADMIN).status_code == 409


def test_embedded_admin_key_file_is_owner_only(tmp_path) -> None:
    from gateway.auth import ensure_admin_key

    key, path = ensure_admin_key(tmp_path / "state")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ensure_admin_key(tmp_path / "state")[0] == key  # stable across restarts
    assert len(key) > 40


def test_the_default_pack_forbids_agents_reading_the_gateway_key(client) -> None:
    state_dir = client.app.state.gateway.settings.state_dir.resolve()
    r = client.post("/v1/dispatch", json=call(command=f"cat {state_dir}/admin.key"), headers=ADMIN).json()
    assert r["rule"] == "block-credential-access"
    r = client.post("/v1/dispatch", json=call(tool="Read", file_path=f"{state_dir}/admin.key"), headers=ADMIN).json()
    assert r["rule"] == "block-credential-access"
