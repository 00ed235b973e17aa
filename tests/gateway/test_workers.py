"""Worker keys and per-attempt agent keys: the fence of a distributed run lives in the gateway.

A worker machine holds a worker key that can do one thing: mint an agent key for one ``(run, agent,
attempt)``, and only for an attempt newer than the agent's current one. Every dispatch checks the key's
attempt against the current one inside the decision script, so the moment a newer attempt is minted
(the task re-ran elsewhere) every call of the old attempt's agent is ``superseded``, and audited as such.
"""

from __future__ import annotations

import concurrent.futures

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_gates import _run

ROOT = "/srv/acteon/worktrees/r1/a.1"


def _worker(client, name: str = "box-1") -> dict[str, str]:  # type: ignore[no-untyped-def]
    r = client.post("/v1/workers", json={"name": name}, headers=ADMIN)
    assert r.status_code == 201, r.text
    assert r.json()["worker_key"].startswith("acteon_worker_")
    return {"Authorization": f"Bearer {r.json()['worker_key']}"}


def _mint(client, worker, run_id: str = "r1", agent_id: str = "a.1", attempt: int = 1,  # type: ignore[no-untyped-def]
          **body):  # type: ignore[no-untyped-def]
    return client.post(f"/v1/runs/{run_id}/attempts",
                       json={"agent_id": agent_id, "attempt": attempt, "root": ROOT, **body}, headers=worker)


def _key(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 201, response.text
    return {"Authorization": f"Bearer {response.json()['agent_key']}"}


def _read(client, key, run_id: str = "r1", agent_id: str = "a.1") -> dict:  # type: ignore[no-untyped-def, type-arg]
    return dispatch(client, call(tool="Read", run_id=run_id, agent_id=agent_id,
                                 file_path=f"{ROOT}/src/app.py"), headers=key)


def test_a_newer_attempt_supersedes_the_old_key_at_once_and_the_audit_says_so(client) -> None:
    _run(client, "r1")
    worker = _worker(client)
    first = _key(_mint(client, worker, attempt=1))
    assert _read(client, first)["outcome"] == "executed"
    second = _key(_mint(client, worker, attempt=2))
    stale = _read(client, first)
    assert stale["outcome"] == "superseded" and stale["allowed"] is False
    assert stale["rule"] == "attempt-superseded" and "attempt 1" in stale["reason"] and "2" in stale["reason"]
    assert _read(client, second)["outcome"] == "executed"
    records = client.get("/v1/runs/r1/audit", params={"outcome": "superseded"}, headers=ADMIN).json()["records"]
    assert [(r["agent_id"], r["outcome"], r["rule"]) for r in records] == [("a.1", "superseded", "attempt-superseded")]
    stats = client.get("/v1/runs/r1/stats", headers=ADMIN).json()
    assert stats["superseded"] == 1 and stats["executed"] == 2
    assert client.get("/v1/runs/r1/attempts", headers=ADMIN).json()["attempts"] == {"a.1": 2}


def test_the_key_acts_as_its_agent_whatever_the_call_claims(client) -> None:
    _run(client, "r1")
    key = _key(_mint(client, _worker(client), attempt=1))
    # Claiming to be another agent does not escape the fence: the binding names the agent.
    _key(_mint(client, _worker(client, "box-2"), attempt=2))
    assert _read(client, key, agent_id="someone-else")["outcome"] == "superseded"


def test_only_a_newer_attempt_is_minted(client) -> None:
    _run(client, "r1")
    worker = _worker(client)
    _key(_mint(client, worker, attempt=3))
    for attempt in (3, 2, 1):
        r = _mint(client, worker, attempt=attempt)
        assert r.status_code == 409 and "attempt 3" in r.json()["error"]["message"]
    assert _mint(client, worker, attempt=0).status_code == 422
    # Other agents of the run have their own attempts.
    _key(_mint(client, worker, agent_id="b.1", attempt=1))


def test_concurrent_mints_of_one_attempt_give_exactly_one_key(client) -> None:
    _run(client, "r1")
    worker = _worker(client)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _i: _mint(client, worker, attempt=1).status_code, range(16)))
    assert sorted(answers) == [201] + [409] * 15


def test_a_worker_key_does_nothing_but_mint(client) -> None:
    agent_key = _run(client, "r1")
    worker = _worker(client)
    assert client.post("/v1/dispatch", json=call(run_id="r1"), headers=worker).status_code == 403
    assert client.post("/v1/runs", json={"run_id": "r2"}, headers=worker).status_code == 403
    assert client.post("/v1/runs/r1/agent-keys", headers=worker).status_code == 403
    assert client.post("/v1/runs/r1/cancel", headers=worker).status_code == 403
    assert client.get("/v1/runs/r1/audit", headers=worker).status_code == 403
    assert client.get("/v1/approvals", headers=worker).status_code == 403
    assert client.post("/v1/workers", json={"name": "box-9"}, headers=worker).status_code == 403
    assert client.put("/v1/rules", json={"rules": []}, headers=worker).status_code == 403
    # No key of the default run (every session outside a run), and only bound keys: an attempt names its agent.
    assert _mint(client, worker, run_id="default").status_code == 403
    assert client.post("/v1/runs/r1/attempts", json={"attempt": 1}, headers=worker).status_code == 422
    # Neither an agent key nor a person without the admin role mints.
    agent = {"Authorization": f"Bearer {agent_key}"}
    assert _mint(client, agent).status_code == 403
    viewer = client.post("/v1/operators", json={"name": "vera", "role": "viewer"}, headers=ADMIN).json()
    assert _mint(client, {"Authorization": f"Bearer {viewer['operator_key']}"}).status_code == 403
    # A worker cannot sign in to the console.
    page = client.get("/console/login")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    signin = client.post("/console/login", data={"key": worker["Authorization"][7:], "csrf": csrf},
                         follow_redirects=False)
    assert signin.status_code != 303


def test_a_key_of_run_a_is_refused_for_run_b(client) -> None:
    _run(client, "run-a")
    _run(client, "run-b")
    key = _key(_mint(client, _worker(client), run_id="run-a"))
    assert _read(client, key, run_id="run-a")["outcome"] == "executed"
    refused = client.post("/v1/dispatch", json=call(tool="Read", run_id="run-b", agent_id="a.1",
                                                    file_path=f"{ROOT}/x"), headers=key)
    assert refused.status_code == 403


def test_no_mint_for_a_cancelled_or_unknown_run(client) -> None:
    _run(client, "r1")
    worker = _worker(client)
    key = _key(_mint(client, worker, attempt=1))
    assert _mint(client, worker, run_id="nope").status_code == 404
    assert client.post("/v1/runs/r1/cancel", headers=ADMIN).status_code == 200
    r = _mint(client, worker, attempt=2)
    assert r.status_code == 409 and "cancelled" in r.json()["error"]["message"]
    assert _read(client, key)["outcome"] == "cancelled"


def test_revoking_a_worker_stops_its_minting_at_once_not_its_agents(client) -> None:
    _run(client, "r1")
    worker = _worker(client)
    key = _key(_mint(client, worker, attempt=1))
    listed = client.get("/v1/workers", headers=ADMIN).json()["workers"]
    assert [w["name"] for w in listed] == ["box-1"]
    assert "worker_key" not in str(listed) and "acteon_worker_" not in str(listed)
    # Workers are not operators, and operators are not workers.
    assert client.get("/v1/operators", headers=ADMIN).json()["operators"] == []
    assert client.delete("/v1/workers/box-1", headers=ADMIN).status_code == 200
    assert _mint(client, worker, attempt=2).status_code == 401
    assert client.delete("/v1/workers/box-1", headers=ADMIN).status_code == 404
    # Its agent keeps its attempt until a newer one is minted (the coordinator re-runs the task elsewhere).
    assert _read(client, key)["outcome"] == "executed"


def test_a_worker_name_is_taken_once(client) -> None:
    _worker(client, "box-1")
    again = client.post("/v1/workers", json={"name": "box-1"}, headers=ADMIN)
    assert again.status_code == 409
    bad = client.post("/v1/workers", json={"name": "../box"}, headers=ADMIN)
    assert bad.status_code == 422


def test_a_minted_key_keeps_the_file_scope_it_was_given(client) -> None:
    _run(client, "r1")
    key = _key(_mint(client, _worker(client), attempt=1, files_scope=["src/**"]))
    inside = dispatch(client, call(tool="Write", run_id="r1", agent_id="a.1",
                                   input={"file_path": f"{ROOT}/src/new.py", "content": "x"}), headers=key)
    outside = dispatch(client, call(tool="Write", run_id="r1", agent_id="a.1",
                                    input={"file_path": "/etc/passwd", "content": "x"}), headers=key)
    assert outside["outcome"] == "suppressed"
    assert inside["rule"] != outside["rule"]
