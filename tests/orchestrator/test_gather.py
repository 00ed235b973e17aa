"""``plan gather``: a request becomes a validated plan; mistakes go back to the engine, questions to a person."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.config import parse_config
from orchestrator.plan.gather import MAX_ANSWERS, GatherError, gather
from orchestrator.roles import roles_from_config

ROLES = roles_from_config(parse_config({}, "test"))


def plan_json(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "fix-login", "objective": "Fix the login bug", "scope": {"max_agents": 2},
        "estimated_actions": 40, "success_criteria": ["tests pass"],
        "tasks": [
            {"id": "find", "name": "Find the bug", "assigned_role": "researcher",
             "subtasks": [{"id": "find-1", "name": "read", "prompt": "Find why login fails."}]},
            {"id": "fix", "name": "Fix it", "assigned_role": "coder", "depends_on": ["find"],
             "subtasks": [{"id": "fix-1", "name": "edit", "prompt": "Fix it."}]},
        ]}
    data.update(over)
    return data


class Engine:
    """A scripted engine: answers in order, records every prompt it got."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


async def test_a_valid_answer_becomes_a_pending_plan_in_the_users_directory(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("")
    engine = Engine("Here is the plan:\n```json\n" + json.dumps(plan_json(
        status="approved", scope={"working_directory": "/", "max_agents": 2})) + "\n```")
    got = await gather("fix the login bug", ask=engine, roles=ROLES, workdir=tmp_path)
    assert got.plan.status == "pending"  # never approved by the model
    assert got.plan.scope.working_directory == str(tmp_path)  # never the model's choice
    assert [t.id for t in got.plan.tasks] == ["find", "fix"] and got.answers == 1
    prompt = engine.prompts[0]
    assert "fix the login bug" in prompt and "app.py" in prompt and "coder:" in prompt
    assert "Do not ask questions" in prompt  # nobody at a terminal to answer them


async def test_every_problem_goes_back_to_the_engine_until_the_plan_is_valid(tmp_path: Path) -> None:
    cyclic = plan_json()
    cyclic["tasks"][0]["depends_on"] = ["fix"]
    cyclic["tasks"][1]["assigned_role"] = "wizard"
    engine = Engine("I think you should refactor.", json.dumps(cyclic), json.dumps(plan_json()))
    got = await gather("fix it", ask=engine, roles=ROLES, workdir=tmp_path)
    assert got.answers == 3
    assert "holds no JSON object" in engine.prompts[1]
    assert "dependency cycle" in engine.prompts[2] and "wizard" in engine.prompts[2]


async def test_it_gives_up_with_the_last_problems_after_a_few_answers(tmp_path: Path) -> None:
    engine = Engine(*(['{"id": "x"}'] * MAX_ANSWERS))
    with pytest.raises(GatherError, match=r"no valid plan after .* objective"):
        await gather("fix it", ask=engine, roles=ROLES, workdir=tmp_path)
    with pytest.raises(GatherError, match="empty"):
        await gather("  ", ask=Engine(), roles=ROLES, workdir=tmp_path)


async def test_clarifying_questions_go_to_the_person_and_their_answers_to_the_engine(tmp_path: Path) -> None:
    engine = Engine('{"questions": ["Which login, web or CLI?", "Keep the old API?"]}', json.dumps(plan_json()))
    asked: list[str] = []

    def person(question: str) -> str:
        asked.append(question)
        return "web" if "login" in question else "yes"

    got = await gather("fix the login", ask=engine, roles=ROLES, workdir=tmp_path, ask_human=person)
    assert asked == ["Which login, web or CLI?", "Keep the old API?"]
    assert got.questions == [("Which login, web or CLI?", "web"), ("Keep the old API?", "yes")]
    assert "answer {\"questions\"" in engine.prompts[0]
    assert "Q: Which login, web or CLI?\nA: web" in engine.prompts[1]


async def test_questions_without_a_person_are_refused_and_rounds_are_bounded(tmp_path: Path) -> None:
    engine = Engine('{"questions": ["web or CLI?"]}', json.dumps(plan_json()))
    got = await gather("fix", ask=engine, roles=ROLES, workdir=tmp_path)
    assert "questions cannot be answered now" in engine.prompts[1] and got.plan.id == "fix-login"

    asks = Engine('{"questions": ["a?"]}', '{"questions": ["b?"]}', '{"questions": ["c?"]}', json.dumps(plan_json()))
    got = await gather("fix", ask=asks, roles=ROLES, workdir=tmp_path, ask_human=lambda q: "x")
    assert [q for q, _ in got.questions] == ["a?", "b?"]  # two rounds, then it must answer
    assert "Do not ask questions" in asks.prompts[2]


# --- the command ------------------------------------------------------------------------------------
def test_plan_gather_writes_an_unapproved_plan_and_refuses_to_overwrite(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.support import ROOT, gateway_process

    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(plan_json()))
    ws = tmp_path / "ws"
    ws.mkdir()
    out = tmp_path / "plan.json"
    with gateway_process({"ACTEON_ADMIN_KEY": "adm", "ACTEON_STATE_DIR": str(tmp_path / "gw")}) as url:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_URL": url, "ACTEON_ADMIN_KEY": "adm"}

        def gather_cli(*extra: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "orchestrator.cli", "plan", "gather", "--prompt", "fix login",
                                   "--engine", "command", "--out", str(out), "--workdir", str(ws),
                                   "--state-dir", str(tmp_path / "state"), *extra],
                                  capture_output=True, text=True, env=env, timeout=60)

        r = gather_cli("--command", f"cat > prompt.txt; cat {answer}", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["tasks"] == 2
        plan = json.loads(out.read_text())
        assert plan["status"] == "pending" and plan["scope"]["working_directory"] == str(ws)
        assert "fix login" in (ws / "prompt.txt").read_text()  # the engine read the prompt on stdin
        again = gather_cli("--command", f"cat {answer}")
        assert again.returncode == 2 and "exists" in again.stderr
        bad = gather_cli("--command", "echo no plan for you", "--force")
        assert bad.returncode == 1 and "no valid plan" in bad.stderr and "Traceback" not in bad.stderr
        missing = gather_cli("--force")
        assert missing.returncode == 2 and "--command" in missing.stderr
