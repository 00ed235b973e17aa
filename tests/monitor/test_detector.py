"""The monitor's detection rules on hand-made ToolCall records (no gateway, no clock, no sleeps)."""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.config import MonitorSection, parse_config
from orchestrator.watch.monitor import AlertFinding, Detector

T0 = 1_800_000_000_000


def rec(agent: str = "t1.s1", target: str = "npm test", at_ms: int = T0, tool: str = "Bash",
        action_type: str = "execute_command") -> dict[str, Any]:
    return {"audit_id": f"{at_ms}-0", "agent_id": agent, "task_id": agent.split(".")[0], "tool": tool,
            "action_type": action_type, "target": target, "outcome": "executed", "at_ms": at_ms}


def feed(det: Detector, records: list[dict[str, Any]]) -> list[AlertFinding]:
    return [f for r in records for f in det.observe(r)]


def kinds(findings: list[AlertFinding]) -> list[tuple[str, str | None]]:
    return [(f.kind, f.agent_id) for f in findings]


# Calls spaced 10 s apart: never a runaway, so the stuck cases are about repetition alone.
def spaced(n: int, **kw: Any) -> list[dict[str, Any]]:
    return [rec(at_ms=T0 + i * 10_000, **kw) for i in range(n)]


def test_stuck_at_exactly_n_repeats_not_before() -> None:
    det = Detector(MonitorSection())
    assert feed(det, spaced(4)) == []
    found = det.observe(rec(at_ms=T0 + 50_000))
    assert kinds(found) == [("stuck", "t1.s1")]
    assert found[0].task_id == "t1" and "5 times" in found[0].detail and "npm test" in found[0].detail


def test_stuck_threshold_comes_from_config() -> None:
    det = Detector(MonitorSection(stuck_repeats=3))
    assert kinds(feed(det, spaced(3))) == [("stuck", "t1.s1")]


def test_different_targets_tools_or_action_types_are_not_the_same_call() -> None:
    det = Detector(MonitorSection())
    calls = [rec(target=f"cat f{i}", at_ms=T0 + i * 10_000) for i in range(10)]
    calls += [rec(tool=t, action_type=a, target="x", at_ms=T0 + 200_000 + i * 10_000)
              for i, (t, a) in enumerate([("Bash", "execute_command"), ("Read", "read_file")] * 4)]
    assert feed(det, calls) == []


def test_stuck_counts_consecutive_calls_only() -> None:
    det = Detector(MonitorSection())
    calls = spaced(4) + [rec(target="vim app.py", at_ms=T0 + 45_000)] + [rec(at_ms=T0 + 50_000 + i) for i in range(4)]
    assert feed(det, calls) == []  # 8 "npm test" in all, never 5 in a row
    assert kinds(det.observe(rec(at_ms=T0 + 60_000))) == [("stuck", "t1.s1")]


def test_agents_are_counted_separately_and_alert_once_each() -> None:
    det = Detector(MonitorSection())
    calls = []
    for i in range(12):  # interleaved: each agent repeats its own call
        calls += [rec(agent="a.1", at_ms=T0 + i * 10_000), rec(agent="b.1", at_ms=T0 + i * 10_000 + 1)]
    assert kinds(feed(det, calls)) == [("stuck", "a.1"), ("stuck", "b.1")]


def test_runaway_at_21_calls_within_60_s_of_gateway_time() -> None:
    det = Detector(MonitorSection())
    calls = [rec(target=f"ls {i}", at_ms=T0 + i * 2_999) for i in range(21)]  # span 59.98 s
    assert feed(det, calls[:20]) == []
    found = det.observe(calls[20])
    assert kinds(found) == [("runaway", "t1.s1")] and "21 calls within 60 s" in found[0].detail


def test_twenty_calls_a_minute_is_not_a_runaway() -> None:
    det = Detector(MonitorSection())
    calls = [rec(target=f"ls {i}", at_ms=T0 + i * 100) for i in range(20)]
    calls += [rec(target=f"ls {i}", at_ms=T0 + 60_000 + i * 100) for i in range(20)]
    assert feed(det, calls) == []


def test_21_calls_spread_over_61_s_are_not_a_runaway() -> None:
    det = Detector(MonitorSection())
    calls = [rec(target=f"ls {i}", at_ms=T0 + i * 3_050) for i in range(21)]  # span 61 s
    assert feed(det, calls) == []


def test_the_runaway_window_slides() -> None:
    det = Detector(MonitorSection(runaway_actions_per_minute=3))
    # 3 per minute for 5 minutes, then a 4th inside the last minute.
    calls = [rec(target=f"ls {i}", at_ms=T0 + i * 20_000) for i in range(15)]
    assert feed(det, calls) == []
    assert kinds(det.observe(rec(target="ls x", at_ms=T0 + 14 * 20_000 + 1))) == [("runaway", "t1.s1")]


def test_runaway_once_per_agent_and_per_agent_rates() -> None:
    det = Detector(MonitorSection())
    burst = [rec(target=f"ls {i}", at_ms=T0 + i) for i in range(100)]
    slow = [rec(agent="c.1", target=f"ls {i}", at_ms=T0 + i * 3_100) for i in range(30)]
    assert kinds(feed(det, burst + slow)) == [("runaway", "t1.s1")]


def test_one_call_can_be_both_stuck_and_runaway() -> None:
    det = Detector(MonitorSection())
    assert kinds(feed(det, [rec(at_ms=T0 + i) for i in range(21)])) == [("stuck", "t1.s1"), ("runaway", "t1.s1")]


def test_earlier_alerts_stay_quiet_after_a_resume() -> None:
    det = Detector(MonitorSection(), alerted=[("stuck", "t1.s1"), ("deadline", None)])
    assert feed(det, spaced(10)) == []
    assert det.check_deadline(elapsed_s=59, max_s=60, unfinished=1) is None
    assert kinds(feed(det, spaced(5, agent="b.1"))) == [("stuck", "b.1")]


def test_deadline_warns_once_at_the_fraction_while_work_is_unfinished() -> None:
    det = Detector(MonitorSection())
    assert det.check_deadline(elapsed_s=2879, max_s=3600, unfinished=2) is None
    assert det.check_deadline(elapsed_s=3000, max_s=3600, unfinished=0) is None  # nothing left to do
    found = det.check_deadline(elapsed_s=2880, max_s=3600, unfinished=2)
    assert found is not None and (found.kind, found.agent_id, found.task_id) == ("deadline", None, None)
    assert "2880 s" in found.detail and "2 task(s)" in found.detail
    assert det.check_deadline(elapsed_s=3500, max_s=3600, unfinished=1) is None


def test_deadline_fraction_from_config() -> None:
    det = Detector(MonitorSection(deadline_warn_fraction=0.5))
    assert det.check_deadline(elapsed_s=29.9, max_s=60, unfinished=1) is None
    assert det.check_deadline(elapsed_s=30, max_s=60, unfinished=1) is not None


def test_monitor_config_defaults_and_validation() -> None:
    m = parse_config({}).monitor
    assert (m.enabled, m.stuck_repeats, m.runaway_actions_per_minute, m.deadline_warn_fraction, m.action,
            m.poll_interval_seconds) == (True, 5, 20, 0.8, "warn", 1.0)
    m = parse_config({"monitor": {"action": "throttle", "poll_interval_seconds": 2}}).monitor
    assert (m.action, m.poll_interval_seconds) == ("throttle", 2.0)
    for bad, words in [({"deadline_warn_fraction": 1.0}, "less than 1"), ({"deadline_warn_fraction": 0.0}, "greater"),
                       ({"action": "shout"}, "warn"), ({"stuck_repeat": 3}, "unknown key"),
                       ({"runaway_actions_per_minute": "20"}, "integer")]:
        with pytest.raises(ValueError, match=words):
            parse_config({"monitor": bad})
