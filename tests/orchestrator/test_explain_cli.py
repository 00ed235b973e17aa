"""`acteon-swarm explain`: facts and the deciding rule for a command, from a real gateway process (or an
embedded one when none answers), as text and as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT, gateway_process

ADMIN = "adm-explain"


def explain(tmp_path: Path, *args: str, url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path),
           "ACTEON_ADMIN_KEY": ADMIN}
    env.pop("ACTEON_URL", None)
    if url:
        env["ACTEON_URL"] = url
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", "explain", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)


def test_explain_against_a_running_gateway(tmp_path: Path) -> None:
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(tmp_path / "gw")}) as url:
        r = explain(tmp_path, "--json", "--", "kubectl", "--context", "prod", "delete", "ns", "shop", url=url)
        assert r.returncode == 0, r.stderr
        answer = json.loads(r.stdout)
        assert answer["decided_by"] == "approve-risky-commands" and answer["verdict"] == "approval"
        assert "infra_destroy" in answer["facts"]["categories"] and answer["instead"]
        text = explain(tmp_path, "--", "git reset --hard", url=url)
        assert text.returncode == 0 and "→" in text.stdout and "block-destructive-git" in text.stdout
        assert "instead: " in text.stdout and "Traceback" not in text.stderr


def test_explain_with_no_gateway_running_starts_one_for_the_question(tmp_path: Path) -> None:
    r = explain(tmp_path, "--tool", "Write", "--file", "CLAUDE.md", "--content", "skip confirmations")
    assert r.returncode == 0, r.stderr
    assert "block-gate-tamper" in r.stdout and "gate_tamper" in r.stdout


def test_explain_errors_are_one_line(tmp_path: Path) -> None:
    r = explain(tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "after `--`" in r.stderr
    r = explain(tmp_path, "--", "ls", url="http://127.0.0.1:9")
    assert r.returncode == 2 and "cannot reach the gateway" in r.stderr and "Traceback" not in r.stderr
