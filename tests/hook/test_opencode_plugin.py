"""The OpenCode plugin (acteon_core/opencode_plugin.js) run under Node exactly as OpenCode calls it, with the
arguments OpenCode 1.18.33 passed (recorded), against a scripted gateway: a deny throws with its reason, an
allow leaves the call alone, a reroute replaces its arguments, and every failure of the gate throws."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from acteon_core.settings import HookOptions, opencode_plugin
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env
from tests.support import require

FIXTURES = Path(__file__).parent / "fixtures" / "opencode-1.18.33"
# Calls the plugin's hook as OpenCode does and prints what happened: the arguments after it, or the error.
DRIVER = """
const plugin = await import(process.argv[2]);
const hooks = await plugin.ActeonSwarmGate({ directory: "/home/dev/shop" });
const call = JSON.parse(process.argv[3]);
try {
  const second = call.phase === "after" ? call.output : { args: call.args };
  await hooks["tool.execute." + process.argv[4]](call.input, second);
  console.log(JSON.stringify({ ran: true, args: call.args }));
} catch (e) {
  console.log(JSON.stringify({ ran: false, error: e.message }));
}
"""


def node() -> str:
    found = shutil.which("node")
    require("node (OpenCode's plugins are JavaScript)", found is not None)
    return str(found)


def call_plugin(name: str, result: Any, phase: str = "before", budget: float = 20) -> tuple[dict[str, Any], list[Any]]:
    recorded = json.loads((FIXTURES / f"{name}.json").read_text())
    with tempfile.TemporaryDirectory() as d, fake_gateway(lambda m, p, b: (200, result)) as (url, seen, release):
        plugin = Path(d) / "acteon-swarm.mjs"
        plugin.write_text(opencode_plugin(HookOptions(url=url, budget=budget, authoritative=True)))
        driver = Path(d) / "driver.mjs"
        driver.write_text(DRIVER)
        env = {**gw_env(url), "PATH": os.environ["PATH"], "ACTEON_AGENT_KEY": "agent-key-1"}
        p = subprocess.run([node(), str(driver), str(plugin), json.dumps({**recorded, "phase": phase}), phase],
                           capture_output=True, text=True, env=env, timeout=60)
        release.set()
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), seen


def test_a_refusal_throws_its_reason_to_the_model() -> None:
    out, seen = call_plugin("before_bash", decision("suppressed", False))
    assert out["ran"] is False and "because suppressed" in out["error"] and "some-rule" in out["error"]
    body = seen[0][2]["body"]
    assert (body["provider"], body["tool"], body["input"]["command"]) == ("opencode", "bash", "echo hi > o.txt")
    assert body["session_id"] == "ses_de47f766bffeA7kR5sWE10jBww" and body["cwd"] == "/home/dev/shop"


def test_an_allow_lets_the_call_run_unchanged() -> None:
    out, _ = call_plugin("before_write", decision("executed", True))
    assert out == {"ran": True, "args": {"filePath": "/home/dev/shop/w.txt", "content": "w"}}


def test_a_reroute_replaces_the_arguments() -> None:
    new = {"command": "trash build/", "description": "x"}
    out, _ = call_plugin("before_bash", decision("rerouted", True, updated_input=new))
    assert out == {"ran": True, "args": new}


@pytest.mark.parametrize("result", [b"not json", decision("maybe", True), "HANG"])
def test_every_failure_of_the_gate_throws(result: Any) -> None:
    out, _ = call_plugin("before_bash", result, budget=2)
    assert out["ran"] is False and "blocked" in out["error"]


def test_a_finished_call_is_reported_and_never_blocks() -> None:
    out, seen = call_plugin("after_bash", {"accepted": True}, phase="after")
    assert out["ran"] is True
    assert seen[0][1] == "/v1/runs/run-7/events" and seen[0][2]["body"]["tool"] == "bash"
