"""The "throttle" action's rule: valid for the gateway's own loader, and it slows only its agent."""

from __future__ import annotations

import re

import pytest

from gateway.rules import parse
from orchestrator.gatewayclient import GatewayClient
from orchestrator.watch.monitor import throttle_rule, with_rule
from tests.monitor.test_tailer import body


@pytest.mark.parametrize("agent", ["t1.s1", "T1.S1", "t1-s1", "a" * 200, "build_2.sub.x", "..."])
def test_the_gateway_loader_accepts_it(agent: str) -> None:
    rule = throttle_rule(agent, "run-1")
    pack, _ = parse([rule], "run:run-1")
    (compiled,) = pack.rules
    assert (compiled.action, compiled.per, compiled.limit, compiled.priority) == ("throttle", "agent", 1, 0)
    assert compiled.name.startswith("monitor-throttle-") and len(compiled.name) <= 100
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", compiled.name)


def test_names_are_clear_and_distinct() -> None:
    assert throttle_rule("coder", "r")["name"] == "monitor-throttle-coder"
    names = {throttle_rule(a, "r")["name"] for a in ("t1.s1", "t1-s1", "T1.s1", "t1_s1")}
    assert len(names) == 4 and all(n.startswith("monitor-throttle-t1-s1") for n in names)
    # Two throttles of one run load together (no duplicate names), and installing one twice replaces it.
    rules = with_rule(with_rule([], throttle_rule("t1.s1", "r")), throttle_rule("t1-s1", "r"))
    assert len(parse(with_rule(rules, throttle_rule("t1.s1", "r", limit=2)), "run:r")[0].rules) == 2


async def test_installed_throttle_slows_that_agent_only(gw: GatewayClient, run_id: str) -> None:
    own = {"name": "no-curl", "priority": 2, "when": {"executable": "curl"}, "action": "suppress",
           "reason": "no curl here"}
    key = await gw.create_run(run_id, [own], None)
    await gw.dispatch(key, body(run_id, "t1.s1", "ls"))  # before the throttle: counts nothing toward it

    await gw.put_run_rules(run_id, with_rule(await gw.run_rules(run_id), throttle_rule("t1.s1", run_id)))
    assert [r["name"] for r in await gw.run_rules(run_id)] == ["no-curl", throttle_rule("t1.s1", run_id)["name"]]

    first = await gw.dispatch(key, body(run_id, "t1.s1", "ls"))
    second = await gw.dispatch(key, body(run_id, "t1.s1", "pwd"))
    assert first["outcome"] == "executed"
    assert second["outcome"] == "throttled" and second["rule"].startswith("monitor-throttle-t1-s1")
    assert second["retry_after_ms"] > 0 and "run monitor" in second["reason"]
    for cmd in ("ls", "pwd", "id"):  # another agent of the same run is not slowed
        assert (await gw.dispatch(key, body(run_id, "t2.s1", cmd)))["outcome"] == "executed"
    # The run's own rules were kept.
    assert (await gw.dispatch(key, body(run_id, "t2.s1", "curl http://x")))["rule"] == "no-curl"
