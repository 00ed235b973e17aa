"""Throttle, deduplicate and quota: exact admission, exact retry_after_ms, refused calls consume nothing."""

from __future__ import annotations

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch


def test_thirteenth_command_in_a_minute_is_throttled_with_exact_retry(client, clock) -> None:
    for i in range(12):
        assert dispatch(client, call(command=f"echo {i}"))["outcome"] == "executed"
        clock.advance(1000)
    d = dispatch(client, call(command="echo 13"))
    assert (d["allowed"], d["outcome"], d["rule"]) == (False, "throttled", "throttle-agent-commands")
    # The first call (at T0) leaves the 60 s window at T0 + 60 000; now is T0 + 12 000.
    assert d["retry_after_ms"] == 48_000
    clock.advance(47_999)
    assert dispatch(client, call(command="echo 14"))["outcome"] == "throttled"
    clock.advance(1)
    assert dispatch(client, call(command="echo 15"))["outcome"] == "executed"


def test_refused_calls_do_not_count_towards_the_throttle(client, clock) -> None:
    for _ in range(12):
        dispatch(client, call(command="true"))
    for _ in range(50):  # hammering while throttled must not extend the throttle
        assert dispatch(client, call(command="true"))["outcome"] == "throttled"
        clock.advance(100)
    clock.advance(60_000 - 5_000)
    assert dispatch(client, call(command="true"))["outcome"] == "executed"


def test_throttle_is_per_agent(client) -> None:
    for _ in range(12):
        dispatch(client, call(command="true", agent_id="a"))
    assert dispatch(client, call(command="true", agent_id="a"))["outcome"] == "throttled"
    assert dispatch(client, call(command="true", agent_id="b"))["outcome"] == "executed"


def test_swarm_wide_throttle_counts_all_agents_of_a_run(client) -> None:
    outcomes = [dispatch(client, call(command="true", agent_id=f"agent-{i}"))["outcome"] for i in range(31)]
    assert outcomes.count("executed") == 30
    assert outcomes[-1] == "throttled"


def test_cross_agent_dedup_lets_the_owner_repeat(client, clock) -> None:
    w = {"file_path": "/work/proj/src/app.py", "content": "x"}
    assert dispatch(client, call(tool="Write", input=w, agent_id="a"))["outcome"] == "executed"
    clock.advance(10_000)
    assert dispatch(client, call(tool="Edit", input={**w, "old_string": "x", "new_string": "y"},
                                 agent_id="a"))["outcome"] == "executed"  # refreshes a's lease
    d = dispatch(client, call(tool="Write", input=w, agent_id="b"))
    assert (d["outcome"], d["rule"]) == ("deduplicated", "dedup-cross-agent-writes")
    assert d["retry_after_ms"] == 120_000
    clock.advance(120_000)
    assert dispatch(client, call(tool="Write", input=w, agent_id="b"))["outcome"] == "executed"


def test_dedup_refusal_consumes_nothing(client) -> None:
    w = {"file_path": "/work/proj/a.txt", "content": "x"}
    dispatch(client, call(tool="Write", input=w, agent_id="a"))
    for _ in range(5):
        assert dispatch(client, call(tool="Write", input=w, agent_id="b"))["outcome"] == "deduplicated"
    stats = client.get("/v1/runs/default/stats", headers=ADMIN).json()
    assert stats["executed"] == 1 and stats["deduplicated"] == 5


def _run(client, run_id: str, **body) -> str:  # type: ignore[no-untyped-def]
    r = client.post("/v1/runs", json={"run_id": run_id, **body}, headers=ADMIN)
    assert r.status_code == 201, r.text
    return str(r.json()["agent_key"])


def test_quota_admits_exactly_max_actions_and_refusals_consume_nothing(client, clock) -> None:
    key = _run(client, "q1", quota={"max_actions": 3, "window_s": 3600})
    agent = {"Authorization": f"Bearer {key}"}
    results = []
    for i in range(6):
        results.append(dispatch(client, call(run_id="q1", command=f"echo {i}"), headers=agent)["outcome"])
        # suppressed calls in between must not use the quota
        assert dispatch(client, call(run_id="q1", command="rm -rf /"), headers=agent)["outcome"] == "suppressed"
        clock.advance(1000)
    assert results == ["executed"] * 3 + ["quota_exceeded"] * 3
    d = dispatch(client, call(run_id="q1", command="echo x"), headers=agent)
    assert d["rule"] == "run-quota"
    assert d["retry_after_ms"] == 3_600_000 - 6_000
    clock.advance(3_600_000 - 6_000)
    assert dispatch(client, call(run_id="q1", command="echo y"), headers=agent)["outcome"] == "executed"


def test_quota_overage_warn_allows_and_counts(client) -> None:
    key = _run(client, "q2", quota={"max_actions": 1, "window_s": 60, "overage": "warn"})
    agent = {"Authorization": f"Bearer {key}"}
    for _ in range(3):
        assert dispatch(client, call(run_id="q2", command="true"), headers=agent)["outcome"] == "executed"
    assert client.get("/v1/runs/q2/stats", headers=ADMIN).json()["quota_warned"] == 2
    # the audit says which calls went past the warning level (a run's counters are counted from it)
    records = client.get("/v1/runs/q2/audit", headers=ADMIN).json()["records"]
    assert [r["quota_warned"] for r in records] == [0, 1, 1]


def test_cancelled_run_refuses_everything(client) -> None:
    key = _run(client, "c1")
    agent = {"Authorization": f"Bearer {key}"}
    assert dispatch(client, call(run_id="c1", command="true"), headers=agent)["outcome"] == "executed"
    r = client.post("/v1/runs/c1/cancel", headers=ADMIN)
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    d = dispatch(client, call(run_id="c1", command="true"), headers=agent)
    assert (d["allowed"], d["outcome"], d["rule"]) == (False, "cancelled", "run-cancelled")
    assert client.get("/v1/runs/c1/stats", headers=ADMIN).json()["cancelled"] == 1
