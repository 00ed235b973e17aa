"""The adversarial loop with the real ``claude`` binary against the fake model: a Claude coder writes code with a
planted bug in its worktree, a Claude challenger (another model, no tools) flags it, a Claude recovery agent
fixes it on its own branch — through the hook, the gateway and its worktree-bound key — and the fix lands only
because the eval on the merged candidate scores higher."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each

BUGGY = "def add(a, b):\\n    return a + b\\n\\n\\ndef mul(a, b):\\n    return a ** b\\n"
EVAL = """import importlib.util, json
spec = importlib.util.spec_from_file_location("calc", "calc.py")
calc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calc)
checks = [calc.add(2, 3) == 5, calc.mul(2, 3) == 6, calc.mul(3, 3) == 9, calc.mul(1, 1) == 1]
print(sum(checks) / len(checks))
"""


def git(repo, *args: str) -> str:  # type: ignore[no-untyped-def]
    env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def test_claude_challenger_and_recovery_agent_fix_a_planted_bug_under_the_eval(claude_bin, sandbox) -> None:
    ws = sandbox.workspace
    git(ws, "init", "-q", "-b", "main")
    (ws / "README.md").write_text("calc\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    (sandbox.root / "eval.py").write_text(EVAL)
    (sandbox.root / "swarm.toml").write_text(
        "[defaults]\nenable_refiner = false\n[eval_harness]\nenabled = true\npass_threshold = 1.0\n"
        f"command = \"{sys.executable} {sandbox.root / 'eval.py'}\"\n"
        "[adversarial]\nenabled = true\nmax_rounds = 2\nchallenger_model = \"opus\"\n")
    plan = {
        "id": "adv-plan", "objective": "a calculator", "status": "approved", "estimated_actions": 40,
        "scope": {"working_directory": str(ws), "max_agents": 2},
        "tasks": [{"id": "impl", "name": "write calc.py", "assigned_role": "coder",
                   "subtasks": [{"id": "impl-1", "name": "write", "prompt": "MARKER-IMPL write calc.py"}]}],
    }
    (sandbox.root / "plan.json").write_text(json.dumps(plan))
    challenge = {"challenges": [{"target_task": "impl", "category": "correctness", "severity": 0.9,
                                 "description": "mul raises to a power instead of multiplying (calc.py:6)",
                                 "suggested_fix": "return a * b"}]}
    script = Script(steps=[], subagents={
        "MARKER-IMPL": [[("Bash", {"command": f"printf '{BUGGY}' > calc.py && git add calc.py && "
                                              "git commit -qm 'calc'", "description": "write"})]],
        "A reviewer challenged the work": [[("Bash", {"command": "sed -i 's/a \\*\\* b/a * b/' calc.py && "
                                                                 "git commit -qam 'fix mul'", "description": "fix"})]],
    }, finals={"challenger of round 1": json.dumps(challenge),
               "challenger of round 2": json.dumps({"challenges": []})})
    state = sandbox.root / "state"
    with fake_model(script) as model:
        env = {"PATH": os.environ["PATH"], "HOME": str(sandbox.home), "PYTHONPATH": str(ROOT),
               "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "ACTEON_CLAUDE_BIN": claude_bin}
        r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(sandbox.root / "plan.json"),
                            "--engine", "claude", "--config", str(sandbox.root / "swarm.toml"), "--state-dir",
                            str(state), "--run-id", "adv-e2e", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws, timeout=300)
    adversarial_md = state / "runs" / "adv-e2e" / "adversarial.md"
    assert r.returncode == 0, (adversarial_md.read_text() if adversarial_md.exists() else "") + r.stderr
    assert json.loads(r.stdout)["status"] == "done"  # pass_threshold 1.0: only the merged fix gets there
    report = json.loads((state / "runs" / "adv-e2e" / "adversarial.json").read_text())
    (fixed,) = [c for c in report["rounds"][0]["challenges"] if c["fix"]]
    assert fixed["fix"]["result"] == "merged" and fixed["fix"]["score_before"] == 0.5
    assert fixed["fix"]["score_after"] == 1.0 and report["stopped"] == "nothing_actionable"
    assert "return a * b" in git(ws, "show", "acteon/adv-e2e/integration:calc.py")
    assert (ws / "calc.py").exists() is False  # the user's checkout is untouched until they merge
    # The challenger ran on its own model with no tools; the recovery agent's calls went through the gateway.
    challenger = [q for q in script.requests if "challenger of round 1" in json.dumps(q.get("messages", [])[:1])]
    assert challenger and "opus" in str(challenger[0].get("model")) and not challenger[0].get("tools")
    calls = [json.loads(line) for line in (state / "runs" / "adv-e2e" / "events.jsonl").read_text().splitlines()]
    assert any(e["type"] == "tool_call" and e["agent_id"] == "adv1-c1.adv1-c1-1" and e["outcome"] == "executed"
               for e in calls)
