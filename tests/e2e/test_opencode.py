"""The real OpenCode (1.18.33, ``opencode run``), offline (its Anthropic provider pointed at the scripted fake
model), with the gate plugin installed by ``acteon-swarm-hook install --cli opencode``: OpenCode has no command
hooks, so the plugin runs the hook and throws on anything but an allow — checked by effects on disk and by
what reached the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from typing import Any

import pytest

from tests.e2e.conftest import audit, dead_gateway_url, new_run, run_opencode, scoped_key
from tests.e2e.fake_models import Script, fake_model
from tests.hook.fake_gateway import fake_gateway
from tests.support import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _bash(command: str) -> tuple[str, dict[str, Any]]:
    return ("bash", {"command": command, "description": "step"})


def test_a_destructive_command_is_blocked_with_its_reason_and_a_harmless_one_runs(opencode_bin, gateway, sandbox):
    precious = sandbox.precious()
    run_id = _run_id("o-destroy")
    script = Script([[_bash(f"rm -rf {precious}")], [_bash("echo hello > out.txt")]])
    result = run_opencode(opencode_bin, sandbox, script, gateway=gateway, run_id=run_id,
                          key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    assert "block-destructive-commands" in result.script.tool_results()[0]
    records = audit(gateway, run_id)
    assert [r["outcome"] for r in records] == ["suppressed", "executed"]
    assert {r["provider"] for r in records} == {"opencode"}


def test_writes_to_secrets_and_the_gate_itself_are_blocked(opencode_bin, gateway, sandbox):
    run_id = _run_id("o-write")
    plugin = sandbox.workspace / ".opencode" / "plugins" / "acteon-swarm.js"
    script = Script([[("write", {"filePath": str(sandbox.workspace / ".env"), "content": "TOKEN=x\n"})],
                     [("write", {"filePath": str(plugin), "content": "export const X = async () => ({});\n"})]])
    result = run_opencode(opencode_bin, sandbox, script, gateway=gateway, run_id=run_id,
                          key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / ".env").exists() and "acteon-swarm" in plugin.read_text()
    told = result.script.tool_results()
    assert "block-credential-access" in told[0] and "block-gate-tamper" in told[1]


def test_writes_outside_the_file_scope_are_refused(opencode_bin, gateway, sandbox):
    ws = sandbox.workspace
    (ws / "src").mkdir()
    run_id = _run_id("o-scope")
    script = Script([[("write", {"filePath": str(ws / "src" / "ok.py"), "content": "ok = 1\n"})],
                     [("write", {"filePath": str(ws / "notes.txt"), "content": "no\n"})],
                     [_bash("echo no > docs.txt")]])
    result = run_opencode(opencode_bin, sandbox, script, gateway=gateway, run_id=run_id,
                          key=scoped_key(gateway, run_id, ws, ["src/**"]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (ws / "src" / "ok.py").read_text() == "ok = 1\n"
    assert not (ws / "notes.txt").exists() and not (ws / "docs.txt").exists()
    told = result.script.tool_results()
    assert "outside the task's file scope" in told[1] and "outside the task's file scope" in told[2]


def test_with_the_gateway_down_every_call_is_blocked_and_the_model_told(opencode_bin, sandbox):
    script = Script([[_bash("echo hello > out.txt")]])
    result = run_opencode(opencode_bin, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = result.script.tool_results()[0]
    assert "gateway unavailable" in told and "fail closed" in told


def test_a_gateway_that_hangs_is_a_block_at_the_gates_budget(opencode_bin, sandbox):
    script = Script([[_bash("echo hello > out.txt")]])
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, _seen, release):
        started = time.monotonic()
        result = run_opencode(opencode_bin, sandbox, script, gateway=url, run_id="default", key="any", budget="3")
        elapsed = time.monotonic() - started
        release.set()
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    assert "did not answer in time" in result.script.tool_results()[0]
    assert elapsed < 60


def test_a_plan_runs_on_the_opencode_engine_behind_the_gateway(opencode_bin, sandbox):
    """`--engine opencode`: each agent is an `opencode run` whose session config loads the gate plugin from the
    agent's own folder (nothing is written into the project's .opencode/)."""
    ws, home = sandbox.workspace, sandbox.home
    precious = sandbox.precious()
    plan = {
        "id": "o-plan", "objective": "two opencode agents", "status": "approved", "estimated_actions": 20,
        "scope": {"working_directory": str(ws), "max_agents": 2},
        "tasks": [
            {"id": "a", "name": "a", "assigned_role": "coder",
             "subtasks": [{"id": "a1", "name": "a", "prompt": "MARKER-O-A write a"}]},
            {"id": "b", "name": "b", "assigned_role": "coder", "depends_on": ["a"],
             "subtasks": [{"id": "b1", "name": "b", "prompt": "MARKER-O-B tidy"}]},
        ],
    }
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    script = Script(steps=[], subagents={
        "MARKER-O-A": [[("write", {"filePath": str(ws / "a.txt"), "content": "a\n"})]],
        "MARKER-O-B": [[_bash(f"rm -rf {precious}")], [_bash("cat a.txt > b.txt")]],
    }, finals={"MARKER-O-A": "wrote a.txt", "MARKER-O-B": "copied it"})
    state = sandbox.root / "state"
    with fake_model(script) as model:
        config = home / ".config" / "opencode"
        config.mkdir(parents=True)
        (config / "opencode.json").write_text(json.dumps({  # the user's own OpenCode configuration
            "provider": {"anthropic": {"options": {"baseURL": f"{model}/v1", "apiKey": "sk-ant-fake"}}},
            "model": "anthropic/claude-sonnet-4-5", "autoupdate": False, "share": "disabled"}))
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT),
               "ACTEON_OPENCODE_BIN": opencode_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "opencode", "--state-dir", str(state), "--run-id", "opencode-e2e", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["tasks"] == {"a": "done", "b": "done"}
    assert (ws / "b.txt").read_text() == "a\n" and (precious / "data.txt").read_text() == "keep me"
    assert report["stats"]["suppressed"] == 1 and report["stats"]["executed"] == 2
    assert not (ws / ".opencode").exists()  # the gate came with the session, not into the project
    events = [json.loads(line) for line in (state / "runs" / "opencode-e2e" / "events.jsonl").read_text().splitlines()]
    finished = {e["task_id"]: e for e in events if e["type"] == "subtask_finished"}
    assert finished["a"]["ok"] and finished["b"]["ok"] and finished["b"]["input_tokens"] == 30
    assert "copied it" in "".join(p.read_text() for p in (state / "runs" / "opencode-e2e").rglob("result.md"))
