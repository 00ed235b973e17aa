"""Rule packs through the API: a bad pack never replaces a good one; changes reach every process."""

from __future__ import annotations

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_gates import _run

ALLOW_ALL_BUT_LS = """
rules:
  - name: no-ls
    priority: 1
    when: {executable: ls}
    action: suppress
    reason: no listing today
  - name: allow-rest
    priority: 2
    action: allow
"""


def test_bad_pack_is_refused_and_the_old_one_stays(client) -> None:
    before = client.get("/v1/rules", headers=ADMIN).json()
    bad = "rules:\n  - name: Bad_Name\n    priority: one\n    action: explode\n    when: {colour: red}\n"
    r = client.put("/v1/rules", json={"yaml": bad}, headers=ADMIN)
    assert r.status_code == 422
    msg = r.json()["error"]["message"]
    assert "rule 'Bad_Name'" in msg and "api" in msg
    assert client.get("/v1/rules", headers=ADMIN).json()["version"] == before["version"]
    assert dispatch(client, call(command="rm -rf /"))["outcome"] == "suppressed"


def test_empty_global_pack_is_refused(client) -> None:
    assert client.put("/v1/rules", json={"rules": []}, headers=ADMIN).status_code == 422


def test_validate_reports_every_problem_without_installing(client) -> None:
    bad = {"rules": [{"name": "a", "priority": 1, "action": "throttle"},
                     {"name": "a", "priority": 2, "action": "allow", "when": {"path": {"matches": "("}}}]}
    r = client.post("/v1/rules/validate", json=bad, headers=ADMIN).json()
    assert r["valid"] is False
    text = " ".join(r["errors"])
    assert "needs 'limit'" in text and "bad regex" in text
    good = client.post("/v1/rules/validate", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).json()
    assert good == {"valid": True, "version": good["version"], "rules": ["no-ls", "allow-rest"]}


def test_new_global_pack_reaches_another_gateway_process(make_client) -> None:
    a = make_client()
    b = make_client()
    assert dispatch(b, call(command="ls"))["outcome"] == "executed"
    assert a.put("/v1/rules", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).status_code == 200
    # No waiting for pub/sub or the periodic check: the decision script refuses b's cached version,
    # so b's very next decision uses the new pack.
    d = dispatch(b, call(command="ls"))
    assert (d["outcome"], d["rule"]) == ("suppressed", "no-ls")


def test_run_rules_override_a_global_rule_by_name_in_every_process(make_client) -> None:
    a = make_client()
    b = make_client()
    key = {"Authorization": f"Bearer {_run(a, 'r')}"}
    for _ in range(12):
        dispatch(b, call(run_id="r", command="true"), headers=key)
    assert dispatch(b, call(run_id="r", command="true"), headers=key)["outcome"] == "throttled"
    looser = {"rules": [{"name": "throttle-agent-commands", "priority": 5, "action": "throttle",
                         "limit": 100, "window_s": 60, "when": {"action_type": "execute_command"}}]}
    assert a.put("/v1/runs/r/rules", json=looser, headers=ADMIN).status_code == 200
    # b has not been told; the decision script sees b's stale version and b reloads at once.
    assert dispatch(b, call(run_id="r", command="true"), headers=key)["outcome"] == "executed"


def test_run_created_with_rules(client) -> None:
    r = client.post("/v1/runs", json={"run_id": "x", "rules": ALLOW_ALL_BUT_LS}, headers=ADMIN)
    key = {"Authorization": f"Bearer {r.json()['agent_key']}"}
    assert dispatch(client, call(run_id="x", command="ls"), headers=key)["rule"] == "no-ls"
    # other runs are untouched
    assert dispatch(client, call(command="ls"))["outcome"] == "executed"


def test_bad_run_rules_are_refused(client) -> None:
    r = client.post("/v1/runs", json={"run_id": "x", "rules": [{"name": "x", "priority": 1}]}, headers=ADMIN)
    assert r.status_code == 422 and "missing 'action'" in r.json()["error"]["message"]
    assert client.get("/v1/runs/x", headers=ADMIN).status_code == 404


GLOBAL_THROTTLE = """
rules:
  - {name: everyone, priority: 1, action: throttle, limit: 5, window_s: 60, per: global}
  - {name: allow-rest, priority: 2, action: allow}
"""


def test_a_throttle_over_every_run_is_refused_on_a_cluster_only(client, backend_kind) -> None:
    """One counter for every run cannot sit in each run's slot: on a cluster the pack is refused (nothing
    changes), elsewhere it is enforced."""
    before = client.get("/v1/rules", headers=ADMIN).json()["version"]
    r = client.put("/v1/rules", json={"yaml": GLOBAL_THROTTLE}, headers=ADMIN)
    run = client.post("/v1/runs", json={"run_id": "g1", "rules": GLOBAL_THROTTLE}, headers=ADMIN)
    if backend_kind == "cluster":
        assert r.status_code == run.status_code == 422
        assert "'per: global' cannot be exact on a Redis Cluster" in r.json()["error"]["message"]
        assert client.get("/v1/rules", headers=ADMIN).json()["version"] == before
    else:
        assert r.status_code == 200 and run.status_code == 201
