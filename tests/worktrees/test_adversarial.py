"""The adversarial loop through the real CLI, in a real git repository, with the command engine: a planted
bug lowers the eval score; the (scripted) challenger flags it and a second, harmful "fix"; the recovery that
raises the score is merged, the one that lowers it is not — its branch is kept —; a round with nothing
actionable ends the loop; the user's checkout (uncommitted changes, an existing stash) is byte-identical
afterwards. A kill -9 during a round, then resume: the loop goes on without asking the challenger again or
re-running the recovery that had finished."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from tests.orchestrator.test_run import cli, gw, journal, start_cli, write_plan  # noqa: F401 - gw: fixture
from tests.support import wait_until
from tests.worktrees.test_parallel_writers import commit, git, plan, snapshot, user_repo, writer

BUGGY = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"

EVAL = """import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("calc", "calc.py")
calc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calc)
checks = [calc.add(2, 3) == 5, calc.add(0, 0) == 0, calc.mul(2, 3) == 6, calc.mul(1, 1) == 1]
print(json.dumps({"score": sum(checks) / len(checks), "passed": sum(checks), "total": len(checks)}))
"""

CHALLENGER = """import json, sys
prompt = sys.stdin.read()
log = sys.argv[1]
open(log, "a").write("asked\\n")
if "challenger of round 1" not in prompt or "return a + b" not in prompt:
    print(json.dumps({"challenges": []}))
    sys.exit(0)
print("Here is what I found:")
print(json.dumps({"challenges": [
    {"target_task": "impl", "category": "correctness", "severity": 0.9,
     "description": "mul adds instead of multiplying (calc.py:6)", "suggested_fix": "FIX-MUL"},
    {"target_task": "impl", "category": "style", "severity": 0.7,
     "description": "add should subtract, trust me", "suggested_fix": "BREAK-ADD"},
    {"target_task": "impl", "category": "docs", "severity": 0.2, "description": "no docstrings",
     "suggested_fix": "DOCS"},
    {"target_task": "nope", "category": "x", "severity": 2, "description": "invalid"}]}))
"""

RECOVERY = """import json, os, subprocess, sys, time
challenge = json.load(open(os.environ["ACTEON_CHALLENGE"]))
fix, log = challenge["suggested_fix"], sys.argv[1]
open(log, "a").write(fix + "\\n")
while os.path.exists(sys.argv[2] + "." + fix):
    time.sleep(0.05)
text = open("calc.py").read()
if fix == "FIX-MUL":
    text = text.replace("def mul(a, b):\\n    return a + b", "def mul(a, b):\\n    return a * b")
elif fix == "BREAK-ADD":
    text = text.replace("def add(a, b):\\n    return a + b", "def add(a, b):\\n    return a - b")
open("calc.py", "w").write(text)
subprocess.run(["git", "add", "calc.py"], check=True)
subprocess.run(["git", "commit", "-qm", "fix: " + fix], check=True)
"""


def setup(tmp_path: Path, *, flags: bool = False, **adversarial: Any) -> tuple[Path, Path, Path]:
    """The repository, plan and swarm.toml; ``flags``: the loop and the eval are switched on by `run`'s flags
    (FLAGS) instead of swarm.toml."""
    repo = user_repo(tmp_path)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for name, text in (("eval.py", EVAL), ("challenger.py", CHALLENGER), ("recovery.py", RECOVERY)):
        (scripts / name).write_text(text)
    (scripts / "calc.py").write_text(BUGGY)
    logs = tmp_path / "logs"
    logs.mkdir()
    table = {**({} if flags else {"enabled": True}), "max_rounds": 3, "threshold": 0.5, "max_parallel": 2,
             "challenger_command": f"{sys.executable} {scripts / 'challenger.py'} {logs / 'challenger.log'}",
             "recovery_command": f"{sys.executable} {scripts / 'recovery.py'} {logs / 'recovery.log'} {logs / 'hold'}",
             **adversarial}
    toml = tmp_path / "swarm.toml"
    evaluate = f"{sys.executable} {scripts / 'eval.py'}"
    harness = "" if flags else f"enabled = true\npass_threshold = 0.9\ncommand = \"{evaluate}\"\n"
    toml.write_text("[defaults]\nenable_refiner = false\n[eval_harness]\n" + harness + "[adversarial]\n"
                    + "".join(f"{k} = {json.dumps(v)}\n" for k, v in table.items()))
    data = plan(repo, [writer("impl", f"cp {scripts / 'calc.py'} calc.py && {commit('impl')}", isolate=True)])
    return repo, write_plan(tmp_path, data), toml


def flags(tmp_path: Path) -> list[str]:
    return ["--adversarial", "--eval", f"{sys.executable} {tmp_path / 'scripts' / 'eval.py'}", "--pass-threshold",
            "0.9"]


def test_the_fix_that_raises_the_score_is_merged_and_the_one_that_lowers_it_is_kept_unmerged(tmp_path: Path) -> None:
    repo, p, toml = setup(tmp_path)
    before = snapshot(repo)
    r = cli("run", "--plan", str(p), "--engine", "command", "--state-dir", str(tmp_path / "state"), "--run-id", "adv",
            "--config", str(toml), "--json", env={"ACTEON_URL": ""})
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["status"] == "done"  # the final eval passes 0.9 only because the fix landed
    assert snapshot(repo) == before  # uncommitted work and the stash untouched, byte for byte
    run_dir = tmp_path / "state" / "runs" / "adv"
    report = json.loads((run_dir / "adversarial.json").read_text())
    assert report["baseline"] == 0.5 and report["final"] == 1.0 and report["stopped"] == "nothing_actionable"
    first, second = report["rounds"]
    assert first["score_before"] == 0.5 and second["score_before"] == 1.0 and second["challenges"] == []
    fixes = {c["suggested_fix"]: c for c in first["challenges"]}
    assert set(fixes) == {"FIX-MUL", "BREAK-ADD", "DOCS"} and len(first["rejected"]) == 1  # the invalid one
    good, bad, docs = fixes["FIX-MUL"]["fix"], fixes["BREAK-ADD"]["fix"], fixes["DOCS"]
    assert good["result"] == "merged" and good["score_after"] == 1.0
    assert bad["result"] == "not_merged" and "below the current" in bad["reason"]
    assert not docs["actionable"] and docs["fix"] is None  # severity 0.2 < threshold 0.5: no recovery agent
    integration = "acteon/adv/integration"
    assert git(repo, "show", f"{integration}:calc.py") == "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n" \
                                                           "    return a * b"
    assert "return a - b" in git(repo, "show", f"{bad['branch']}:calc.py")  # the harmful branch is kept, unmerged
    assert (tmp_path / "logs" / "challenger.log").read_text() == "asked\nasked\n"  # one per round
    calls = [e for e in journal(tmp_path / "state", "adv") if e["type"] == "tool_call"]
    assert any(e["agent_id"] == "adv1-c1.adv1-c1-1" for e in calls)  # recovery agents are audited like any agent
    md = (run_dir / "adversarial.md").read_text()
    assert "not merged, branch acteon/adv/adv1-c2 kept" in md and "0.500 → 1.000" in md
    status = cli("status", "--run", "adv", "--state-dir", str(tmp_path / "state"))
    assert "Adversarial: 2 round(s), 3 challenge(s), 2 actionable, 1 fix(es) merged, 1 not merged" in status.stdout
    # The twin, through the ready query: each fix with its challenge's severity and the scores.
    g = cli("graph", "query", "--run", "adv", "--state-dir", str(tmp_path / "state"), "--format", "json", "--ready",
            "fixes")
    rows = [(float(b["severity"]["value"]), b["fix"]["value"], b["result"]["value"], float(b["before"]["value"]),
             float(b["after"]["value"])) for b in json.loads(g.stdout)["results"]["bindings"]]
    # The harmful fix scored 0.25 if judged before the good one landed, else 0.75 against 1.0: lower either way.
    assert rows[0] == (0.9, "adv1-c1", "merged", 0.5, 1.0), g.stderr
    assert rows[1][:3] == (0.7, "adv1-c2", "not_merged") and rows[1][4] < rows[1][3]


def test_kill_9_during_a_round_then_resume_does_not_redo_what_finished(tmp_path: Path, gw) -> None:  # noqa: F811
    repo, p, toml = setup(tmp_path, flags=True, max_parallel=1)
    before = snapshot(repo)
    logs = tmp_path / "logs"
    (logs / "hold.BREAK-ADD").touch()  # the second fix waits until the test lets it go
    state = tmp_path / "state"
    proc = start_cli("run", "--plan", str(p), "--engine", "command", "--state-dir", str(state), "--run-id", "advk",
                     "--config", str(toml), "--json", *flags(tmp_path), env=gw)
    try:
        wait_until(lambda: any(e["type"] == "fix" for e in journal(state, "advk")) and any(
            e["type"] == "agent_started" and e["task_id"] == "adv1-c2" for e in journal(state, "advk")),
            timeout_s=90, what="the first fix to finish and the second to start")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    status = cli("status", "--run", "advk", "--state-dir", str(state))
    assert "Phase (when it stopped): adversarial round 1: fixing 2 of 2 challenge(s)" in status.stdout, status.stdout
    (logs / "hold.BREAK-ADD").unlink()
    # No flags again: the resume keeps those the run started with.
    r = cli("run", "--resume", "advk", "--state-dir", str(state), "--config", str(toml), "--json", env=gw)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (logs / "recovery.log").read_text().split() == ["FIX-MUL", "BREAK-ADD", "BREAK-ADD"]  # the first not redone
    assert (logs / "challenger.log").read_text() == "asked\nasked\n"  # round 1 once (not again on resume), round 2
    report = json.loads((state / "runs" / "advk" / "adversarial.json").read_text())
    results = {c["suggested_fix"]: c["fix"]["result"] for c in report["rounds"][0]["challenges"] if c["fix"]}
    assert results == {"FIX-MUL": "merged", "BREAK-ADD": "not_merged"} and report["final"] == 1.0
    assert sum(1 for e in journal(state, "advk") if e["type"] == "fix") == 2
    assert snapshot(repo) == before
