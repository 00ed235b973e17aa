"""The park ledger through the real CLI: an irreversible task never starts on its own; the run ends
`parked`; after `park approve` and `run --resume` it runs exactly once; reject skips it (dependents
blocked); a proposed alternative runs instead when approved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.orchestrator.test_run import cli, journal, plan, task, write_plan


def _plan(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    p = write_plan(tmp_path, plan(ws, [
        task("build", "echo build >> log"),
        {**task("deploy", "echo deploy >> log", ["build"]), "irreversible": True, "park_reason": "production"},
        task("notify", "echo notify >> log", ["deploy"]),
    ]))
    return ws, p


def _run(tmp_path: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    r = cli("run", *args, "--state-dir", str(tmp_path / "state"), "--json", env={"ACTEON_URL": ""})
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else {"stderr": r.stderr})


@pytest.mark.slow
def test_a_parked_task_waits_for_approval_then_runs_once(tmp_path: Path) -> None:
    ws, p = _plan(tmp_path)
    state = ["--state-dir", str(tmp_path / "state")]
    rc, report = _run(tmp_path, "--plan", str(p), "--run-id", "park-run")
    assert rc == 3, report
    assert report["status"] == "parked"
    assert report["tasks"] == {"build": "done", "deploy": "parked", "notify": "pending"}
    assert (ws / "log").read_text() == "build\n"
    assert not any(e["type"] == "subtask_started" and e["task_id"] == "deploy"
                   for e in journal(tmp_path / "state", "park-run"))
    listed = json.loads(cli("park", "list", *state, "--json").stdout)
    assert [(x["run_id"], x["task_id"], x["reason"]) for x in listed] == [("park-run", "deploy", "production")]
    shown = cli("status", "--run", "park-run", *state).stdout
    assert "parked" in shown and "park approve park-run deploy" in shown
    # resuming without a decision changes nothing
    rc, report = _run(tmp_path, "--resume", "park-run")
    assert rc == 3 and (ws / "log").read_text() == "build\n"
    r = cli("park", "approve", "park-run", "deploy", "--by", "alice", *state)
    assert r.returncode == 0, r.stderr
    rc, report = _run(tmp_path, "--resume", "park-run")
    assert rc == 0, report
    assert report["tasks"] == dict.fromkeys(("build", "deploy", "notify"), "done")
    assert (ws / "log").read_text() == "build\ndeploy\nnotify\n"
    rc, report = _run(tmp_path, "--resume", "park-run")  # done is done: refused, nothing runs twice
    assert rc == 2 and "is already done" in report["stderr"]
    assert (ws / "log").read_text() == "build\ndeploy\nnotify\n"
    ledger = [json.loads(line) for line in (tmp_path / "state" / "runs" / "park-run" / "park.jsonl").open()]
    assert [(e["action"], e.get("by", "")) for e in ledger] == [("parked", ""), ("approved", "alice")]
    assert json.loads(cli("park", "list", *state, "--json").stdout) == []


@pytest.mark.slow
def test_reject_skips_the_task_and_blocks_its_dependents(tmp_path: Path) -> None:
    ws, p = _plan(tmp_path)
    state = ["--state-dir", str(tmp_path / "state")]
    assert _run(tmp_path, "--plan", str(p), "--run-id", "rej")[0] == 3
    r = cli("park", "reject", "rej", "deploy", "--reason", "not during the freeze", "--by", "bob", *state)
    assert r.returncode == 0, r.stderr
    rc, report = _run(tmp_path, "--resume", "rej")
    assert rc == 1
    assert report["tasks"] == {"build": "done", "deploy": "skipped", "notify": "blocked"}
    assert (ws / "log").read_text() == "build\n"
    reasons = [e["reason"] for e in journal(tmp_path / "state", "rej") if e["type"] == "task_status"
               and e["task_id"] == "deploy" and e["status"] == "skipped"]
    assert reasons == ["rejected by bob: not during the freeze"]


@pytest.mark.slow
def test_a_proposed_alternative_runs_instead_when_approved(tmp_path: Path) -> None:
    ws, p = _plan(tmp_path)
    state = ["--state-dir", str(tmp_path / "state")]
    assert _run(tmp_path, "--plan", str(p), "--run-id", "alt")[0] == 3
    alt = tmp_path / "alt.json"
    alt.write_text(json.dumps({"name": "deploy to staging", "assigned_role": "executor",
                               "subtasks": [{"id": "deploy-staging", "name": "s", "command": "echo staging >> log"}]}))
    r = cli("park", "propose", "alt", "deploy", "--file", str(alt), *state)
    assert r.returncode == 0 and "proposal 1" in r.stdout, r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x"}))
    r = cli("park", "propose", "alt", "deploy", "--file", str(bad), *state)
    assert r.returncode == 2 and "assigned_role" in r.stderr
    assert cli("park", "approve", "alt", "deploy", "--proposal", "2", *state).returncode == 2
    assert cli("park", "approve", "alt", "deploy", "--proposal", "1", *state).returncode == 0
    rc, report = _run(tmp_path, "--resume", "alt")
    assert rc == 0, report
    assert (ws / "log").read_text() == "build\nstaging\nnotify\n"


def test_only_irreversible_tasks_can_be_decided(tmp_path: Path) -> None:
    _, p = _plan(tmp_path)
    state = ["--state-dir", str(tmp_path / "state")]
    _run(tmp_path, "--plan", str(p), "--run-id", "x")
    r = cli("park", "approve", "x", "build", *state)
    assert r.returncode == 2 and "not an irreversible task" in r.stderr
