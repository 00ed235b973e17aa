"""Whole runs through the real CLI on the command engine: parallel tasks behind a real gateway, status,
cancel (process groups gone within 5 s), and resume after kill -9."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.process import group_alive
from tests.support import ROOT, gateway_process, wait_until

ADMIN = "orchestrator-test-admin"


def plan(ws: Path, tasks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "p", "objective": "test", "scope": {"working_directory": str(ws), "max_agents": 4},
            "estimated_actions": 100, "status": "approved", "tasks": tasks, **extra}


def task(tid: str, command: str, deps: list[str] | None = None, role: str = "executor", **kw: Any) -> dict[str, Any]:
    return {"id": tid, "name": tid, "assigned_role": role, "depends_on": deps or [],
            "subtasks": [{"id": f"{tid}-1", "name": tid, "command": command, **kw}]}


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=120)


def start_cli(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.Popen([sys.executable, "-m", "orchestrator.cli", *args], env=full, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[dict[str, str]]:
    state = tmp_path / "gw-state"
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(state)}) as url:
        yield {"ACTEON_URL": url, "ACTEON_ADMIN_KEY": ADMIN}


def write_plan(tmp_path: Path, data: dict[str, Any]) -> Path:
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(data))
    return p


def groups_of(marker: str) -> set[int]:
    """The process groups of every process whose command line carries the marker (the agents)."""
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    groups = set()
    for pid in out:
        with contextlib.suppress(ProcessLookupError):
            groups.add(os.getpgid(int(pid)))
    return groups


def kill_groups(groups: set[int]) -> None:
    for g in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(g, signal.SIGKILL)


def journal(state: Path, run_id: str) -> list[dict[str, Any]]:
    f = state / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []


def test_a_plan_runs_in_parallel_and_finishes_done(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [task("a", "echo a > a.txt"), task("b", "echo b > b.txt"),
                                       task("c", "cat a.txt > c.txt", ["a"])]))
    r = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "ok-run", "--json",
            env={"ACTEON_URL": ""})  # embedded gateway
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["status"] == "done" and set(report["tasks"].values()) == {"done"}
    assert (ws / "c.txt").read_text() == "a\n"
    assert report["stats"]["executed"] == 3 and report["stats"]["dispatched"] == 3
    s = json.loads(cli("status", "--run", "ok-run", "--state-dir", str(state), "--json").stdout)
    assert s["status"] == "done" and s["task_counts"]["done"] == 3 and s["stats"]["executed"] == 3
    assert (state / "runs" / "ok-run" / "summary.md").read_text().startswith("# Swarm run ok-run: done")
    runs = json.loads(cli("runs", "--state-dir", str(state), "--json").stdout)
    assert [x["run_id"] for x in runs] == ["ok-run"]


def test_a_blocked_command_fails_its_task_and_blocks_dependents(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "home").mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [task("a", "rm -rf ~"), task("b", "echo b", ["a"]), task("c", "echo c")]))
    r = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "blocked-run", "--json",
            env={"ACTEON_URL": "", "HOME": str(tmp_path / "home")})
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["tasks"] == {"a": "failed", "b": "blocked", "c": "done"}
    assert report["stats"]["suppressed"] == 1
    s = cli("status", "--run", "blocked-run", "--state-dir", str(state))
    assert "Suppressed: 1" in s.stdout and "blocked" in s.stdout


def test_unapproved_plans_need_approval_or_auto_approve(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    p = write_plan(tmp_path, {**plan(ws, [task("a", "true")]), "status": "pending"})
    r = cli("run", "--plan", str(p), "--state-dir", str(tmp_path / "s"), env={"ACTEON_URL": ""})
    assert r.returncode == 2 and "not approved" in r.stderr
    assert cli("plan", "approve", "--plan", str(p), "--by", "alice").returncode == 0
    assert json.loads(p.read_text())["approved_by"] == "alice"


def test_cancel_stops_every_agent_within_5s_and_the_gateway_refuses_the_run(tmp_path: Path, gw) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    marker = f"acteon-cancel-{uuid.uuid4().hex[:8]}"
    # Each agent starts a child of its own: the whole process group must go.
    long = f"sh -c 'sleep 300; : {marker}' & sleep 300; : {marker}"
    p = write_plan(tmp_path, plan(ws, [task("a", long), task("b", long), task("c", "echo c", ["a"])]))
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "cancel-run", "--json", env=gw)
    try:
        wait_until(lambda: sum(e["type"] == "subtask_started" for e in journal(state, "cancel-run")) == 2,
                   timeout_s=30, what="both agents to start")
        wait_until(lambda: len(groups_of(marker)) == 2, what="both agents' process groups")
        agent_groups = groups_of(marker)
        t0 = time.monotonic()
        r = cli("cancel", "--run", "cancel-run", "--state-dir", str(state), "--json", env=gw)
        assert r.returncode == 0, r.stderr
        result = json.loads(r.stdout)
        assert result == {"run_id": "cancel-run", "gateway": "cancelled", "orchestrator": "cancelled"}
        # Every process of both agents' groups (children included), not only the ones we can name.
        wait_until(lambda: not any(group_alive(g) for g in agent_groups), timeout_s=5,
                   what="every agent process group to be gone")
        assert time.monotonic() - t0 < 5 + 1  # within 5 s of the cancel (plus process start of the CLI)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        kill_groups(groups_of(marker))
    statuses = {e["task_id"]: e["status"] for e in journal(state, "cancel-run") if e["type"] == "task_status"}
    assert statuses == {"a": "cancelled", "b": "cancelled", "c": "cancelled"}
    # the gateway refuses the run from now on
    run = httpx.get(f"{gw['ACTEON_URL']}/v1/runs/cancel-run", headers={"Authorization": f"Bearer {ADMIN}"}).json()
    assert run["status"] == "cancelled"


def test_kill_9_then_resume_never_reruns_finished_tasks_and_reaps_the_orphan(tmp_path: Path, gw) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    marker = f"acteon-resume-{uuid.uuid4().hex[:8]}"
    p = write_plan(tmp_path, plan(ws, [
        task("a", "echo run >> a.log"),
        task("b", f"echo run >> b.log; if [ -f go ]; then echo done >> b.log; else sleep 300; : {marker}; fi", ["a"]),
        task("c", "echo run >> c.log"),
    ]))
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "resume-run", "--json", env=gw)
    orphans: set[int] = set()
    try:
        wait_until(lambda: any(e["type"] == "agent_started" and e["task_id"] == "b"
                               for e in journal(state, "resume-run")), timeout_s=30, what="task b's agent to start")
        wait_until(lambda: (ws / "c.log").exists() and any(
            e["type"] == "task_status" and e["task_id"] == "c" and e["status"] == "done"
            for e in journal(state, "resume-run")), what="task c to finish")
        orphans = groups_of(marker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert orphans and all(group_alive(g) for g in orphans)  # kill -9 leaves the agent running
        (ws / "go").touch()
        r = cli("run", "--resume", "resume-run", "--state-dir", str(state), "--json", env=gw)
        assert r.returncode == 0, r.stderr
        # The resume killed the orphaned agent (its group) before running task b again.
        assert not any(group_alive(g) for g in orphans)
        reaped = [e["data"]["agent_id"] for e in journal(state, "resume-run") if e["type"] == "note"
                  and e["kind"] == "orphan_reaped"]
        assert reaped == ["b.b-1"]
    finally:
        kill_groups(orphans | groups_of(marker))  # only matters when the test fails
    assert json.loads(r.stdout)["tasks"] == {"a": "done", "b": "done", "c": "done"}
    assert (ws / "a.log").read_text() == "run\n"  # finished before the crash: not run again
    assert (ws / "c.log").read_text() == "run\n"
    assert (ws / "b.log").read_text() == "run\nrun\ndone\n"  # interrupted: run again
    s = json.loads(cli("status", "--run", "resume-run", "--state-dir", str(state), "--json").stdout)
    assert s["status"] == "done" and s["task_counts"]["done"] == 3


def test_detach_returns_while_the_run_goes_on_in_the_background(tmp_path: Path, gw) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [
        task("a", "echo run >> a.log"),
        # Waits for the test: it cannot finish before the detached command has returned.
        task("b", "for i in $(seq 600); do [ -f go ] && break; sleep 0.1; done; echo done > b.log", ["a"]),
    ]))
    r = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "bg", "--detach", "--json", env=gw)
    assert r.returncode == 0, r.stderr
    started = json.loads(r.stdout)
    assert started["run_id"] == "bg" and started["detached"] is True
    assert json.loads(cli("status", "--run", "bg", "--state-dir", str(state), "--json").stdout)["status"] == "running"
    (ws / "go").touch()
    wait_until(lambda: json.loads(cli("status", "--run", "bg", "--state-dir", str(state), "--json").stdout)["status"]
               == "done", timeout_s=60, what="the detached run to finish")
    assert (ws / "b.log").read_text() == "done\n"
    assert "done" in Path(started["log"]).read_text()  # its progress lines went to the run's log


def test_a_run_id_is_never_reused_and_a_bad_detached_run_reports_why(tmp_path: Path, gw) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [task("a", "true")]))
    assert cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "once", env=gw).returncode == 0
    again = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "once", env=gw)
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr
    down = cli("run", "--plan", str(p), "--state-dir", str(state), "--detach",
               env={**gw, "ACTEON_URL": "http://127.0.0.1:9"})  # nothing listens there
    assert down.returncode == 1 and "cannot reach the gateway" in down.stderr
