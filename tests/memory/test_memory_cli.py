"""``acteon-swarm memory search|add|reindex`` through the real CLI: JSON and tables, scoping, and bad
input answered with a clear message and exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.memory.store import index_file
from tests.memory.journals import finding, make_run
from tests.support import ROOT


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("ACTEON_STATE_DIR", None)
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", "memory", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=60)


def js(r: subprocess.CompletedProcess[str]) -> Any:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """Two runs in workspace ``ws`` and one elsewhere, each with a finding about caching."""
    st = tmp_path / "state"
    ws = tmp_path / "ws"
    ws.mkdir()
    for run, where in (("r1", ws), ("r2", ws), ("r3", tmp_path / "other")):
        rd = make_run(st, run, where)
        finding(rd, 1, f"{run}: the rule cache is rebuilt on reload", ["cache"])
        rd.record(E.ToolCall, audit_id="5-0", agent_id="a1", tool="Bash", target="make clean", outcome="allow",
                  at_ms=1)
    return st


def test_search_syncs_from_the_journals_and_scopes_to_the_workspace(state: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    hits = js(cli("search", "cache reload", "--json", "--state-dir", str(state), cwd=ws))
    assert sorted(h["id"] for h in hits) == ["r1/1", "r2/1"]  # cwd is the default workspace
    assert set(hits[0]) >= {"score", "kind", "run_id", "workspace", "agent_id", "topics", "text", "created"}
    everywhere = js(cli("search", "cache", "--all-workspaces", "--json", "--state-dir", str(state), cwd=tmp_path))
    assert len(everywhere) == 3
    one_run = js(cli("search", "cache", "--run", "r3", "--json", "--state-dir", str(state), cwd=ws))
    assert [h["id"] for h in one_run] == ["r3/1"]
    episodic = js(cli("search", "make clean", "--kind", "episodic", "--workspace", str(ws), "--json",
                      "--state-dir", str(state), cwd=tmp_path))
    assert sorted(h["id"] for h in episodic) == ["r1/5-0", "r2/5-0"]
    assert js(cli("search", "cache", "--topic", "nothing", "--json", "--state-dir", str(state), cwd=ws)) == []
    assert index_file(state).exists()


def test_search_prints_a_table_and_operators_are_plain_words(state: Path, tmp_path: Path) -> None:
    r = cli("search", 'cache AND NEAR( "[bold]', "--state-dir", str(state), cwd=tmp_path / "ws")
    assert r.returncode == 0, r.stderr
    assert "r1/1" not in r.stdout and "rule cache is rebuilt" in r.stdout and "score" in r.stdout
    r = cli("search", "the and of", "--state-dir", str(state), cwd=tmp_path / "ws")
    assert r.returncode == 0 and "no semantic memories match" in r.stdout


def test_add_manual_and_to_a_run_then_reindex(state: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    added = js(cli("add", "deploys are frozen on fridays", "--topic", "Ops", "--topic", "release", "--json",
                   "--state-dir", str(state), cwd=ws))
    assert added["finding_id"].startswith("manual/") and added["workspace"] == str(ws.resolve())
    assert added["topics"] == ["ops", "release"]
    to_run = js(cli("add", "the flaky test is test_outage", "--run", "r1", "--topic", "tests", "--json",
                    "--state-dir", str(state), cwd=tmp_path))
    assert to_run["finding_id"].startswith("r1/") and to_run["workspace"] == str(ws.resolve())
    last = R.RunDir(state, "r1").read_events()[-1]
    assert isinstance(last, E.Finding) and last.agent_id is None and last.text == "the flaky test is test_outage"
    assert [h["id"] for h in js(cli("search", "fridays", "--json", "--state-dir", str(state), cwd=ws))] == \
        [added["finding_id"]]
    before = js(cli("search", "flaky fridays cache", "--json", "--state-dir", str(state), cwd=ws))
    for f in state.glob("memory.sqlite3*"):
        f.unlink()
    r = cli("reindex", "--state-dir", str(state), cwd=tmp_path)
    assert r.returncode == 0 and "indexed 8 memories" in r.stdout, r.stdout + r.stderr
    assert js(cli("search", "flaky fridays cache", "--json", "--state-dir", str(state), cwd=ws)) == before


def test_a_corrupt_journal_is_a_warning_for_search_and_a_failure_for_reindex(state: Path, tmp_path: Path) -> None:
    with R.RunDir(state, "r2").journal_file.open("a") as f:
        f.write("{broken\n")
    r = cli("search", "cache", "--json", "--state-dir", str(state), cwd=tmp_path / "ws")
    assert r.returncode == 0 and "r2/events.jsonl:4" in r.stderr and "Traceback" not in r.stderr
    assert len(json.loads(r.stdout)) == 2
    r = cli("reindex", "--json", "--state-dir", str(state), cwd=tmp_path)
    assert r.returncode == 1 and json.loads(r.stdout)["memories"] == 6 and "Traceback" not in r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["search", "x", "--kind", "procedural"], "--kind must be semantic, episodic or all"),
    (["search", "x", "--run", "nope"], "no run 'nope'"),
    (["search", "x", "--run", "../r1"], "invalid run id"),
    (["search", "x", "--workspace", "/tmp", "--all-workspaces"], "not both"),
    (["search", "x", "--limit", "0"], "--limit"),
    (["add", "   "], "text is empty"),
    (["add", "y" * 2001], "at most 2000"),
    (["add", "x", *[a for i in range(9) for a in ("--topic", f"t{i}")]], "at most 8"),
    (["add", "x", "--topic", " "], "invalid topic"),
    (["add", "x", "--run", "r1", "--workspace", "/tmp"], "cannot be used with --run"),
    (["add", "x", "--run", "missing"], "no run 'missing'"),
])
def test_bad_input_is_a_clear_error_with_exit_code_2(state: Path, tmp_path: Path, args: list[str],
                                                     message: str) -> None:
    r = cli(*args, "--state-dir", str(state), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr
