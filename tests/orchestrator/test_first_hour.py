"""The first hour on a fresh clone (docs/swarm.md): what a new user tripped on, each through the CLI as a
subprocess on a fresh state dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.orchestrator.test_run import cli, plan, task, write_plan


def test_a_plan_working_in_dot_judges_its_calls_in_the_plans_folder(tmp_path: Path) -> None:
    """init's plan says `"working_directory": "."`: a run from another folder, outside any git repository,
    writes in the plan's folder and no harmless write is called destructive."""
    project = tmp_path / "project"
    project.mkdir()
    data = plan(project, [task("a", "mkdir -p build && echo hi > build/a.txt && echo ok > a.txt")])
    data["scope"]["working_directory"] = "."
    p = write_plan(project, data)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = cli("run", "--plan", str(p), "--state-dir", str(tmp_path / "state"), "--json", env={"ACTEON_URL": ""},
            cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "done", r.stdout
    assert (project / "build" / "a.txt").read_text() == "hi\n" and (project / "a.txt").exists()
    assert not (elsewhere / "a.txt").exists()
    assert "destructive" not in r.stdout + r.stderr


def test_plan_approve_changes_only_the_approval_and_needs_a_name(tmp_path: Path) -> None:
    data = plan(tmp_path, [task("a", "true")], status="pending")
    data["scope"]["working_directory"] = "."
    p = write_plan(tmp_path, data)
    env = {k: v for k, v in os.environ.items() if k != "USER"}
    r = cli("plan", "approve", "--plan", str(p), env={"USER": ""})
    assert r.returncode == 2 and "give --by NAME" in r.stderr
    assert json.loads(p.read_text())["status"] == "pending"
    r = cli("plan", "approve", "--plan", str(p), "--by", "ada", env=env)
    assert r.returncode == 0, r.stderr
    written = json.loads(p.read_text())
    assert written["scope"]["working_directory"] == "."  # as the author wrote it
    assert (written["status"], written["approved_by"], written["sequence"]) == ("approved", "ada", 1)
    assert list(written)[:3] == ["id", "objective", "scope"]


def _finished_run(tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    ws.mkdir()
    r = cli("run", "--plan", str(write_plan(tmp_path, plan(ws, [task("a", "echo a > a.txt")]))), "--state-dir",
            str(tmp_path / "state"), "--json", env={"ACTEON_URL": ""})
    assert r.returncode == 0, r.stderr
    return tmp_path / "state", json.loads(r.stdout)["run_id"]


def test_a_torn_last_journal_line_is_skipped_with_a_warning_everywhere(tmp_path: Path) -> None:
    state, run_id = _finished_run(tmp_path)
    journal = state / "runs" / run_id / "events.jsonl"
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"ts":"2026-11-26T10:00:00","seq":99,"type":"no' + b"\xc3")  # torn mid-char
    for args in (["status", "--run", run_id], ["audit", "--run", run_id], ["status", "--run", run_id, "--json"]):
        r = cli(*args, "--state-dir", str(state), env={"ACTEON_URL": ""})
        assert r.returncode == 0, r.stderr
        assert "torn last line" in r.stderr and "Traceback" not in r.stderr


def test_a_corrupt_line_inside_the_journal_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    state, run_id = _finished_run(tmp_path)
    journal = state / "runs" / run_id / "events.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    lines[2] = '{"not": "an event"}\n'
    journal.write_text("".join(lines))
    r = cli("status", "--run", run_id, "--state-dir", str(state), env={"ACTEON_URL": ""})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{journal}:3:" in r.stderr and "Traceback" not in r.stderr


def _run_a_then_b(tmp_path: Path, a: str = "echo a > a.txt") -> tuple[Path, Path, str]:
    """(workspace, state dir, run id) of a finished run of two tasks, b after a, on the embedded gateway."""
    ws = tmp_path / "ws"
    ws.mkdir()
    data = plan(ws, [task("a", a), task("b", "echo b > b.txt", ["a"])])
    state = tmp_path / "state"
    r = cli("run", "--plan", str(write_plan(tmp_path, data)), "--state-dir", str(state), "--json",
            env={"ACTEON_URL": ""})
    return ws, state, json.loads(r.stdout)["run_id"]


def test_resuming_after_a_torn_line_continues_from_before_it(tmp_path: Path) -> None:
    _, state, run_id = _run_a_then_b(tmp_path)
    run_file = state / "runs" / run_id / "run.json"
    started = json.loads(run_file.read_text())["started_at"]
    # as if the orchestrator had died while writing: interrupted, its last line half written
    journal = state / "runs" / run_id / "events.jsonl"
    kept = [ln for ln in journal.read_text().splitlines(keepends=True) if '"run_finished"' not in ln]
    journal.write_text("".join(kept) + '{"ts":"2026-11-26T1')
    run_file.write_text(json.dumps({**json.loads(run_file.read_text()), "status": "interrupted"}))
    r = cli("run", "--resume", run_id, "--state-dir", str(state), "--json", env={"ACTEON_URL": ""})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "done"
    assert json.loads(run_file.read_text())["started_at"] == started  # the first start is kept
    for line in journal.read_text().splitlines():  # every line whole again
        json.loads(line)
    assert (state / "runs" / run_id / "events.jsonl.torn").read_text() == '{"ts":"2026-11-26T1\n'


def test_a_finished_run_is_not_resumed(tmp_path: Path) -> None:
    state, run_id = _finished_run(tmp_path)
    stats = (state / "runs" / run_id / "stats.json").read_text()
    r = cli("run", "--resume", run_id, "--state-dir", str(state), env={"ACTEON_URL": ""})
    assert r.returncode == 2 and f"run {run_id} is already done" in r.stderr
    assert (state / "runs" / run_id / "stats.json").read_text() == stats


def test_orchestrated_agents_get_an_authoritative_gate() -> None:
    """No human sits at an orchestrated agent's permission prompt: its hook answers allow for what the
    gateway allows (a hand install leaves the CLI's own prompt in force)."""
    from acteon_core.settings import claude_settings, gemini_settings
    from orchestrator.engines.base import gate_options

    settings = claude_settings({}, gate_options("http://127.0.0.1:9", 60.0))
    assert "--authoritative" in settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    gemini = gemini_settings({}, gate_options("http://127.0.0.1:9", 60.0))
    assert "--authoritative" in gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"]


def test_audit_of_an_unknown_run_says_so_and_has_a_header(tmp_path: Path) -> None:
    r = cli("audit", "--run", "nope", "--state-dir", str(tmp_path / "s"), env={"ACTEON_URL": "http://127.0.0.1:9"})
    assert r.returncode == 2 and "no run 'nope'" in r.stderr and "unreachable" not in r.stderr
    r = cli("audit", "--run", "nope", "--state-dir", str(tmp_path / "s"),
            env={"ACTEON_URL": "http://127.0.0.1:9", "ACTEON_ADMIN_KEY": "k"})
    assert r.returncode == 2 and "no run 'nope'" in r.stderr and "no gateway answers" in r.stderr
    state, run_id = _finished_run(tmp_path)
    r = cli("audit", "--run", run_id, "--state-dir", str(state), env={"ACTEON_URL": ""})
    assert r.returncode == 0 and r.stdout.splitlines()[0].split() == ["AGENT", "OUTCOME", "RULE", "TARGET"]


def test_a_wrong_admin_key_names_where_it_came_from_and_the_fix(tmp_path: Path) -> None:
    from tests.support import gateway_process

    with gateway_process({"ACTEON_ADMIN_KEY": "the-right-key", "ACTEON_STATE_DIR": str(tmp_path / "gw")}) as url:
        r = cli("audit", "--run", "default", "--state-dir", str(tmp_path / "s"),
                env={"ACTEON_URL": url, "ACTEON_ADMIN_KEY": "wrong"})
        r2 = cli("approvals", "list", "--state-dir", str(tmp_path / "s"),
                 env={"ACTEON_URL": url, "ACTEON_ADMIN_KEY": "wrong"})
    for result in (r, r2):
        assert result.returncode == 2, result.stderr
        assert "does not know the admin key from $ACTEON_ADMIN_KEY" in result.stderr and "admin.key" in result.stderr


def test_plan_validate_reports_every_problem_at_once(tmp_path: Path) -> None:
    """A schema error no longer hides the duplicate ids, unknown roles and cycles of the rest of the plan."""
    bad = {"id": "p", "objective": "o", "scope": {"working_directory": str(tmp_path)}, "tasks": [
        task("a", "true", ["c"]), {**task("a", "true"), "assigned_role": "wizard"}, task("c", "true", ["a"]),
        {**task("broken", "true"), "subtasks": [{"id": "b1", "name": "b", "command": 5}]}]}
    bad["tasks"][1]["subtasks"][0]["id"] = "a-2"
    r = cli("plan", "validate", "--plan", str(write_plan(tmp_path, bad)))
    assert r.returncode == 2
    for problem in ("command: Input should be a valid string", "duplicate id 'a'", "unknown role 'wizard'",
                    "dependency cycle: a -> c -> a"):
        assert problem in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_cancelled_runs_header_counts_its_cancelled_tasks() -> None:
    from acteon_core.vocabulary import TASK_STATUSES
    from orchestrator.show.status import render

    counts = dict.fromkeys(TASK_STATUSES, 0) | {"done": 1, "cancelled": 3}
    header = render({"run_id": "r", "status": "cancelled", "elapsed_s": 5, "task_counts": counts, "stats": {},
                     "tasks": []}).splitlines()[0]
    assert "1 done" in header and "3 cancelled" in header


@pytest.mark.slow
def test_counters_after_a_resume_are_the_sum_over_both_gateways_and_equal_the_audit(tmp_path: Path) -> None:
    """Each start of a run on the embedded store has a new gateway that counts from zero: status, stats.json
    and summary.md count every decision of every gateway the run had, as `audit` lists them."""
    ws, state, run_id = _run_a_then_b(tmp_path, "echo a > a.txt && echo a2 >> a.txt")
    folder = state / "runs" / run_id
    # as if the orchestrator had died after task a: b never ran, the run never finished
    journal = folder / "events.jsonl"
    kept = [ln for ln in journal.read_text().splitlines(keepends=True)
            if json.loads(ln).get("task_id") != "b" and json.loads(ln)["type"] != "run_finished"]
    journal.write_text("".join(kept))
    (state / "memory.sqlite3").unlink()  # its index of the journal read further than the journal now goes
    (folder / "run.json").write_text(json.dumps({**json.loads((folder / "run.json").read_text()),
                                                 "status": "interrupted"}))
    (ws / "b.txt").unlink()
    r = cli("run", "--resume", run_id, "--state-dir", str(state), "--json", env={"ACTEON_URL": ""})
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "done", r.stderr
    audit = json.loads(cli("audit", "--run", run_id, "--state-dir", str(state), "--json",
                           env={"ACTEON_URL": ""}).stdout)
    assert {row["task_id"] for row in audit} == {"a", "b"}  # decisions of the first gateway and of the second
    stats = json.loads(cli("status", "--run", run_id, "--state-dir", str(state), "--json",
                           env={"ACTEON_URL": ""}).stdout)["stats"]
    assert stats["dispatched"] == len(audit) == stats["executed"]
    assert json.loads((folder / "stats.json").read_text())["dispatched"] == len(audit)
    assert f"- dispatched: {len(audit)}" in (folder / "summary.md").read_text()
    shown = cli("status", "--run", run_id, "--state-dir", str(state), env={"ACTEON_URL": ""}).stdout
    assert f"Total dispatched: {len(audit)}" in shown


def test_approvals_in_status_say_how_many_were_asked_and_how_many_still_wait() -> None:
    from orchestrator import events as E
    from orchestrator.show.status import gateway_counters

    def call(n: int, outcome: str, approval: str | None) -> E.ToolCall:
        return E.ToolCall(ts="2026-11-26T10:00:00", seq=n, audit_id=f"{n}-0", agent_id="a.1", tool="Bash",
                          outcome=outcome, approval_id=approval, at_ms=n)

    # one approval asked twice (the agent retried while it waited) then used, another still waiting
    events = [call(1, "pending_approval", "ap-1"), call(2, "pending_approval", "ap-1"), call(3, "executed", "ap-1"),
              call(4, "pending_approval", "ap-2"), call(5, "executed", None)]
    counts = gateway_counters(events)
    assert (counts["dispatched"], counts["pending_approval"], counts["executed"]) == (5, 3, 2)
    assert (counts["approvals_asked"], counts["approvals_open"]) == (2, 1)


def test_plan_validate_catches_what_can_only_fail_at_run_time(tmp_path: Path) -> None:
    """A command given to a role that may not run commands, a prompt on the command engine, an agent CLI that
    is not installed: `plan validate` and `run` say so before anything starts, with every other problem."""
    data = plan(tmp_path, [{**task("look", "grep -rn TODO ."), "assigned_role": "reviewer"},
                           {**task("ask", "true"), "subtasks": [{"id": "q", "name": "q", "prompt": "Explain."}]}])
    data["tasks"].append({**task("broken", "true"), "subtasks": [{"id": "b1", "name": "b", "command": 5}]})
    p = write_plan(tmp_path, data)
    no_cli = {"PATH": str(tmp_path / "empty"), "ACTEON_CLAUDE_BIN": ""}
    on_claude = cli("plan", "validate", "--plan", str(p), "--engine", "claude", env=no_cli)
    assert on_claude.returncode == 2 and "Traceback" not in on_claude.stderr
    for problem in ("command: Input should be a valid string",
                    "subtask 'look-1' of task 'look' runs a command, but role 'reviewer' may not run shell commands",
                    "the claude CLI is not on PATH (or set ACTEON_CLAUDE_BIN): needed by subtask 'q' of task 'ask'"):
        assert problem in on_claude.stderr, on_claude.stderr
    on_command = cli("plan", "validate", "--plan", str(p), "--engine", "command")
    assert "subtask 'q' of task 'ask' has a prompt, but the engine is 'command'" in on_command.stderr
    wrong_bin = cli("plan", "validate", "--plan", str(p), env={"ACTEON_CLAUDE_BIN": str(tmp_path / "nope")})
    assert f"ACTEON_CLAUDE_BIN={tmp_path / 'nope'} is not an executable file" in wrong_bin.stderr
    data["tasks"].pop()  # well formed now, still unable to run
    state = tmp_path / "state"
    r = cli("run", "--plan", str(write_plan(tmp_path, data)), "--engine", "command", "--state-dir", str(state))
    assert r.returncode == 2 and "role 'reviewer' may not run shell commands" in r.stderr
    assert not (state / "runs").exists() or not any((state / "runs").iterdir())  # nothing started
