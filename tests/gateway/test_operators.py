"""Named operators with roles, and decisions bound to what the person was shown (the content hash)."""

from __future__ import annotations

import hashlib

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_gates import _run


def _operator(client, name: str, role: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    r = client.post("/v1/operators", json={"name": name, "role": role}, headers=ADMIN)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['operator_key']}"}


def _pending(client, command: str = "git push origin main") -> tuple[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    agent = {"Authorization": f"Bearer {_run(client, 'r1')}"}
    d = dispatch(client, call(run_id="r1", command=command), headers=agent)
    assert d["outcome"] == "pending_approval"
    return d["approval_id"], agent


def test_roles_viewer_looks_operator_decides_admin_manages(client) -> None:
    aid, _ = _pending(client)
    viewer, operator = _operator(client, "vera", "viewer"), _operator(client, "otto", "operator")
    shown = client.get(f"/v1/approvals/{aid}", headers=viewer).json()
    assert client.get("/v1/runs", headers=viewer).status_code == 200
    assert client.get("/v1/runs/r1/audit", headers=viewer).status_code == 200
    refused = client.post(f"/v1/approvals/{aid}/approve", json={"shown_sha256": shown["shown_sha256"]}, headers=viewer)
    assert refused.status_code == 403 and "viewer" in refused.json()["error"]["message"]
    assert client.post("/v1/runs/r1/cancel", headers=viewer).status_code == 403
    # An operator decides, but manages nothing.
    assert client.post("/v1/operators", json={"name": "x"}, headers=operator).status_code == 403
    assert client.put("/v1/rules", json={"rules": []}, headers=operator).status_code == 403
    ok = client.post(f"/v1/approvals/{aid}/approve", json={"shown_sha256": shown["shown_sha256"]}, headers=operator)
    assert ok.status_code == 200 and ok.json()["resolved_by"] == "otto"


def test_an_operator_decides_as_itself_and_must_say_what_it_saw(client) -> None:
    aid, _ = _pending(client)
    operator = _operator(client, "otto", "operator")
    blind = client.post(f"/v1/approvals/{aid}/approve", headers=operator)
    assert blind.status_code == 422 and "shown_sha256" in blind.json()["error"]["message"]
    sha = client.get(f"/v1/approvals/{aid}", headers=operator).json()["shown_sha256"]
    posing = client.post(f"/v1/approvals/{aid}/approve", json={"by": "alice", "shown_sha256": sha}, headers=operator)
    assert posing.status_code == 403
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["status"] == "pending"


def test_a_decision_on_other_bytes_than_the_pending_item_is_refused(client) -> None:
    aid, agent = _pending(client)
    operator = _operator(client, "otto", "operator")
    other = hashlib.sha256(b"tool: Bash\ntarget: git status\n").hexdigest()
    r = client.post(f"/v1/approvals/{aid}/approve", json={"shown_sha256": other}, headers=operator)
    assert r.status_code == 409 and "not what was shown" in r.json()["error"]["message"]
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["status"] == "pending"
    # The right hash is recorded on the approval and in the audit record of the call it let through.
    view = client.get(f"/v1/approvals/{aid}", headers=operator).json()
    assert hashlib.sha256(view["shown"].encode()).hexdigest() == view["shown_sha256"]
    client.post(f"/v1/approvals/{aid}/approve", json={"shown_sha256": view["shown_sha256"], "reason": "hotfix"},
                headers=operator)
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["resolved_shown_sha256"] == view["shown_sha256"]
    ran = dispatch(client, call(run_id="r1", command="git push origin main"), headers=agent)
    assert ran["outcome"] == "executed"
    records = client.get("/v1/runs/r1/audit", headers=ADMIN).json()["records"]
    assert (records[-1]["decided_by"], records[-1]["decision_reason"], records[-1]["shown_sha256"]) == (
        "otto", "hotfix", view["shown_sha256"])


def test_an_approval_covers_the_input_it_showed_not_another_edit_of_the_same_file(make_client, tmp_path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "p.yaml").write_text("rules:\n  - name: review-writes\n    priority: 1\n"
                                  "    when: {action_type: write_file}\n    action: request_approval\n")
    client = make_client(rules_dir=rules)
    agent = {"Authorization": f"Bearer {_run(client, 'r1')}"}
    body = call(tool="Write", run_id="r1", input={"file_path": "/work/app.py", "content": "print('hi')\n"})
    first = dispatch(client, body, headers=agent)
    assert first["outcome"] == "pending_approval"
    view = client.get(f"/v1/approvals/{first['approval_id']}", headers=ADMIN).json()
    assert "+print('hi')" in view["shown"]  # a write is shown as a diff
    client.post(f"/v1/approvals/{first['approval_id']}/approve", headers=ADMIN)
    other = dispatch(client, call(tool="Write", run_id="r1", input={"file_path": "/work/app.py",
                                                                     "content": "import os; os.system('x')\n"}),
                     headers=agent)
    assert other["outcome"] == "pending_approval" and other["approval_id"] != first["approval_id"]
    assert dispatch(client, body, headers=agent)["outcome"] == "executed"  # the reviewed one runs


def test_a_revoked_operator_is_refused_at_once(client) -> None:
    operator = _operator(client, "otto", "operator")
    assert client.get("/v1/runs", headers=operator).status_code == 200
    listed = client.get("/v1/operators", headers=ADMIN).json()["operators"]
    assert [(o["name"], o["role"]) for o in listed] == [("otto", "operator")]
    assert client.delete("/v1/operators/otto", headers=ADMIN).status_code == 200
    assert client.get("/v1/runs", headers=operator).status_code == 401
    assert client.delete("/v1/operators/otto", headers=ADMIN).status_code == 404


def test_a_revoke_cut_short_after_the_key_frees_the_name_when_asked_again(client) -> None:
    """A revoke deletes the key, then the name (on a cluster they live in different slots): stopped in between,
    the key lets nobody in, the name is not listed, and revoking again frees it."""
    from gateway.auth import hash_key
    from gateway.store import keys

    operator = _operator(client, "otto", "operator")
    digest = hash_key(operator["Authorization"].split()[1])
    backend = client.app.state.gateway.backend
    client.portal.call(backend.redis.delete, keys.operator(digest))  # the first write of a revoke, alone
    assert client.get("/v1/runs", headers=operator).status_code == 401
    assert client.get("/v1/operators", headers=ADMIN).json()["operators"] == []
    assert client.post("/v1/operators", json={"name": "otto"}, headers=ADMIN).status_code == 409
    assert client.delete("/v1/operators/otto", headers=ADMIN).status_code == 200
    assert client.post("/v1/operators", json={"name": "otto"}, headers=ADMIN).status_code == 201


def test_operator_names_are_unique_and_the_key_is_never_listed(client) -> None:
    _operator(client, "otto", "viewer")
    again = client.post("/v1/operators", json={"name": "otto", "role": "admin"}, headers=ADMIN)
    assert again.status_code == 409
    assert "acteon_op" not in client.get("/v1/operators", headers=ADMIN).text
    bad = client.post("/v1/operators", json={"name": "a b", "role": "root"}, headers=ADMIN)
    assert bad.status_code == 422


def test_operators_do_not_act_as_agents(client) -> None:
    _run(client, "r1")
    operator = _operator(client, "otto", "operator")
    r = client.post("/v1/dispatch", json=call(run_id="r1", command="ls"), headers=operator)
    assert r.status_code == 403
    event = {"agent_id": "agent-1", "tool": "Bash", "success": True}
    assert client.post("/v1/runs/r1/events", json=event, headers=operator).status_code == 403
