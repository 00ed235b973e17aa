"""A plan that does not estimate its tool calls gets a documented default (not a quota of
one call), `plan validate` and `run` warn when the quota looks too small, and `acteon-swarm init` writes a
commented swarm.toml and an example plan that validate as they are."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from orchestrator.config import parse_config
from orchestrator.plan.model import DEFAULT_ACTIONS_PER_SESSION, Plan, estimated_actions, plan_warnings
from tests.orchestrator.test_run import cli, plan, task, write_plan


def _plan(**extra: object) -> Plan:
    data = {"id": "p", "objective": "o", "scope": {"working_directory": "/w"}, "tasks": [
        {"id": "a", "name": "a", "assigned_role": "coder", "subtasks": [
            {"id": "a1", "name": "a1", "prompt": "do a"}, {"id": "a2", "name": "a2", "prompt": "do b"},
            {"id": "a3", "name": "a3", "command": "make test"}]}], **extra}
    return Plan.model_validate(data)


def test_a_missing_estimate_means_the_default_per_agent_session() -> None:
    assert estimated_actions(_plan()) == 2 * DEFAULT_ACTIONS_PER_SESSION  # two prompts; a command is no agent
    assert estimated_actions(_plan(estimated_actions=7)) == 7
    assert "no estimated_actions" in plan_warnings(_plan())[0]
    assert "is small for 2 agent session(s)" in plan_warnings(_plan(estimated_actions=5))[0]
    assert plan_warnings(_plan(estimated_actions=200)) == []
    assert "quota_max_actions" in plan_warnings(_plan(estimated_actions=200), quota_override=3)[0]


def test_a_plan_without_an_estimate_is_not_stopped_at_its_second_call(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    data = plan(ws, [task("a", "echo a > a.txt"), task("b", "echo b > b.txt"), task("c", "cat a.txt", ["a"])])
    del data["estimated_actions"]
    r = cli("run", "--plan", str(write_plan(tmp_path, data)), "--state-dir", str(tmp_path / "state"), "--json",
            env={"ACTEON_URL": ""})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "done"
    assert "warning: the plan has no estimated_actions" in r.stderr


def test_plan_validate_warns_on_a_small_quota_and_still_validates(tmp_path: Path) -> None:
    data = plan(tmp_path, [task("a", "true")], estimated_actions=0)
    data["tasks"][0]["subtasks"][0] = {"id": "a-1", "name": "a", "prompt": "work"}
    data["estimated_actions"] = 3
    r = cli("plan", "validate", "--plan", str(write_plan(tmp_path, data)), env={"ACTEON_CLAUDE_BIN": "/bin/true"})
    assert r.returncode == 0 and ": valid" in r.stdout
    assert r.stderr.startswith("warning: estimated_actions 3 is small")


def test_init_writes_a_starter_that_validates_and_never_overwrites(tmp_path: Path) -> None:
    r = cli("init", str(tmp_path))
    assert r.returncode == 0, r.stderr
    toml_text = (tmp_path / "swarm.toml").read_text()
    assert toml_text.startswith("# swarm.toml")
    parse_config(tomllib.loads(toml_text))  # every key in the starter is a real one
    # its plan is for agents: it needs the claude CLI (any executable stands in for it here)
    check = cli("plan", "validate", "--plan", str(tmp_path / "plan.json"), "--config", str(tmp_path / "swarm.toml"),
                env={"ACTEON_CLAUDE_BIN": "/bin/true"})
    assert check.returncode == 0 and check.stderr == "", check.stderr
    (tmp_path / "plan.json").write_text("mine")
    again = cli("init", str(tmp_path))
    assert again.returncode == 2 and "exists: pass --force" in again.stderr and "Traceback" not in again.stderr
    assert (tmp_path / "plan.json").read_text() == "mine"


def test_init_for_the_command_engine_writes_a_plan_that_runs_without_an_agent_cli(tmp_path: Path) -> None:
    r = cli("init", str(tmp_path), "--engine", "command")
    assert r.returncode == 0, r.stderr
    assert parse_config(tomllib.loads((tmp_path / "swarm.toml").read_text())).defaults.engine == "command"
    check = cli("plan", "validate", "--plan", str(tmp_path / "plan.json"), env={"ACTEON_CLAUDE_BIN": "/nope"},
                cwd=tmp_path)  # no agent CLI is looked for
    assert check.returncode == 0 and check.stderr == "", check.stderr
    bad = cli("init", str(tmp_path / "x"), "--engine", "cobol")
    assert bad.returncode == 2 and "unknown engine 'cobol'" in bad.stderr
