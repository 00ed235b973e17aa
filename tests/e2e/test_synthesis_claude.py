"""Synthesis at convergence with the real ``claude`` binary against the fake model: in a diamond DAG the join
task's prompt — as the fake server received it — holds the synthesis a clean Claude session wrote from both
parents' outputs, and the twin links the synthesis to the parents it came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


def test_claude_diamond_join_gets_the_synthesis_of_both_parents(claude_bin, sandbox) -> None:
    def task(tid: str, deps: list[str]) -> dict[str, object]:
        return {"id": tid, "name": f"step {tid}", "assigned_role": "researcher", "depends_on": deps,
                "subtasks": [{"id": f"{tid}1", "name": tid, "prompt": f"MARKER-{tid.upper()} do step {tid}"}]}

    plan = {"id": "diamond", "objective": "a diamond", "status": "approved", "estimated_actions": 20,
            "scope": {"working_directory": str(sandbox.workspace), "max_agents": 2},
            "tasks": [task("a", []), task("b", ["a"]), task("c", ["a"]), task("d", ["b", "c"])]}
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    (sandbox.root / "swarm.toml").write_text("[defaults]\nenable_refiner = false\n")
    script = Script(steps=[], finals={
        "You condense the work": "SYNTHESIS-7: b found a parser bug in parse.py:10; c found the docs missing.",
        "MARKER-B": "B-RESULT parser bug in parse.py:10", "MARKER-C": "C-RESULT docs are missing",
    })
    state = sandbox.root / "state"
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(sandbox.home), "PYTHONPATH": str(ROOT),
               "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "ACTEON_CLAUDE_BIN": claude_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "claude", "--config", str(sandbox.root / "swarm.toml"), "--state-dir",
                            str(state), "--run-id", "diamond", "--json"],
                           capture_output=True, text=True, env=env, cwd=sandbox.workspace, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["tasks"] == {"a": "done", "b": "done", "c": "done", "d": "done"}
    # The synthesizer read both parents' outputs, fenced as data.
    asked = [q for q in script.requests if "You condense the work" in json.dumps(q.get("messages", [])[:1])]
    assert asked and "B-RESULT parser bug" in json.dumps(asked[0]) and "C-RESULT docs" in json.dumps(asked[0])
    # The join's prompt, as the model received it, holds the synthesis.
    join = [q for q in script.requests if "MARKER-D" in json.dumps(q.get("messages", [])[:1])]
    assert join and "SYNTHESIS-7: b found a parser bug" in json.dumps(join[0])
    assert "SYNTHESIS-7" not in json.dumps([q for q in script.requests
                                            if "MARKER-B" in json.dumps(q.get("messages", [])[:1])])
    query = ("PREFIX swarm: <https://w3id.org/acteon-swarm/ns#> SELECT ?for ?parent WHERE { ?s a swarm:Synthesis ; "
             "swarm:synthesisFor ?t ; swarm:synthesizedFrom ?p . ?t swarm:id ?for . ?p swarm:id ?parent } "
             "ORDER BY ?parent")
    g = subprocess.run([sys.executable, "-m", "orchestrator.cli", "graph", "query", "--run", "diamond", "--state-dir",
                        str(state), "--format", "json", query], capture_output=True, text=True, env=env)
    rows = [(b["for"]["value"], b["parent"]["value"]) for b in json.loads(g.stdout)["results"]["bindings"]]
    assert rows == [("d", "b"), ("d", "c")], g.stderr
