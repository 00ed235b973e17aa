"""The path a newcomer takes after the first command — the demo is a run they
can find and inspect with no gateway running, a killed run says it was interrupted and how to resume it, and
user errors are one line with exit code 2, never a traceback, never a half-made run folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.rundir import RunDir
from tests.orchestrator.test_run import ADMIN, cli, gw, plan, task, write_plan  # noqa: F401 - gw: fixture


def no_traceback(r) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr


@pytest.mark.slow
def test_the_demo_is_a_run_to_inspect_after_its_gateway_is_gone(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    demo = cli("demo", "--state-dir", state, "--json", env={"ACTEON_URL": "", "ACTEON_ADMIN_KEY": ""})
    assert demo.returncode == 0, demo.stderr
    result = json.loads(demo.stdout)
    run_id = result["run_id"]
    assert result["as_designed"] is True and result["status"] == "failed"  # the blocked task failed, as designed
    assert not Path(result["workspace"]).is_relative_to(tmp_path / "state")  # never inside the guarded state dir
    runs = json.loads(cli("runs", "--state-dir", state, "--json").stdout)
    assert [r["run_id"] for r in runs] == [run_id] and runs[0]["status"] == "failed"
    status = json.loads(cli("status", "--run", run_id, "--state-dir", state, "--json").stdout)
    assert status["task_counts"]["done"] == 5 and status["stats"]["suppressed"] == 1
    audit = cli("audit", "--run", run_id, "--state-dir", state, "--json", env={"ACTEON_URL": ""})
    assert audit.returncode == 0, audit.stderr
    rows = json.loads(audit.stdout)
    assert {"suppressed", "executed", "pending_approval"} <= {r["outcome"] for r in rows}
    assert "is not running" in audit.stderr and "decisions kept in" in audit.stderr
    graph = cli("graph", "query", "--run", run_id, "--state-dir", state, "--ready", "blocked-calls-by-rule",
                "--format", "json")
    assert graph.returncode == 0 and "block-destructive-commands" in graph.stdout, graph.stderr


def test_a_run_whose_orchestrator_is_gone_is_interrupted_with_the_resume_command(tmp_path: Path) -> None:
    state = tmp_path / "state"
    rd = RunDir(state, "lost")
    rd.create()
    rd.write_run(pid=2 ** 22 + 7, process_start_time=1, status="running", engine="command", objective="o")
    r = cli("runs", "--state-dir", str(state))
    assert r.returncode == 0 and "interrupted" in r.stdout
    assert "acteon-swarm run --resume lost" in r.stderr
    assert json.loads(cli("runs", "--state-dir", str(state), "--json").stdout)[0]["status"] == "interrupted"


def test_a_start_that_fails_leaves_no_run_folder_and_no_traceback(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [task("a", "true")]))
    r = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "never",
            env={"ACTEON_URL": "http://127.0.0.1:9", "ACTEON_ADMIN_KEY": "k"})  # nothing listens there
    assert r.returncode == 2 and "cannot reach the gateway" in r.stderr and len(r.stderr.splitlines()) <= 2
    no_traceback(r)
    assert not (state / "runs" / "never").exists()


@pytest.mark.slow
def test_user_errors_are_one_line_with_exit_code_2(tmp_path: Path, gw) -> None:  # noqa: F811
    state = str(tmp_path / "state")
    cases = [
        (["approvals", "list"], {**gw, "ACTEON_ADMIN_KEY": "wrong-key"}),
        (["audit", "--run", "default"], {**gw, "ACTEON_ADMIN_KEY": "wrong-key"}),
        (["approvals", "list"], {"ACTEON_URL": "http://127.0.0.1:9", "ACTEON_ADMIN_KEY": ADMIN}),
        (["audit", "--run", "default"], {"ACTEON_URL": "http://127.0.0.1:9", "ACTEON_ADMIN_KEY": ADMIN}),
        (["status", "--run", "nope"], {}),
        (["cancel", "--run", "nope"], {}),
        (["plan", "validate", "--plan", str(tmp_path / "missing.json")], {}),
    ]
    for args, env in cases:
        r = cli(*args, "--state-dir", state, env=env) if args[0] != "plan" else cli(*args, env=env)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
        no_traceback(r)
        assert r.stderr.startswith("acteon-swarm") and len(r.stderr.strip().splitlines()) <= 3, (args, r.stderr)


@pytest.mark.slow
def test_kill_9_then_resume_on_the_embedded_gateway(tmp_path: Path) -> None:
    """Point 4: the resumed run meets a fresh embedded gateway that has never heard of it; the run is created
    there again (same rules, the rest of its quota), finished tasks are not re-run, and its audit holds the
    decisions of both halves."""
    import os
    import signal
    import uuid

    from tests.orchestrator.test_run import groups_of, journal, kill_groups, start_cli
    from tests.support import wait_until

    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    marker = f"acteon-eresume-{uuid.uuid4().hex[:8]}"
    p = write_plan(tmp_path, plan(ws, [
        task("a", "echo run >> a.log"),
        task("b", f"echo run >> b.log; if [ -f go ]; then echo done >> b.log; else sleep 300; : {marker}; fi", ["a"]),
    ]))
    embedded = {"ACTEON_URL": "", "ACTEON_ADMIN_KEY": ""}
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "er", "--json", env=embedded)
    try:
        wait_until(lambda: any(e["type"] == "agent_started" and e["task_id"] == "b" for e in journal(state, "er")),
                   timeout_s=30, what="task b's agent to start")
        # The journal copies the gateway's decisions as the run goes (about once a second).
        wait_until(lambda: sum(e["type"] == "tool_call" for e in journal(state, "er")) >= 2, timeout_s=10,
                   what="the first half's decisions in the journal")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        runs = json.loads(cli("runs", "--state-dir", str(state), "--json").stdout)
        assert runs[0]["status"] == "interrupted"
        # The journal kept the gateway's decisions as the run went: status counts them with that gateway gone.
        killed = json.loads(cli("status", "--run", "er", "--state-dir", str(state), "--json").stdout)
        assert killed["status"] == "interrupted" and killed["stats"].get("dispatched", 0) >= 2
        (ws / "go").touch()
        r = cli("run", "--resume", "er", "--state-dir", str(state), "--json", env=embedded)
        assert r.returncode == 0, r.stderr
        no_traceback(r)
    finally:
        kill_groups(groups_of(marker))
    assert json.loads(r.stdout)["tasks"] == {"a": "done", "b": "done"}
    assert (ws / "a.log").read_text() == "run\n"  # done before the crash: not run again
    notes = [e for e in journal(state, "er") if e["type"] == "note" and e["kind"] == "run_recreated"]
    assert len(notes) == 1 and notes[0]["data"]["quota_used"] >= 1
    audit = json.loads(cli("audit", "--run", "er", "--state-dir", str(state), "--json", env=embedded).stdout)
    targets = [row["target"] for row in audit]
    assert any(t.startswith("echo run >> a.log") for t in targets)  # the first half
    assert sum("b.log" in t for t in targets) >= 2  # task b before the crash and again after the resume
    stats = json.loads(cli("status", "--run", "er", "--state-dir", str(state), "--json").stdout)["stats"]
    assert stats["dispatched"] == len(audit)  # both gateways' decisions counted, as the audit lists them


@pytest.mark.slow
def test_approvals_reach_a_run_served_by_its_embedded_gateway(tmp_path: Path) -> None:
    """Point 5: a run on its own embedded gateway pauses on an approval; `approvals list` in another process
    finds it (full command, agent, role, rule) and `approvals approve` lets the task finish."""
    from tests.orchestrator.test_run import start_cli
    from tests.support import wait_until

    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    # The command word comes from a file an earlier step wrote: unknowable before it runs, so a human decides.
    two_steps = task("a", "echo echo > .tool")
    two_steps["subtasks"].append({"id": "a-2", "name": "a", "command": "$(cat .tool) approved-by-a-human > result.txt"})
    p = write_plan(tmp_path, plan(ws, [two_steps]))
    embedded = {"ACTEON_URL": "", "ACTEON_ADMIN_KEY": ""}
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "ap", env=embedded)
    try:
        pending: list[dict[str, str]] = []

        def listed() -> bool:
            r = cli("approvals", "list", "--state-dir", str(state), "--json", env=embedded)
            pending[:] = json.loads(r.stdout) if r.returncode == 0 else []
            return bool(pending)

        wait_until(listed, timeout_s=30, what="the approval to be listed")
        (item,) = pending
        assert item["run_id"] == "ap" and item["target"] == "$(cat .tool) approved-by-a-human > result.txt"
        assert item["agent_id"] == "a.a-2" and item["rule"] == "approve-risky-commands"
        text = cli("approvals", "list", "--state-dir", str(state), env=embedded).stdout
        assert "run ap" in text and "$(cat .tool) approved-by-a-human > result.txt" in text
        ok = cli("approvals", "approve", item["approval_id"], "--state-dir", str(state), env=embedded)
        assert ok.returncode == 0 and "approved" in ok.stdout, ok.stderr
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    # Point 6: the run's own output said the task was waiting for a human, naming the approval.
    assert f"waiting   a  a.a-2: approval {item['approval_id']}" in err
    done = json.loads(cli("status", "--run", "ap", "--state-dir", str(state), "--json").stdout)
    assert done["status"] == "done" and done["tasks"][0]["status"] == "done"
    assert (ws / "result.txt").read_text() == "approved-by-a-human\n"


def test_approvals_of_a_killed_run_are_read_from_its_folder(tmp_path: Path) -> None:
    """The run folder keeps what the gateway decided, approvals included: with the run's embedded gateway
    gone (kill -9), `approvals list --run` shows what was waiting for a human."""
    import os
    import signal

    from tests.orchestrator.test_run import journal, start_cli
    from tests.support import wait_until

    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    two_steps = task("a", "echo echo > .tool")
    two_steps["subtasks"].append({"id": "a-2", "name": "a", "command": "$(cat .tool) later > result.txt"})
    embedded = {"ACTEON_URL": "", "ACTEON_ADMIN_KEY": ""}
    proc = start_cli("run", "--plan", str(write_plan(tmp_path, plan(ws, [two_steps]))), "--state-dir", str(state),
                     "--run-id", "ka", "--json", env=embedded)
    try:
        wait_until(lambda: any(e["type"] == "tool_call" and e["outcome"] == "pending_approval"
                               for e in journal(state, "ka")), timeout_s=30, what="the approval in the journal")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    r = cli("approvals", "list", "--run", "ka", "--state-dir", str(state), "--json", env=embedded)
    assert r.returncode == 0, r.stderr
    no_traceback(r)
    (item,) = json.loads(r.stdout)
    assert item["target"] == "$(cat .tool) later > result.txt" and item["status"] == "pending"
    assert "is not running" in r.stderr


def test_audit_of_the_default_run_asks_the_gateway(tmp_path: Path, gw) -> None:  # noqa: F811
    """Point 3: `audit --run default` — the run of hooks installed outside any orchestrated run has no run
    folder — is answered by the gateway instead of "no run"."""
    import httpx

    agent_key = httpx.post(f"{gw['ACTEON_URL']}/v1/runs/default/agent-keys",
                           headers={"Authorization": f"Bearer {ADMIN}"}).json()["agent_key"]
    httpx.post(f"{gw['ACTEON_URL']}/v1/dispatch", headers={"Authorization": f"Bearer {agent_key}"},
               json={"run_id": "default", "agent_id": "solo", "provider": "claude-code", "tool": "Bash",
                     "input": {"command": "rm -rf /"}})
    r = cli("audit", "--run", "default", "--state-dir", str(tmp_path / "state"), "--json", env=gw)
    assert r.returncode == 0, r.stderr
    assert [(row["agent_id"], row["outcome"]) for row in json.loads(r.stdout)] == [("solo", "suppressed")]
