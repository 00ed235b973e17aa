"""The orchestrator driving the real ``claude`` binary: a 3-task plan with a dependency, two agents in
parallel through the hook and the gateway, a blocked call visible in status, a clean finish."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


def test_claude_plan_runs_two_agents_in_parallel_behind_the_gateway(claude_bin, sandbox) -> None:
    ws, home = sandbox.workspace, sandbox.home
    precious = sandbox.precious()
    plan = {
        "id": "e2e-plan", "objective": "three tasks", "status": "approved", "estimated_actions": 40,
        "scope": {"working_directory": str(ws), "max_agents": 2},
        "tasks": [
            {"id": "a", "name": "write a", "assigned_role": "coder",
             "subtasks": [{"id": "a1", "name": "a", "prompt": "MARKER-TASK-A write a.txt"}]},
            {"id": "b", "name": "tidy", "assigned_role": "coder",
             "subtasks": [{"id": "b1", "name": "b", "prompt": "MARKER-TASK-B tidy up"}]},
            {"id": "c", "name": "copy", "assigned_role": "coder", "depends_on": ["a"],
             "subtasks": [{"id": "c1", "name": "c", "prompt": "MARKER-TASK-C copy a.txt"}]},
        ],
    }
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    script = Script(steps=[], subagents={
        "MARKER-TASK-A": [[("Bash", {"command": "echo a > a.txt", "description": "a"})]],
        "MARKER-TASK-B": [[("Bash", {"command": f"rm -rf {precious}", "description": "b"})],
                          [("Bash", {"command": "echo b > b.txt", "description": "b"})]],
        "MARKER-TASK-C": [[("Bash", {"command": "cat a.txt > c.txt", "description": "c"})]],
    })
    state = sandbox.root / "state"
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT),
               "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "ACTEON_CLAUDE_BIN": claude_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "claude", "--state-dir", str(state), "--run-id", "claude-e2e", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["status"] == "done" and report["tasks"] == {"a": "done", "b": "done", "c": "done"}
    assert (ws / "c.txt").read_text() == "a\n" and (ws / "b.txt").read_text() == "b\n"
    assert (precious / "data.txt").read_text() == "keep me"
    # a and b ran at the same time: both agents started before either finished
    events = [json.loads(line) for line in (state / "runs" / "claude-e2e" / "events.jsonl").read_text().splitlines()]
    kinds = [(e["type"], e.get("task_id")) for e in events if e["type"] in ("subtask_started", "subtask_finished")]
    assert {kinds[0], kinds[1]} == {("subtask_started", "a"), ("subtask_started", "b")}
    assert report["peak_running"] == 2
    status = subprocess.run([sys.executable, "-m", "orchestrator.cli", "status", "--run", "claude-e2e",
                             "--state-dir", str(state)], capture_output=True, text=True, env=env)
    # four tool calls: a 1, b 2 (one blocked), c 1
    assert "Total dispatched: 4" in status.stdout and "Executed: 3" in status.stdout
    assert "Suppressed: 1" in status.stdout
    assert (state / "runs" / "claude-e2e" / "summary.md").read_text().startswith("# Swarm run claude-e2e: done")


def test_gemini_plan_runs_behind_the_gateway(gemini_bin, sandbox) -> None:
    ws, home = sandbox.workspace, sandbox.home
    precious = sandbox.precious()
    # The user's own Gemini settings (auth, no telemetry); the engine adds the hook as system settings.
    (home / ".gemini").mkdir(mode=0o700)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False}, "model": {"name": "gemini-2.5-flash"}}))
    plan = {
        "id": "g-plan", "objective": "two gemini agents", "status": "approved", "estimated_actions": 20,
        "scope": {"working_directory": str(ws), "max_agents": 2},
        "tasks": [
            {"id": "a", "name": "a", "assigned_role": "coder",
             "subtasks": [{"id": "a1", "name": "a", "prompt": "MARKER-G-A write a"}]},
            {"id": "b", "name": "b", "assigned_role": "coder", "depends_on": ["a"],
             "subtasks": [{"id": "b1", "name": "b", "prompt": "MARKER-G-B tidy"}]},
        ],
    }
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    script = Script(steps=[], subagents={
        "MARKER-G-A": [[("run_shell_command", {"command": "echo a > a.txt"})]],
        "MARKER-G-B": [[("run_shell_command", {"command": f"rm -rf {precious}"})],
                       [("run_shell_command", {"command": "cat a.txt > b.txt"})]],
    })
    state = sandbox.root / "state"
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT),
               "GOOGLE_GEMINI_BASE_URL": model, "GEMINI_API_KEY": "fake", "GEMINI_TELEMETRY_ENABLED": "false",
               "ACTEON_GEMINI_BIN": gemini_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "gemini", "--state-dir", str(state), "--run-id", "gemini-e2e", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["tasks"] == {"a": "done", "b": "done"}
    assert (ws / "b.txt").read_text() == "a\n"
    assert (precious / "data.txt").read_text() == "keep me"
    assert report["stats"]["suppressed"] == 1 and report["stats"]["executed"] == 2


GATHERED = {
    "id": "gathered", "objective": "write two files", "estimated_actions": 10, "scope": {"max_agents": 2},
    "tasks": [
        {"id": "one", "name": "first file", "assigned_role": "coder",
         "subtasks": [{"id": "one-1", "name": "write", "prompt": "MARKER-ONE write one.txt"}]},
        {"id": "two", "name": "second file", "assigned_role": "coder", "depends_on": ["one"],
         "subtasks": [{"id": "two-1", "name": "write", "prompt": "MARKER-TWO write two.txt"}]},
    ],
}


def test_run_prompt_gathers_a_plan_with_claude_then_runs_it(claude_bin, sandbox) -> None:
    ws, home = sandbox.workspace, sandbox.home
    script = Script(steps=[], finals={"You are the planner": "```json\n" + json.dumps(GATHERED) + "\n```"},
                    subagents={"MARKER-ONE": [[("Bash", {"command": "echo 1 > one.txt", "description": "1"})]],
                               "MARKER-TWO": [[("Bash", {"command": "cat one.txt > two.txt", "description": "2"})]]})
    state = sandbox.root / "state"
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT),
               "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "ACTEON_CLAUDE_BIN": claude_bin}
        gathered = subprocess.run(
            [sys.executable, "-m", "orchestrator.cli", "plan", "gather", "--prompt", "write two files",
             "--engine", "claude", "--out", str(sandbox.root / "plan.json"), "--state-dir", str(state), "--json"],
            capture_output=True, text=True, env=env, cwd=ws, timeout=300)
        assert gathered.returncode == 0, gathered.stdout + gathered.stderr
        plan = json.loads((sandbox.root / "plan.json").read_text())
        assert plan["status"] == "pending" and plan["scope"]["working_directory"] == str(ws)
        # The planner got no tools: its request offered none of the CLI's built-in tools.
        planner_requests = [r for r in script.requests if "You are the planner" in json.dumps(r.get("messages"))]
        assert planner_requests and all(not [t for t in r.get("tools", []) if t.get("name") in ("Bash", "Write")]
                                        for r in planner_requests)

        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--prompt", "write two files",
                            "--auto-approve", "--engine", "claude", "--state-dir", str(state),
                            "--run-id", "from-prompt", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["tasks"] == {"one": "done", "two": "done"}
    assert (ws / "two.txt").read_text() == "1\n"


def test_claude_writers_in_worktrees_are_held_to_their_scopes_and_merged(claude_bin, sandbox) -> None:
    """Two real claude agents on a git repository: each in its own worktree, one tries to write outside its
    file scope (refused by the gateway, nothing written), both commit, the merge queue lands both; the
    user's checkout is byte for byte what it was."""
    ws, home = sandbox.workspace, sandbox.home
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
               "GIT_COMMITTER_EMAIL": "u@x"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True,
                              env=git_env).stdout.strip()

    git("init", "-q", "-b", "main")
    (ws / "README.md").write_text("readme\n")
    git("add", "-A")
    git("commit", "-qm", "initial")
    (ws / "README.md").write_text("my uncommitted edit\n")
    before = {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}
    head = git("rev-parse", "HEAD")
    state = sandbox.root / "state"
    wt = state / "worktrees" / "wt-e2e"
    commit = {"command": "git add -A && git commit -qm work", "description": "commit"}
    plan = {
        "id": "wt-plan", "objective": "two writers", "status": "approved", "estimated_actions": 40,
        "scope": {"working_directory": str(ws), "max_agents": 2},
        "tasks": [
            {"id": "api", "name": "api", "assigned_role": "coder", "files_scope": ["api/**"],
             "subtasks": [{"id": "api1", "name": "api", "prompt": "MARKER-WT-API write the api"}]},
            {"id": "docs", "name": "docs", "assigned_role": "coder", "files_scope": ["docs/**"],
             "subtasks": [{"id": "docs1", "name": "docs", "prompt": "MARKER-WT-DOCS write the docs"}]},
        ],
    }
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    script = Script(steps=[], subagents={
        "MARKER-WT-API": [[("Write", {"file_path": str(wt / "api" / "api" / "server.py"), "content": "API\n"})],
                          [("Bash", commit)]],
        "MARKER-WT-DOCS": [[("Write", {"file_path": str(wt / "docs" / "api" / "hijack.py"), "content": "X\n"})],
                           [("Write", {"file_path": str(wt / "docs" / "docs" / "guide.md"), "content": "DOCS\n"})],
                           [("Bash", commit)]],
    })
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT),
               "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "ACTEON_CLAUDE_BIN": claude_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "claude", "--state-dir", str(state), "--run-id", "wt-e2e", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["tasks"] == {"api": "done", "docs": "done"}
    assert not (wt / "docs" / "api" / "hijack.py").exists()  # refused: outside the docs task's scope
    assert any("outside the task's file scope" in t for t in script.tool_results())
    files = git("ls-tree", "-r", "--name-only", "acteon/wt-e2e/integration").splitlines()
    assert sorted(files) == ["README.md", "api/server.py", "docs/guide.md"]
    assert git("rev-parse", "HEAD") == head and git("symbolic-ref", "HEAD") == "refs/heads/main"
    assert {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()} == before
    assert report["stats"]["suppressed"] >= 1
    # the tokens each claude session reported are journaled and totalled by status
    shown = json.loads(subprocess.run([sys.executable, "-m", "orchestrator.cli", "status", "--run", "wt-e2e",
                                       "--state-dir", str(state), "--json"], capture_output=True, text=True,
                                      env=env).stdout)
    assert set(shown["usage"]["agents"]) == {"api.api1", "docs.docs1"}
    assert shown["usage"]["total"]["input_tokens"] > 0 and shown["usage"]["total"]["output_tokens"] > 0
    query = ("PREFIX swarm: <https://w3id.org/acteon-swarm/ns#> SELECT (SUM(?n) AS ?total) WHERE { "
             "?agent swarm:inputTokens ?n }")
    got = subprocess.run([sys.executable, "-m", "orchestrator.cli", "graph", "query", "--run", "wt-e2e", "--state-dir",
                          str(state), "--format", "json", query], capture_output=True, text=True, env=env)
    total = json.loads(got.stdout)["results"]["bindings"][0]["total"]["value"]
    assert int(total) == shown["usage"]["total"]["input_tokens"]  # the twin holds the same figures
