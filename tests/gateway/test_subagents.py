"""Sub-agents an agent starts itself are counted (both backends): a run's cap on live sub-agents and its
maximum nesting depth; a finished spawn tool frees its place; a sub-agent's calls carry its parent's
identity."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import ADMIN, FakeClock, call

ALLOW = "rules:\n  - {name: allow-all, priority: 1, action: allow}\n"


def _run(client: TestClient, run_id: str, **agents: int) -> dict[str, str]:
    body: dict[str, Any] = {"run_id": run_id, "rules": ALLOW}
    if agents:
        body["agents"] = agents
    r = client.post("/v1/runs", json=body, headers=ADMIN)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['agent_key']}"}


def _spawn(client: TestClient, key: dict[str, str], run_id: str, n: int, **extra: Any) -> dict[str, Any]:
    body = call("Agent", run_id=run_id, input={"description": "d", "prompt": "p", "subagent_type": "general-purpose"},
                tool_use_id=f"toolu_{n}", **extra)
    r = client.post("/v1/dispatch", json=body, headers=key)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_the_live_cap_admits_exactly_n_and_a_finished_spawn_frees_its_place(client: TestClient) -> None:
    key = _run(client, "sub", max_live=3, max_depth=2)
    outcomes = [_spawn(client, key, "sub", i)["outcome"] for i in range(5)]
    assert outcomes == ["executed"] * 3 + ["suppressed"] * 2
    refused = _spawn(client, key, "sub", 9)
    assert refused["rule"] == "agent-cap" and "3 sub-agents of this run are live" in refused["reason"]
    done = client.post("/v1/runs/sub/events", json={"agent_id": "agent-1", "tool": "Agent", "success": True,
                                                   "tool_use_id": "toolu_1"}, headers=key)
    assert done.status_code == 202
    assert _spawn(client, key, "sub", 10)["outcome"] == "executed"
    assert _spawn(client, key, "sub", 11)["outcome"] == "suppressed"


def test_a_sub_agent_may_not_start_sub_agents_of_its_own(client: TestClient) -> None:
    key = _run(client, "deep")
    out = _spawn(client, key, "deep", 1, agent_type="general-purpose")  # the call comes from inside a sub-agent
    assert out["outcome"] == "suppressed" and out["rule"] == "agent-depth"
    assert "at most 2 deep" in out["reason"]
    flat = _run(client, "flat", max_live=5, max_depth=1)
    assert _spawn(client, flat, "flat", 1)["rule"] == "agent-depth"  # depth 1: no sub-agents at all


def test_leases_end_sub_agents_whose_end_is_never_reported(client: TestClient, clock: FakeClock) -> None:
    key = _run(client, "lease", max_live=1)
    assert _spawn(client, key, "lease", 1)["outcome"] == "executed"
    assert _spawn(client, key, "lease", 2)["outcome"] == "suppressed"
    clock.advance(3600 * 1000 + 1)
    assert _spawn(client, key, "lease", 3)["outcome"] == "executed"


def test_gemini_spawns_without_a_tool_use_id_end_oldest_first(client: TestClient) -> None:
    key = _run(client, "gem", max_live=2)
    body = {**call("invoke_agent", run_id="gem", input={"agent_name": "helper", "prompt": "p"}),
            "provider": "gemini-cli"}
    for _ in range(2):
        assert client.post("/v1/dispatch", json=body, headers=key).json()["outcome"] == "executed"
    assert client.post("/v1/dispatch", json=body, headers=key).json()["rule"] == "agent-cap"
    client.post("/v1/runs/gem/events", json={"agent_id": "agent-1", "tool": "invoke_agent", "success": True},
                headers=key)
    assert client.post("/v1/dispatch", json=body, headers=key).json()["outcome"] == "executed"


def test_the_default_run_has_default_limits_and_refused_spawns_count_nothing(client: TestClient) -> None:
    key = _run(client, "dflt")
    outcomes = [_spawn(client, key, "dflt", i)["outcome"] for i in range(10)]
    assert outcomes.count("executed") == 8  # gateway default: 8 live sub-agents per run
    stats = client.get("/v1/runs/dflt/stats", headers=ADMIN).json()
    assert stats["executed"] == 8 and stats["suppressed"] == 2
    assert client.get("/v1/runs/dflt", headers=ADMIN).json().get("agents") is None
