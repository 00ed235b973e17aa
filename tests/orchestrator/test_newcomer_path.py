"""Issue 12, points 1, 3, 7, 8: the path a newcomer takes after the first command — the demo is a run they
can find and inspect with no gateway running, a killed run says it was interrupted and how to resume it, and
user errors are one line with exit code 2, never a traceback, never a half-made run folder."""

from __future__ import annotations

import json
from pathlib import Path

from orchestrator.rundir import RunDir
from tests.orchestrator.test_run import ADMIN, cli, gw, plan, task, write_plan  # noqa: F401 - gw: fixture


def no_traceback(r) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr


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
