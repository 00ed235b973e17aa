"""The eval harness: the documented score formats, errors that are never a pass, and whole runs gated by
``pass_threshold`` (on the integration head in a git repository, in the working directory otherwise)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from orchestrator.run.evals import EvalError, parse_score, result_of
from tests.orchestrator.test_run import cli, journal, plan, task, write_plan


@pytest.mark.parametrize(("stdout", "score", "report"), [
    ("0.82\n", 0.82, {}),
    ("running 50 tests\n...\n  1  \n", 1.0, {}),
    ("0\n", 0.0, {}),
    ('{"score": 0.5, "passed": 5, "failed": 5}', 0.5, {"score": 0.5, "passed": 5, "failed": 5}),
    ('  {"score": 1}\n', 1.0, {"score": 1}),
])
def test_documented_score_formats(stdout: str, score: float, report: dict[str, object]) -> None:
    assert parse_score(stdout) == (score, report)


@pytest.mark.parametrize(("stdout", "why"), [
    ("", "printed nothing"),
    ("all good\n", "last line is not a score"),
    ("1.5\n", "in [0, 1]"),
    ("-0.1\n", "in [0, 1]"),
    ("nan\n", "in [0, 1]"),
    ('{"passed": 3}', "has no 'score'"),
    ('{"score": "0.9"}', "not a number"),
    ('{"score": true}', "not a number"),
    ('{"score": 2}', "in [0, 1]"),
])
def test_anything_else_is_an_error_never_a_score(stdout: str, why: str) -> None:
    with pytest.raises(EvalError, match=why.replace("[", r"\[").replace("]", r"\]")):
        parse_score(stdout)
    assert not result_of(stdout, ok=True).passes(None)


def test_a_failed_command_is_no_score_even_if_it_printed_one() -> None:
    result = result_of("0.99\n", ok=False, detail="exit 1: boom")
    assert result.score is None and "exit 1: boom" in result.error and not result.passes(0.0)


def test_pathological_output_is_bounded() -> None:
    started = time.perf_counter()
    assert not result_of("[" * 100_000, ok=True).ok
    assert not result_of("{" + '"a":{' * 50_000, ok=True).ok
    assert result_of("x\n" * 200_000 + "0.5", ok=True).score == 0.5
    assert time.perf_counter() - started < 5


def _run(tmp_path: Path, command: str, threshold: float | None, run_id: str) -> tuple[int, dict[str, object]]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    toml = tmp_path / f"{run_id}.toml"
    toml.write_text("[eval_harness]\nenabled = true\n" + f"command = {json.dumps(command)}\n"
                    + (f"pass_threshold = {threshold}\n" if threshold is not None else "")
                    + "[defaults]\nenable_refiner = false\n")
    p = write_plan(tmp_path, plan(ws, [task("a", "echo 3 > passed; echo 1 > failed")]))
    r = cli("run", "--plan", str(p), "--config", str(toml), "--state-dir", str(tmp_path / "state"), "--run-id",
            run_id, "--json", env={"ACTEON_URL": ""})
    return r.returncode, json.loads(r.stdout)


@pytest.mark.slow
def test_a_run_passes_or_fails_by_its_eval(tmp_path: Path) -> None:
    score = 'echo "{\\"score\\": $(( $(cat passed) * 100 / ($(cat passed) + $(cat failed)) ))e-2}"'
    rc, report = _run(tmp_path, score, 0.7, "good")
    assert rc == 0 and report["status"] == "done"
    scored = [e for e in journal(tmp_path / "state", "good") if e["type"] == "eval"]
    assert scored[0]["score"] == 0.75 and scored[0]["passed"] is True and scored[0]["report"]["score"] == 0.75
    rc, report = _run(tmp_path, score, 0.8, "low")
    assert rc == 1 and report["status"] == "eval_failed"
    finished = [e for e in journal(tmp_path / "state", "low") if e["type"] == "run_finished"][-1]
    assert "0.750 is below the pass threshold 0.8" in finished["reason"]
    rc, report = _run(tmp_path, "echo looks fine to me", None, "garbage")
    assert rc == 1 and report["status"] == "eval_failed"  # no score is never a pass, threshold or not
    shown = cli("status", "--run", "garbage", "--state-dir", str(tmp_path / "state")).stdout
    assert "eval_failed" in shown


def test_adversarial_cannot_be_switched_on_without_an_eval_and_typos_name_the_key(tmp_path: Path) -> None:
    toml = tmp_path / "swarm.toml"
    toml.write_text("[adversarial]\nenabled = true\n")
    r = cli("plan", "validate", "--plan", str(tmp_path / "missing.json"), "--config", str(toml))
    assert r.returncode == 2 and "[adversarial] needs the eval harness" in r.stderr
    r = cli("run", "--plan", str(tmp_path / "missing.json"), "--adversarial")  # the flag is held to it too
    assert r.returncode == 2 and "[adversarial] needs the eval harness" in r.stderr
    toml.write_text("[eval_harness]\nenabled = true\ncomand = 'x'\n")
    r = cli("plan", "validate", "--plan", str(tmp_path / "missing.json"), "--config", str(toml))
    assert r.returncode == 2 and "eval_harness.comand: unknown key (did you mean 'command'?)" in r.stderr
