"""A real ``claude`` agent whose call needs a person stops (Claude's ``defer``) instead of holding its slot: the
task waits ``waiting_approval`` while another task uses the slot, and the same session resumes once a person
decided — the call runs once when approved, the agent hears the reason when rejected — also across a kill -9
of the orchestrator and ``run --resume``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import ADMIN_KEY, Sandbox
from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each

RISKY = 'eval "$(cat step.sh)"'  # a command the gateway cannot know before it runs: a person decides


def _plan(sandbox: Sandbox) -> Path:
    plan = {
        "id": "defer-plan", "objective": "one call for a person", "status": "approved", "estimated_actions": 20,
        "scope": {"working_directory": str(sandbox.workspace), "max_agents": 1},
        "tasks": [
            {"id": "a", "name": "risky step", "assigned_role": "coder",
             "subtasks": [{"id": "a1", "name": "a", "prompt": "MARKER-DEFER-A run the step"}]},
            {"id": "b", "name": "other work", "assigned_role": "coder",
             "subtasks": [{"id": "b1", "name": "b", "prompt": "MARKER-DEFER-B write b"}]},
        ],
    }
    path = sandbox.root / "plan.json"
    path.write_text(json.dumps(plan))
    (sandbox.workspace / "step.sh").write_text("echo approved >> proof.txt\n")
    return path


def _script() -> Script:
    return Script(steps=[], subagents={
        "MARKER-DEFER-A": [[("Bash", {"command": RISKY, "description": "the step"})]],
        "MARKER-DEFER-B": [[("Bash", {"command": "echo b > b.txt", "description": "b"})]],
    })


def _env(model: str, gateway: str, claude_bin: str, home: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT), "ANTHROPIC_BASE_URL": model,
            "ANTHROPIC_API_KEY": "sk-ant-fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1", "ACTEON_CLAUDE_BIN": claude_bin, "ACTEON_URL": gateway,
            "ACTEON_ADMIN_KEY": ADMIN_KEY}


def _start(plan: Path, state: Path, run_id: str, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    args = ["--resume", run_id] if "--resume" in extra else ["--plan", str(plan), "--run-id", run_id]
    return subprocess.Popen([sys.executable, "-m", "orchestrator.cli", "run", *args, "--engine", "claude",
                             "--state-dir", str(state), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=plan.parent / "ws")


def _journal(state: Path, run_id: str) -> list[dict[str, Any]]:
    path = state / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _until(check: Callable[[], Any], what: str, timeout_s: float = 120) -> Any:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"never happened: {what}")


def _status(state: Path, run_id: str, task: str) -> str | None:
    statuses = [e["status"] for e in _journal(state, run_id) if e["type"] == "task_status" and e["task_id"] == task]
    return statuses[-1] if statuses else None


def _pending(gateway: str, run_id: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{gateway}/v1/approvals", params={"run": run_id, "status": "pending"},
                  headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    return list(r.json()["approvals"])


def _decide(gateway: str, approval_id: str, verb: str, reason: str = "") -> None:
    r = httpx.post(f"{gateway}/v1/approvals/{approval_id}/{verb}", json={"by": "alice", "reason": reason or None},
                   headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert r.status_code == 200, r.text


def _finish(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, out + err
    return dict(json.loads(out))


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_call_for_a_person_frees_the_slot_and_the_session_resumes(claude_bin, sandbox, gateway, verb) -> None:  # type: ignore[no-untyped-def]
    plan, state, run_id = _plan(sandbox), sandbox.root / "state", f"defer-{verb}"
    script = _script()
    with fake_model(script) as model:
        proc = _start(plan, state, run_id, _env(model, gateway, claude_bin, sandbox.home))
        try:
            _until(lambda: _status(state, run_id, "a") == "waiting_approval", "task a waits for a person")
            # one agent at most (max_agents 1): b runs to its end in the slot a gave back
            _until(lambda: _status(state, run_id, "b") == "done", "task b runs while a waits")
            assert _status(state, run_id, "a") == "waiting_approval" and not (sandbox.workspace / "proof.txt").exists()
            (approval,) = _pending(gateway, run_id)
            assert approval["agent_id"] == "a.a1" and approval["input"]["command"] == RISKY
            _decide(gateway, approval["approval_id"], verb, "not on a Friday")
            report = _finish(proc)
        finally:
            proc.kill()
    assert report["tasks"] == {"a": "done", "b": "done"} and report["peak_running"] == 1
    journal = _journal(state, run_id)
    (deferred,) = [e for e in journal if e["type"] == "subtask_deferred"]
    assert deferred["agent_id"] == "a.a1" and deferred["tool"] == "Bash" and deferred["session_id"]
    results = script.tool_results()
    if verb == "approve":
        assert (sandbox.workspace / "proof.txt").read_text() == "approved\n"  # run once, after the approval
    else:
        assert not (sandbox.workspace / "proof.txt").exists()
        assert any("rejected by alice: not on a Friday" in r for r in results), results


def test_a_waiting_session_survives_kill_9_and_resumes(claude_bin, sandbox, gateway) -> None:  # type: ignore[no-untyped-def]
    plan, state, run_id = _plan(sandbox), sandbox.root / "state", "defer-kill"
    script = _script()
    with fake_model(script) as model:
        env = _env(model, gateway, claude_bin, sandbox.home)
        proc = _start(plan, state, run_id, env)
        try:
            _until(lambda: _status(state, run_id, "a") == "waiting_approval", "task a waits for a person")
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            proc.kill()
        (approval,) = _pending(gateway, run_id)
        _decide(gateway, approval["approval_id"], "approve")
        proc = _start(plan, state, run_id, env, "--resume")
        try:
            report = _finish(proc)
        finally:
            proc.kill()
    assert report["tasks"]["a"] == "done"
    assert (sandbox.workspace / "proof.txt").read_text() == "approved\n"
    journal = _journal(state, run_id)
    (deferred,) = [e for e in journal if e["type"] == "subtask_deferred"]
    # the same Claude session went on: its next request carried the first one's conversation
    first_prompts = [r for r in script.requests if "MARKER-DEFER-A" in json.dumps(r.get("messages", [])[:1])]
    assert len(first_prompts) >= 2 and len(first_prompts[-1]["messages"]) > len(first_prompts[0]["messages"])
    assert deferred["session_id"]
