"""Human approvals: idempotent per call, admin-only resolution, consumed once, expiry, long poll."""

from __future__ import annotations

import threading

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_gates import _run


def _agent(client, run_id: str = "r1") -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"Authorization": f"Bearer {_run(client, run_id)}"}


def test_risky_command_waits_for_approval_and_retries_reuse_it(client) -> None:
    agent = _agent(client)
    first = dispatch(client, call(run_id="r1", command="git push origin main"), headers=agent)
    assert (first["allowed"], first["outcome"], first["rule"]) == (False, "pending_approval", "approve-risky-commands")
    assert first["approval_id"].startswith("apr-") and "waiting for human approval" in first["reason"]
    again = dispatch(client, call(run_id="r1", command="git push origin main"), headers=agent)
    assert again["approval_id"] == first["approval_id"]
    pending = client.get("/v1/approvals?run=r1&status=pending", headers=ADMIN).json()["approvals"]
    assert [a["approval_id"] for a in pending] == [first["approval_id"]]
    assert pending[0]["target"] == "git push origin main" and pending[0]["input"] == {"command": "git push origin main"}


def test_an_agent_can_never_approve(client) -> None:
    agent = _agent(client)
    d = dispatch(client, call(run_id="r1", command="pip install requests"), headers=agent)
    for verb in ("approve", "reject"):
        r = client.post(f"/v1/approvals/{d['approval_id']}/{verb}", headers=agent)
        assert r.status_code == 403
        assert r.json()["error"]["code"] == "forbidden"
    assert client.get(f"/v1/approvals/{d['approval_id']}", headers=agent).json()["status"] == "pending"


def test_approved_call_runs_once(client) -> None:
    agent = _agent(client)
    body = call(run_id="r1", command="npm install left-pad")
    aid = dispatch(client, body, headers=agent)["approval_id"]
    r = client.post(f"/v1/approvals/{aid}/approve", json={"by": "alice", "reason": "fine"}, headers=ADMIN)
    assert r.status_code == 200 and r.json()["status"] == "approved" and r.json()["resolved_by"] == "alice"
    ok = dispatch(client, body, headers=agent)
    assert (ok["allowed"], ok["outcome"], ok["approval_id"]) == (True, "executed", aid)
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["status"] == "used"
    again = dispatch(client, body, headers=agent)  # a second run of the same command needs a new approval
    assert again["outcome"] == "pending_approval" and again["approval_id"] != aid


def test_approval_is_per_agent_and_target(client) -> None:
    agent = _agent(client)
    aid = dispatch(client, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    client.post(f"/v1/approvals/{aid}/approve", headers=ADMIN)
    other = dispatch(client, call(run_id="r1", agent_id="agent-2", command="git push"), headers=agent)
    assert other["outcome"] == "pending_approval" and other["approval_id"] != aid


def test_rejected_call_is_suppressed_with_the_rejecters_reason(client) -> None:
    agent = _agent(client)
    body = call(run_id="r1", command="git push origin main")
    aid = dispatch(client, body, headers=agent)["approval_id"]
    client.post(f"/v1/approvals/{aid}/reject", json={"by": "bob", "reason": "not on main"}, headers=ADMIN)
    d = dispatch(client, body, headers=agent)
    assert (d["allowed"], d["outcome"], d["approval_id"]) == (False, "suppressed", aid)
    assert "bob" in d["reason"] and "not on main" in d["reason"]


def test_resolving_twice_is_a_conflict(client) -> None:
    agent = _agent(client)
    aid = dispatch(client, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    assert client.post(f"/v1/approvals/{aid}/approve", headers=ADMIN).status_code == 200
    r = client.post(f"/v1/approvals/{aid}/reject", headers=ADMIN)
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"


def test_approvals_expire(client, clock) -> None:
    agent = _agent(client)
    body = call(run_id="r1", command="git push")
    aid = dispatch(client, body, headers=agent)["approval_id"]
    clock.advance(600_000)
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["status"] == "expired"
    assert client.post(f"/v1/approvals/{aid}/approve", headers=ADMIN).status_code == 409
    fresh = dispatch(client, body, headers=agent)
    assert fresh["outcome"] == "pending_approval" and fresh["approval_id"] != aid


def test_approval_of_a_cancelled_run_does_not_let_the_call_run(client) -> None:
    agent = _agent(client)
    body = call(run_id="r1", command="git push")
    aid = dispatch(client, body, headers=agent)["approval_id"]
    client.post(f"/v1/approvals/{aid}/approve", headers=ADMIN)
    client.post("/v1/runs/r1/cancel", headers=ADMIN)
    assert dispatch(client, body, headers=agent)["outcome"] == "cancelled"


def test_long_poll_returns_when_approved(make_client) -> None:
    waiter = make_client(use_clock=False)
    approver = make_client(use_clock=False)  # a second gateway on the same store
    agent = _agent(waiter)
    aid = dispatch(waiter, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    result: dict[str, object] = {}

    def wait() -> None:
        result.update(waiter.get(f"/v1/approvals/{aid}/wait?timeout_s=20", headers=agent).json())

    t = threading.Thread(target=wait)
    t.start()
    approver.post(f"/v1/approvals/{aid}/approve", headers=ADMIN)
    t.join(timeout=25)
    assert result.get("status") == "approved"


def test_long_poll_times_out_pending(client) -> None:
    agent = _agent(client)
    aid = dispatch(client, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    r = client.get(f"/v1/approvals/{aid}/wait?timeout_s=0", headers=agent)
    assert r.status_code == 200 and r.json()["status"] == "pending"
