"""The monitor in whole runs (``acteon-swarm run`` on the command engine): an agent that repeats one call
and an agent that floods the gateway are detected from the audit stream and acted on as configured.

The "agents" are shell loops calling the real hook executable with Claude PreToolUse payloads, exactly
what Claude Code would run for each tool call, so every call is a real gateway decision of the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.monitor.conftest import ADMIN_KEY
from tests.support import ROOT

HOOK = f"{sys.executable} -I -S {ROOT}/hook/__main__.py gate --cli claude"


def call(command: str, tool: str = "Bash") -> str:
    """A shell snippet: one tool call through the hook; prints the hook's answer. The payload is in
    double quotes so that shell variables (a loop counter) expand."""
    tool_input = {"command": command} if tool == "Bash" else {"file_path": command}
    payload = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": tool,
                          "tool_input": tool_input, "cwd": "/tmp"})
    return 'echo "' + payload.replace('"', '\\"') + f'" | {HOOK}'



def run_plan(tmp_path: Path, gateway_url: str, tasks: list[dict[str, Any]], monitor: str) -> dict[str, Any]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    plan = {"id": "p", "objective": "monitor", "status": "approved", "estimated_actions": 500,
            "scope": {"working_directory": str(ws), "max_agents": 4}, "tasks": tasks}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "swarm.toml").write_text(f"[defaults]\nenable_refiner = false\n[monitor]\n{monitor}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_URL": gateway_url, "ACTEON_ADMIN_KEY": ADMIN_KEY}
    r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(tmp_path / "plan.json"),
                        "--engine", "command", "--config", str(tmp_path / "swarm.toml"),
                        "--state-dir", str(tmp_path / "state"), "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout)
    report["status_text"] = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "status", "--run", report["run_id"], "--state-dir",
         str(tmp_path / "state")], capture_output=True, text=True, env=env, timeout=60).stdout
    lines = (tmp_path / "state" / "runs" / report["run_id"] / "events.jsonl").read_text().splitlines()
    report["journal"] = [json.loads(line) for line in lines]
    return report


def task(tid: str, script: str) -> dict[str, Any]:
    return {"id": tid, "name": tid, "assigned_role": "executor",
            "subtasks": [{"id": f"{tid}-1", "name": tid, "command": script, "timeout_seconds": 60}]}


def test_a_stuck_agent_is_killed_and_its_task_fails_with_the_reason(tmp_path: Path, gateway_url: str) -> None:
    # Five identical calls (the threshold), then it would hang for a minute: only the monitor's kill ends
    # it early. (A sixth call would race the kill.)
    stuck = f"for i in 1 2 3 4 5; do {call('ls -la')} > /dev/null; done; sleep 60"
    calm = f"{call('ls')} > /dev/null; {call('pwd')} > /dev/null"
    report = run_plan(tmp_path, gateway_url, [task("stuck", stuck), task("calm", calm)],
                      'action = "kill"\nstuck_repeats = 5\npoll_interval_seconds = 0.1')
    assert report["tasks"] == {"stuck": "failed", "calm": "done"}
    alerts = [e for e in report["journal"] if e["type"] == "alert"]
    assert [(a["kind"], a["agent_id"], a["action"]) for a in alerts] == [("stuck", "stuck.stuck-1", "kill")]
    assert "same call 5 times in a row: Bash ls -la" in alerts[0]["detail"]
    finished = next(e for e in report["journal"] if e["type"] == "subtask_finished" and e["task_id"] == "stuck")
    assert finished["detail"].startswith("killed by the monitor: stuck")
    assert finished["duration_s"] < 30  # not the minute it would have slept
    assert "Alerts:\n    stuck    kill" in report["status_text"]
    assert "failed    stuck" in report["status_text"] and "(stuck-1: killed by the monitor" in report["status_text"]
    # Every gateway decision of the run is in the journal, the orchestrator's own dispatches included.
    calls = [e for e in report["journal"] if e["type"] == "tool_call"]
    assert sum(1 for c in calls if c["agent_id"] == "stuck.stuck-1" and c["target"] == "ls -la") == 5
    assert {c["target"] for c in calls if c["agent_id"] == "calm.calm-1"} >= {"ls", "pwd"}


def test_a_runaway_agent_is_throttled_by_a_rule_for_it_alone(tmp_path: Path, gateway_url: str) -> None:
    # Twelve different reads in a burst, then one every 0.1 s until the gateway answers with the monitor's
    # throttle (or 30 s pass): what the agent sees once the monitor has acted. (Reads: the default pack's
    # own throttles count shell commands and writes, and would otherwise refuse first.)
    runaway = (f"for i in $(seq 12); do {call('/tmp/f$i', 'Read')} > /dev/null; done; "
               f"for i in $(seq 300); do out=$({call('/tmp/again$i', 'Read')}); "
               "case \"$out\" in *'run monitor'*) echo \"$out\" > throttled.json; exit 0;; esac; sleep 0.1; done; "
               "exit 1")
    report = run_plan(tmp_path, gateway_url, [task("runaway", runaway)],
                      'action = "throttle"\nrunaway_actions_per_minute = 10\npoll_interval_seconds = 0.1')
    assert report["tasks"] == {"runaway": "done"}, report["journal"][-3:]
    alerts = [e for e in report["journal"] if e["type"] == "alert"]
    assert [(a["kind"], a["action"]) for a in alerts] == [("runaway", "throttle")]
    answer = json.loads((tmp_path / "ws" / "throttled.json").read_text())
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    throttled = [e for e in report["journal"] if e["type"] == "tool_call" and e["outcome"] == "throttled"]
    assert throttled and all(e["rule"].startswith("monitor-throttle-") for e in throttled)
