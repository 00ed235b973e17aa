"""The twin of a real run: ``acteon-swarm run`` on the command engine (embedded gateway, scripted refiner),
then every ready query over its graph through the CLI, and graph.nq written from its directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.graph import twin as T
from orchestrator.rundir import RunDir
from tests.support import ROOT

FAKE_REFINER = ROOT / "tests" / "data" / "fake_refiner.py"


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env}, timeout=120)


def task(tid: str, command: str, deps: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"id": tid, "name": f"task {tid}", "assigned_role": "coder", "depends_on": list(deps),
            "subtasks": [{"id": f"{tid}-1", "name": tid, "command": command}]}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("twin-run")
    ws, home, state = tmp / "ws", tmp / "home", tmp / "state"
    ws.mkdir()
    home.mkdir()
    plan = {"id": "p", "objective": "a run to mirror", "status": "approved", "estimated_actions": 100,
            "scope": {"working_directory": str(ws), "max_agents": 4}, "tasks": [
                # a → c is the critical path by construction: two sleeps in a row against one blocked call
                task("a", "sleep 0.3; echo 'FINDING [build]: a.txt is written by task a'; echo a > a.txt"),
                task("b", "rm -rf ~"),
                task("c", "sleep 0.3; cat a.txt > c.txt", ("a",)),
                task("d", "echo d", ("a",)),
            ]}
    (tmp / "plan.json").write_text(json.dumps(plan))
    (tmp / "answers.json").write_text(json.dumps({"a": "SKIP: d"}))
    (tmp / "swarm.toml").write_text(f'[refiner]\nengine = "command"\n'
                                    f'command = "{sys.executable} {FAKE_REFINER} {tmp / "answers.json"}"\n')
    r = cli("run", "--plan", str(tmp / "plan.json"), "--engine", "command", "--config", str(tmp / "swarm.toml"),
            "--state-dir", str(state), "--run-id", "twin", "--json", env={"ACTEON_URL": "", "HOME": str(home)})
    assert r.returncode == 1, r.stderr  # b is blocked, so the run fails
    assert json.loads(r.stdout)["tasks"] == {"a": "done", "b": "failed", "c": "done", "d": "skipped"}
    return state, {"HOME": str(home)}


def rows(state: Path, name: str, env: dict[str, str]) -> list[dict[str, Any]]:
    r = cli("graph", "query", "--ready", name, "--run", "twin", "--state-dir", str(state), "--format", "json",
            env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    return [{k: v["value"] for k, v in b.items()} for b in data["results"]["bindings"]]


@pytest.mark.slow
def test_every_ready_query_on_a_real_run(finished_run: tuple[Path, dict[str, str]]) -> None:
    state, env = finished_run
    path = rows(state, "critical-path", env)
    assert [(r["position"], r["task"], r["status"]) for r in path] == [("1", "a", "done"), ("2", "c", "done")]
    assert all(float(r["seconds"]) >= 0.3 for r in path)
    assert float(path[0]["pathSeconds"]) == pytest.approx(sum(float(r["seconds"]) for r in path))
    skipped = rows(state, "refiner-skipped", env)
    assert [(r["run"], r["afterTask"], r["skipped"], r["fallback"]) for r in skipped] == [("twin", "a", "d", "false")]
    assert rows(state, "blocked-calls-by-rule", env) == [
        {"rule": "block-destructive-commands", "outcome": "suppressed", "calls": "1", "agents": "1",
         "example": "rm -rf ~"}]
    lineage = rows(state, "finding-lineage", env)
    assert [(r["finding"], r["discoveredIn"], r["discoveredBy"], r["text"]) for r in lineage] == [
        ("twin/1", "twin", "a.a-1", "a.txt is written by task a")]
    # nothing was throttled, waited for approval or alarmed the monitor in this run
    assert rows(state, "most-throttled-agents", env) == []
    assert rows(state, "approvals", env) == []
    assert rows(state, "alerts", env) == []


def test_the_run_graph_file_is_written_into_the_run_directory(finished_run: tuple[Path, dict[str, str]]) -> None:
    state, _ = finished_run
    rd = RunDir(state, "twin")
    assert T.cached_graph(rd) == rd.path / "graph.nq"  # written by the run as it ended, and up to date
    written = (rd.path / "graph.nq").read_bytes()
    path = T.write_run_graph(rd)
    assert path == rd.path / "graph.nq" and path.read_bytes() == written  # a rebuild is the same bytes
    text = path.read_text()
    assert text.startswith("# acteon-swarm run graph v1 source=")
    assert "<urn:acteon-swarm:run:twin/call/" in text and text.endswith(" <urn:acteon-swarm:run:twin> .\n")
