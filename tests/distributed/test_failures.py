"""What goes wrong on real machines: a worker killed, a worker frozen past
its lease, a subtask longer than three leases, the coordinator killed and resumed; and what each process
holds. Heartbeat timeout: 10 s (the default)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.process import group_alive
from tests.distributed.conftest import ADMIN, Workers
from tests.distributed.test_executors import cli, journal, orchestrator_env, plan, run_args, task
from tests.support import wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]
HEARTBEAT_TIMEOUT_S = 10


def first_attempt_waits(tid: str, seconds: int = 120) -> str:
    """The first attempt records its process group and sleeps; a later attempt prints and ends at once."""
    return (f"if [ -e ran-{tid} ]; then echo 'second attempt of {tid}'; "
            f"else touch ran-{tid}; echo $(ps -o pgid= $$) > pg-{tid}; sleep {seconds}; fi")


def start_run(workers: Workers, gateway: str, state: Path, plan_file: Path, run_id: str,
              *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "orchestrator.cli",
                             *run_args("temporal", workers.temporal, state, plan_file, run_id), *extra],
                            env=orchestrator_env(gateway), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def pgid_of(ws: Path, tid: str) -> int:
    wait_until(lambda: (ws / f"pg-{tid}").exists() and (ws / f"pg-{tid}").read_text().strip() != "",
               timeout_s=60, what=f"{tid}'s first attempt running")
    return int((ws / f"pg-{tid}").read_text())


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def dispatch_as(gateway: str, key: str, run_id: str, agent_id: str) -> dict[str, Any]:
    r = httpx.post(f"{gateway}/v1/dispatch", headers={"Authorization": f"Bearer {key}"},
                   json={"run_id": run_id, "agent_id": agent_id, "provider": "claude-code", "tool": "Bash",
                         "input": {"command": "ls"}, "cwd": "/tmp"})
    assert r.status_code == 200, r.text
    return dict(r.json())


def make_ws(tmp_path: Path, tasks: list[dict[str, Any]], max_agents: int = 4) -> tuple[Path, Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(plan(ws, tasks, max_agents=max_agents)))
    return ws, tmp_path / "state", p


def finished_once(events: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in events:
        if e["type"] == "subtask_finished":
            counts[e["agent_id"]] = counts.get(e["agent_id"], 0) + 1
    return counts


def test_a_killed_workers_subtasks_run_again_elsewhere_and_its_orphans_die_when_it_restarts(
        workers: Workers, gateway: str, tmp_path: Path) -> None:
    """Acceptance 4 (and 9's 'superseded'): SIGKILL a worker mid-task."""
    ws, state, p = make_ws(tmp_path, [task("a", first_attempt_waits("a")), task("b", first_attempt_waits("b"))])
    workers.start("box-1", slots=2)  # alone at first: both first attempts run here
    proc = start_run(workers, gateway, state, p, "killed")
    try:
        orphans = {tid: pgid_of(ws, tid) for tid in ("a", "b")}
        old_keys = {tid: environ(pg)["ACTEON_AGENT_KEY"] for tid, pg in orphans.items()}
        workers.start("box-2", slots=2)
        killed_at = time.time()
        workers.stop("box-1", signal.SIGKILL)
        out, err = proc.communicate(timeout=HEARTBEAT_TIMEOUT_S + 60)
    finally:
        if proc.poll() is None:
            proc.kill()
    report = json.loads(out)
    assert report["status"] == "done", err
    # Re-run on box-2 as attempt 2, within the heartbeat timeout + 5 s of the kill; nothing finished twice.
    again = workers.agents("box-2", "killed")
    assert [(d.parent.name, d.name) for d in again] == [("a.a-1", "2"), ("b.b-1", "2")]
    assert all(d.stat().st_mtime - killed_at <= HEARTBEAT_TIMEOUT_S + 5 for d in again)
    assert finished_once(journal(state, "killed")) == {"a.a-1": 1, "b.b-1": 1}
    # The killed worker's agents still run, cut off: their calls are superseded, and audited.
    assert all(group_alive(pg) for pg in orphans.values())
    for tid, key in old_keys.items():
        assert dispatch_as(gateway, key, "killed", f"{tid}.{tid}-1")["outcome"] == "superseded"
    audit = httpx.get(f"{gateway}/v1/runs/killed/audit", params={"outcome": "superseded"},
                      headers={"Authorization": f"Bearer {ADMIN}"}).json()["records"]
    assert sorted(r["agent_id"] for r in audit) == ["a.a-1", "b.b-1"]
    # Its restart kills them before it takes any work.
    workers.start("box-1", slots=2)
    assert not any(group_alive(pg) for pg in orphans.values())
    assert "killed 2 agent group(s)" in (workers.root / "box-1.log").read_text()


def test_a_frozen_worker_loses_its_subtask_and_its_agent_dies_when_it_wakes(
        workers: Workers, gateway: str, tmp_path: Path) -> None:
    """Acceptance 5: SIGSTOP a worker past the heartbeat timeout."""
    ws, state, p = make_ws(tmp_path, [task("a", first_attempt_waits("a"))])
    stale = workers.start("box-1", slots=1)
    proc = start_run(workers, gateway, state, p, "frozen")
    try:
        stale_group = pgid_of(ws, "a")
        old_key = environ(stale_group)["ACTEON_AGENT_KEY"]
        workers.start("box-2", slots=1)
        os.kill(stale.pid, signal.SIGSTOP)
        try:
            out, err = proc.communicate(timeout=HEARTBEAT_TIMEOUT_S + 60)
            # Re-run elsewhere: the run's result is the new attempt's.
            assert [(d.parent.name, d.name) for d in workers.agents("box-2", "frozen")] == [("a.a-1", "2")]
            assert dispatch_as(gateway, old_key, "frozen", "a.a-1")["outcome"] == "superseded"
            assert group_alive(stale_group)  # the frozen worker cannot kill it yet
        finally:
            os.kill(stale.pid, signal.SIGCONT)
        woke = time.monotonic()
        wait_until(lambda: not group_alive(stale_group), timeout_s=2, what="the stale agent's group gone")
        assert time.monotonic() - woke <= 2
    finally:
        if proc.poll() is None:
            proc.kill()
    report = json.loads(out)
    assert report["status"] == "done", err
    events = journal(state, "frozen")
    assert finished_once(events) == {"a.a-1": 1}
    done = next(e for e in events if e["type"] == "subtask_finished")
    assert done["ok"] is True and done["duration_s"] < HEARTBEAT_TIMEOUT_S  # the second attempt's, not the first's


def test_a_subtask_three_leases_long_runs_exactly_once(workers: Workers, gateway: str, tmp_path: Path) -> None:
    """Acceptance 6: the heartbeat keeps the lease; the length of the work does not matter."""
    ws, state, p = make_ws(tmp_path, [task("long", f"echo run >> runs.txt; sleep {3 * HEARTBEAT_TIMEOUT_S}")])
    workers.start("box-1", slots=1)
    workers.start("box-2", slots=1)
    r = cli(run_args("temporal", workers.temporal, state, p, "long"), gateway, timeout=3 * HEARTBEAT_TIMEOUT_S + 90)
    assert r.returncode == 0, r.stderr
    assert (ws / "runs.txt").read_text() == "run\n"
    ran = workers.agents("box-1", "long") + workers.agents("box-2", "long")
    assert [d.name for d in ran] == ["1"]


def test_resume_after_kill_9_reattaches_to_work_in_flight(workers: Workers, gateway: str, tmp_path: Path) -> None:
    """Acceptance 7: kill -9 of the coordinator mid-run, then `run --resume`."""
    ws, state, p = make_ws(tmp_path, [
        task("quick", "echo quick >> quick.txt"),
        task("slow", "echo slow >> slow.txt; sleep 8; echo done > slow-done.txt"),
        task("after", "cat slow-done.txt > after.txt", ["slow", "quick"]),
    ])
    workers.start("box-1", slots=2)
    workers.start("box-2", slots=2)
    proc = start_run(workers, gateway, state, p, "crash")
    wait_until(lambda: (ws / "slow.txt").exists() and (ws / "quick.txt").exists(), timeout_s=60,
               what="both first tasks started")
    wait_until(lambda: any(e["type"] == "task_status" and e["task_id"] == "quick" and e["status"] == "done"
                           for e in journal(state, "crash")), timeout_s=30, what="quick done")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert not (ws / "slow-done.txt").exists()  # in flight at the crash
    r = cli(["run", "--resume", "crash", "--state-dir", str(state), "--json"], gateway)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["tasks"] == {"quick": "done", "slow": "done", "after": "done"}
    # Re-attached, not re-run: each command ran once, each subtask's only attempt is 1.
    assert (ws / "quick.txt").read_text() == "quick\n" and (ws / "slow.txt").read_text() == "slow\n"
    assert (ws / "after.txt").read_text() == "done\n"
    ran = workers.agents("box-1", "crash") + workers.agents("box-2", "crash")
    assert sorted((d.parent.name, d.name) for d in ran) == [("after.after-1", "1"), ("quick.quick-1", "1"),
                                                            ("slow.slow-1", "1")]
    started = [e["agent_id"] for e in journal(state, "crash") if e["type"] == "subtask_started"]
    assert started.count("quick.quick-1") == 1  # done before the crash: never started again


def test_resume_takes_the_result_of_work_that_finished_while_the_coordinator_was_down(
        workers: Workers, gateway: str, tmp_path: Path) -> None:
    ws, state, p = make_ws(tmp_path, [task("a", "sleep 2; echo a >> once.txt"),
                                      task("b", "cat once.txt > b.txt", ["a"])])
    workers.start("box-1", slots=1)
    proc = start_run(workers, gateway, state, p, "down")
    wait_until(lambda: bool(workers.agents("box-1", "down")), timeout_s=30, what="a running on the worker")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    wait_until(lambda: (ws / "once.txt").exists(), timeout_s=30, what="a finished on the worker")
    r = cli(["run", "--resume", "down", "--state-dir", str(state), "--json"], gateway)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["tasks"] == {"a": "done", "b": "done"}
    assert (ws / "once.txt").read_text() == "a\n" and (ws / "b.txt").read_text() == "a\n"  # not run again
    assert [(d.parent.name, d.name) for d in workers.agents("box-1", "down")] == [("a.a-1", "1"), ("b.b-1", "1")]


def test_cancel_finds_the_workflows_of_a_run_whose_coordinator_is_dead(workers: Workers, gateway: str,
                                                                      tmp_path: Path) -> None:
    """Cancel with the coordinator gone (kill -9): the subtasks still run on the workers; `cancel` finds
    them on Temporal itself, and every agent group is gone within 5 s."""
    ws, state, p = make_ws(tmp_path, [task(f"t{i}", first_attempt_waits(f"t{i}")) for i in range(4)])
    workers.start("box-1", slots=2)
    workers.start("box-2", slots=2)
    proc = start_run(workers, gateway, state, p, "orphaned-run")
    groups = {pgid_of(ws, f"t{i}") for i in range(4)}
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert all(group_alive(g) for g in groups)  # a dead coordinator stops nothing on the workers
    started = time.monotonic()
    r = cli(["cancel", "--run", "orphaned-run", "--state-dir", str(state), "--json"], gateway)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["gateway"] == "cancelled" and result["orchestrator"] == "stale pid: not signalled"
    assert result["workflows"].startswith("4 workflow(s) cancelled")
    wait_until(lambda: not any(group_alive(g) for g in groups), timeout_s=5, what="every agent group gone")
    assert time.monotonic() - started <= 5


def test_no_worker_or_agent_holds_the_stores_address_or_the_admin_key(workers: Workers, gateway: str,
                                                                      tmp_path: Path) -> None:
    """Acceptance 9: what a worker process and its agent hold."""
    ws, state, p = make_ws(tmp_path, [task("a", first_attempt_waits("a", 30))])
    box = workers.start("box-1", slots=1)
    proc = start_run(workers, gateway, state, p, "secrets")
    try:
        agent = environ(pgid_of(ws, "a"))
        worker = environ(box.pid)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        httpx.post(f"{gateway}/v1/runs/secrets/cancel", headers={"Authorization": f"Bearer {ADMIN}"})
    for env in (agent, worker):
        dump = json.dumps(env)
        assert ADMIN not in dump and "redis://" not in dump and "ACTEON_REDIS_URL" not in env
    assert workers.keys["box-1"] not in json.dumps(agent)  # the worker's key never reaches its agent
    assert agent["ACTEON_AGENT_KEY"].startswith("acteon_agent_")
    # The agent's key is its attempt's, for its run only.
    other = httpx.post(f"{gateway}/v1/runs", json={"run_id": "secrets-other"},
                       headers={"Authorization": f"Bearer {ADMIN}"})
    assert other.status_code == 201
    r = httpx.post(f"{gateway}/v1/dispatch", headers={"Authorization": f"Bearer {agent['ACTEON_AGENT_KEY']}"},
                   json={"run_id": "secrets-other", "agent_id": "a.a-1", "provider": "claude-code", "tool": "Bash",
                         "input": {"command": "ls"}, "cwd": "/tmp"})
    assert r.status_code == 403
    # What the worker's files hold: agent logs and the record of groups, never a key.
    for f in workers.state_dir("box-1").rglob("*"):
        if f.is_file():
            text = f.read_text(errors="replace")
            assert ADMIN not in text and workers.keys["box-1"] not in text and agent["ACTEON_AGENT_KEY"] not in text
