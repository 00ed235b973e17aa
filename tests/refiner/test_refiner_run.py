"""The refiner in whole runs (``acteon-swarm run`` on the command engine, a scripted refiner model): SKIP
removes pending tasks and only those, REPRIORITIZE changes the start order, ADD creates a delegated task
that runs, and an invalid or slow answer falls back to CONTINUE with the reason journaled and shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, gateway_process

ADMIN = "refiner-run-admin"
FAKE = ROOT / "tests" / "data" / "fake_refiner.py"


@pytest.fixture(scope="module")
def gateway_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(tmp_path_factory.mktemp("gw"))}) as url:
        yield url


def task(tid: str, command: str, deps: tuple[str, ...] = (), priority: int = 100) -> dict[str, Any]:
    return {"id": tid, "name": f"task {tid}", "assigned_role": "coder", "priority": priority,
            "depends_on": list(deps), "subtasks": [{"id": f"{tid}-1", "name": tid, "command": command}]}


def run(tmp_path: Path, url: str, tasks: list[dict[str, Any]], answers: dict[str, str], *, max_agents: int = 4,
        timeout_s: int = 20) -> dict[str, Any]:
    ws = tmp_path / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    plan = {"id": "p", "objective": "refine", "status": "approved", "estimated_actions": 200,
            "scope": {"working_directory": str(ws), "max_agents": max_agents}, "tasks": tasks}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    (tmp_path / "swarm.toml").write_text(
        f'[refiner]\nengine = "command"\ncommand = "{sys.executable} {FAKE} {tmp_path / "answers.json"}"\n'
        f"timeout_seconds = {timeout_s}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_URL": url, "ACTEON_ADMIN_KEY": ADMIN}
    state = tmp_path / "state"
    run_id = f"r-{uuid.uuid4().hex[:8]}"  # one gateway serves every test: one run each
    r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(tmp_path / "plan.json"),
                        "--engine", "command", "--config", str(tmp_path / "swarm.toml"), "--state-dir", str(state),
                        "--run-id", run_id, "--max-agents", str(max_agents), "--json"],
                       capture_output=True, text=True, env=env, timeout=180)
    assert r.returncode in (0, 1), r.stderr
    out = json.loads(r.stdout)
    out["journal"] = [json.loads(x) for x in (state / "runs" / run_id / "events.jsonl").read_text().splitlines()]
    out["status_text"] = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "status", "--run", run_id, "--state-dir", str(state)],
        capture_output=True, text=True, env=env, timeout=60).stdout
    out["ws"] = ws
    return out


def decisions(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in report["journal"] if e["type"] == "refiner_decision"]


def started_order(report: dict[str, Any]) -> list[str]:
    return [e["task_id"] for e in report["journal"] if e["type"] == "task_status" and e["status"] == "running"]


def test_skip_removes_a_pending_task_and_its_dependents_are_blocked(tmp_path: Path, gateway_url: str) -> None:
    report = run(tmp_path, gateway_url, [
        task("a", "echo a > a.txt"), task("b", "echo b > b.txt", ("a",)), task("c", "echo c > c.txt", ("a",)),
        task("d", "echo d > d.txt", ("c",)),
    ], {"a": "SKIP: c"})
    assert report["tasks"] == {"a": "done", "b": "done", "c": "skipped", "d": "blocked"}
    assert not (report["ws"] / "c.txt").exists() and not (report["ws"] / "d.txt").exists()
    first = decisions(report)[0]
    assert (first["after_task"], first["action"], first["skipped"], first["fallback"]) == ("a", "skip", ["c"], False)
    assert "after a: SKIP c" in report["status_text"]


def test_skip_naming_a_task_that_is_not_pending_changes_nothing(tmp_path: Path, gateway_url: str) -> None:
    # After a: a itself is finished, so "SKIP: a, b" is refused as a whole; b still runs.
    report = run(tmp_path, gateway_url, [task("a", "true"), task("b", "echo b > b.txt", ("a",))], {"a": "SKIP: a, b"})
    assert report["tasks"] == {"a": "done", "b": "done"} and (report["ws"] / "b.txt").exists()
    first = decisions(report)[0]
    assert first["action"] == "continue" and first["fallback"] and "'a'" in first["reason"]
    assert "CONTINUE (fallback: invalid answer" in report["status_text"]


def test_reprioritize_changes_the_start_order(tmp_path: Path, gateway_url: str) -> None:
    tasks = [task("a", "true"), task("b", "true", ("a",), priority=1), task("c", "true", ("a",), priority=2)]
    assert started_order(run(tmp_path / "1", gateway_url, tasks, {}, max_agents=1)) == ["a", "b", "c"]
    report = run(tmp_path / "2", gateway_url, tasks, {"a": "REPRIORITIZE: c=0"}, max_agents=1)
    assert started_order(report) == ["a", "c", "b"]
    assert decisions(report)[0]["priorities"] == {"c": 0}


def test_add_creates_a_delegated_task_that_runs(tmp_path: Path, gateway_url: str) -> None:
    added = {"name": "write the extra file", "assigned_role": "executor", "depends_on": ["a"],
             "subtasks": [{"name": "extra", "command": "echo added > added.txt"}]}
    report = run(tmp_path, gateway_url, [task("a", "echo a > a.txt")], {"a": "ADD: " + json.dumps(added)})
    new_id = decisions(report)[0]["added_task"]["id"]
    assert new_id == "a-r1" and report["tasks"] == {"a": "done", "a-r1": "done"}
    assert (report["ws"] / "added.txt").read_text() == "added\n"
    assert "after a: ADD a-r1" in report["status_text"] and "done      a-r1" in report["status_text"]


def test_add_for_a_role_the_finished_task_may_not_delegate_to_falls_back(tmp_path: Path, gateway_url: str) -> None:
    added = {"name": "plan more", "assigned_role": "planner", "subtasks": [{"name": "x", "command": "true"}]}
    report = run(tmp_path, gateway_url, [task("a", "true")], {"a": "ADD: " + json.dumps(added)})
    assert report["tasks"] == {"a": "done"}
    first = decisions(report)[0]
    assert first["fallback"] and "planner" in first["reason"]


def test_an_invalid_or_slow_answer_falls_back_to_continue(tmp_path: Path, gateway_url: str) -> None:
    report = run(tmp_path, gateway_url, [task("a", "true"), task("b", "true", ("a",)), task("c", "true", ("b",))],
                 {"a": "I think we should skip c, maybe?", "b": "SLEEP"}, timeout_s=2)
    assert report["tasks"] == {"a": "done", "b": "done", "c": "done"}
    by_task = {d["after_task"]: d for d in decisions(report)}
    assert by_task["a"]["fallback"] and by_task["a"]["reason"].startswith("invalid answer")
    assert by_task["a"]["answer"] == "I think we should skip c, maybe?\n"
    assert by_task["b"]["fallback"] and by_task["b"]["reason"] == "timed out after 2 s"
    assert by_task["c"]["action"] == "continue" and not by_task["c"]["fallback"]
