"""Cline's CLI (3.0.65, ``cline --json``) offline behind the gate installed by ``acteon-swarm-hook install --cli
cline``: a refused call does not run and the model is told why while the run goes on (Cline itself can only end
the whole run), a harmless one runs, writes to a secret refused, and the gateway down or hanging → refused, inside
Cline's own timeout (after which it would run the call)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from tests.e2e.conftest import Sandbox, audit, dead_gateway_url, new_run, run_cline, scoped_key
from tests.e2e.fake_models import Script
from tests.hook.fake_gateway import fake_gateway

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


def _told(script: Script) -> list[str]:
    """What reached the model after each call: the tool's result and the hook's context beside it."""
    out: list[str] = []
    for req in script.requests:
        for msg in req.get("messages", []):
            for block in msg.get("content") if isinstance(msg.get("content"), list) else []:
                text = block.get("text") if block.get("type") == "text" else None
                if block.get("type") == "tool_result":
                    inner = block.get("content")
                    text = " ".join(str(b.get("text", "")) for b in inner) if isinstance(inner, list) else str(inner)
                if text and text not in out:
                    out.append(text)
    return out


def _shell(command: str) -> tuple[str, dict[str, Any]]:
    return "run_commands", {"commands": [command]}


def test_a_destructive_command_is_refused_with_its_reason_and_the_run_goes_on(cline_bin, gateway, sandbox: Sandbox):
    precious = sandbox.precious()
    run_id = f"cline-{uuid.uuid4().hex[:8]}"
    script = Script([[_shell(f"rm -rf {precious}")], [_shell("echo hello > out.txt")]])
    result = run_cline(cline_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"  # the run went on to the next call
    told = " ".join(_told(script))
    assert "block-destructive-commands" in told and "exited with code 126" in told
    records = audit(gateway, run_id)
    assert [r["outcome"] for r in records] == ["suppressed", "executed"]
    assert {r["provider"] for r in records} == {"cline"} and records[0]["tool"] == "run_commands"


def test_a_write_to_a_secret_is_refused(cline_bin, gateway, sandbox: Sandbox):
    run_id = f"cline-{uuid.uuid4().hex[:8]}"
    script = Script([[("editor", {"path": str(sandbox.workspace / ".env"), "new_text": "TOKEN=x\n"})],
                     [("editor", {"path": str(sandbox.workspace / "notes.txt"), "new_text": "ok\n"})]])
    result = run_cline(cline_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / ".env").exists()
    assert (sandbox.workspace / "notes.txt").read_text() == "ok\n"
    assert "block-credential-access" in " ".join(_told(script))


def test_writes_outside_the_file_scope_are_refused(cline_bin, gateway, sandbox: Sandbox):
    ws = sandbox.workspace
    (ws / "src").mkdir()
    run_id = f"cline-{uuid.uuid4().hex[:8]}"
    script = Script([[("editor", {"path": str(ws / "src" / "ok.py"), "new_text": "ok = 1\n"})],
                     [("editor", {"path": str(ws / "notes.txt"), "new_text": "no\n"})],
                     [_shell("echo no > docs.txt")]])
    result = run_cline(cline_bin, sandbox, script, gateway=gateway, run_id=run_id,
                       key=scoped_key(gateway, run_id, ws, ["src/**"]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (ws / "src" / "ok.py").read_text() == "ok = 1\n"
    assert not (ws / "notes.txt").exists() and not (ws / "docs.txt").exists()
    assert " ".join(_told(script)).count("outside the task's file scope") >= 2


def test_with_the_gateway_down_a_call_is_refused_and_the_model_told(cline_bin, sandbox: Sandbox):
    script = Script([[_shell("echo hello > out.txt")]])
    result = run_cline(cline_bin, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = " ".join(_told(script))
    assert "gateway unavailable" in told and "fail closed" in told


def test_a_gateway_that_hangs_is_a_refusal_inside_clines_timeout(cline_bin, sandbox: Sandbox):
    script = Script([[_shell("echo hello > out.txt")]])
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, _seen, release):
        started = time.monotonic()
        result = run_cline(cline_bin, sandbox, script, gateway=url, run_id="default", key="any", budget="3")
        elapsed = time.monotonic() - started
        release.set()
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    assert "did not answer in time" in " ".join(_told(script))
    assert elapsed < 60  # the hook's 3 s budget, far inside Cline's 120 s (after which it would run the call)
