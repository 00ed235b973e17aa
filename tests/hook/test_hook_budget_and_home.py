"""The hook's time budget covers reading its input (a CLI holding stdin open cannot keep a
call waiting past it), and the hook reports the agent's HOME so the gateway resolves `~` and classifies
home paths as the agent sees them."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN, call
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import EVENTS, HOOK, decision, gw_env, is_deny, reason_of, run_hook


@pytest.mark.parametrize("dialect", ["claude", "gemini"])
def test_stdin_held_open_is_denied_within_the_budget(dialect: str) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _):
        env = {"PATH": os.environ.get("PATH", ""), "ACTEON_AGENT_KEY": "k", **gw_env(url)}
        proc = subprocess.Popen([*HOOK, "gate", "--cli", dialect, "--budget", "2"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stdin is not None
        started = time.monotonic()
        proc.stdin.write(json.dumps(EVENTS[dialect]).encode()[:40])  # half an event, and the pipe stays open
        proc.stdin.flush()
        assert proc.stdout is not None
        watchdog = threading.Timer(10, proc.kill)  # a regression must fail the test, not hang it
        watchdog.start()
        out = proc.stdout.read()  # returns when the hook exits, whatever its stdin does
        proc.wait(timeout=15)
        watchdog.cancel()
        elapsed = time.monotonic() - started
        proc.stdin.close()
    assert proc.returncode == 2
    answer = json.loads(out)
    assert is_deny(dialect, answer) and "did not arrive within 2 s" in reason_of(dialect, answer)
    assert elapsed < 4.0, f"the hook waited {elapsed:.1f} s on a 2 s budget"
    assert seen == []  # nothing was decided on half an input


def test_the_hook_reports_the_agents_home() -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _):
        code, _answer, _err, _t = run_hook(json.dumps(EVENTS["claude"]), "gate",
                                           env={**gw_env(url), "HOME": "/tmp/agent-home-7"})
    assert code == 0
    body: dict[str, Any] = seen[0][2]["body"]
    assert body["home"] == "/tmp/agent-home-7" and body["cwd"] == "/w"


HOME_WRITES = """
rules:
  - {name: no-home-writes, priority: 1, when: {action_type: write_file, path_class: home}, action: suppress}
  - {name: allow-rest, priority: 2, action: allow}
"""


def test_the_gateway_classifies_with_the_agents_home(make_client: Any, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "pack.yaml").write_text(HOME_WRITES)
    client: TestClient = make_client(rules_dir=rules)  # the gateway's own HOME is /home/agent

    def outcome(**fields: Any) -> str:
        r = client.post("/v1/dispatch", json=call(tool="Write", content="x", **fields), headers=ADMIN)
        return str(r.json()["outcome"])

    # An agent homed under a temp directory: its home is home, not scratch space.
    assert outcome(file_path="/tmp/ah/notes.md", home="/tmp/ah") == "suppressed"
    assert outcome(file_path="/tmp/ah/notes.md") == "executed"  # (by the gateway's HOME it is temp)
    # `~` is the agent's.
    assert outcome(file_path="~/notes.md", home="/tmp/ah") == "suppressed"
    # A HOME that would make everything "home" (or a system directory "home") is not believed.
    assert outcome(file_path="/tmp/ah/notes.md", home="/") == "executed"
    assert outcome(file_path="/etc/hosts", home="/etc") == "executed"  # system, not "home" (this pack allows it)
