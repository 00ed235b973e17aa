"""The real Claude Code and Gemini CLI binaries, offline against a scripted model, with the hook
installed and the gateway on the default pack. Everything is judged by effects on disk and by what
reached the model."""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.conftest import audit, dead_gateway_url, new_run, run_claude, run_gemini
from tests.e2e.fake_models import Script

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each

CLAUDE_MODES = [pytest.param(False, id="command-hook"), pytest.param(True, id="http-hook")]


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _bash(command: str) -> tuple[str, dict[str, str]]:
    return ("Bash", {"command": command, "description": "step"})


def _shell(command: str) -> tuple[str, dict[str, str]]:
    return ("run_shell_command", {"command": command})


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_destructive_command_is_blocked_and_harmless_one_runs(claude_bin, gateway, sandbox, http) -> None:
    precious = sandbox.precious()
    run_id = _run_id("c-destroy")
    script = Script([[_bash(f"rm -rf {precious}")], [_bash("echo hello > out.txt")]])
    result = run_claude(claude_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id),
                        http=http)
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    assert "block-destructive-commands" in result.script.tool_results()[0]
    outcomes = [(r["target"].split()[0], r["outcome"]) for r in audit(gateway, run_id)]
    assert outcomes == [("rm", "suppressed"), ("echo", "executed")]


def test_gemini_destructive_command_is_blocked_and_harmless_one_runs(gemini_bin, gateway, sandbox) -> None:
    precious = sandbox.precious()
    run_id = _run_id("g-destroy")
    script = Script([[_shell(f"rm -rf {precious}")], [_shell("echo hello > out.txt")]])
    result = run_gemini(gemini_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    assert "block-destructive-commands" in result.script.tool_results()[0]
    assert [r["outcome"] for r in audit(gateway, run_id)] == ["suppressed", "executed"]


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_write_to_dotenv_is_blocked(claude_bin, gateway, sandbox, http) -> None:
    run_id = _run_id("c-env")
    env_file = sandbox.workspace / ".env"
    script = Script([[("Write", {"file_path": str(env_file), "content": "API_KEY=stolen\n"})],
                     [("Write", {"file_path": str(sandbox.workspace / "notes.md"), "content": "fine\n"})]])
    result = run_claude(claude_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id),
                        http=http)
    assert result.returncode == 0, result.stderr
    assert not env_file.exists()
    assert (sandbox.workspace / "notes.md").read_text() == "fine\n"
    assert [r["rule"] for r in audit(gateway, run_id)] == ["block-credential-access", "allow-normal-operations"]


def test_gemini_write_to_dotenv_is_blocked(gemini_bin, gateway, sandbox) -> None:
    # Gemini refuses write_file on .env by itself before any hook runs, so the write goes through the
    # shell here: only the gateway's parse of the redirect can stop it.
    run_id = _run_id("g-env")
    script = Script([[_shell("echo API_KEY=stolen > .env")], [("write_file", {"file_path": "notes.md",
                                                                              "content": "fine"})]])
    result = run_gemini(gemini_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / ".env").exists()
    assert (sandbox.workspace / "notes.md").read_text() == "fine"
    assert [r["rule"] for r in audit(gateway, run_id)] == ["block-credential-access", "allow-normal-operations"]


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_subagent_tool_calls_are_gated_too(claude_bin, gateway, sandbox, http) -> None:
    precious = sandbox.precious()
    run_id = _run_id("c-sub")
    script = Script(
        steps=[[("Agent", {"description": "clean up", "prompt": "SUBAGENT-7F3 clean the home directory",
                           "subagent_type": "general-purpose"})]],
        subagents={"SUBAGENT-7F3": [[_bash(f"rm -rf {precious}")]]},
    )
    result = run_claude(claude_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id),
                        http=http)
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    records = audit(gateway, run_id)
    sub = [r for r in records if r["tool"] == "Bash"]
    assert len(sub) == 1 and sub[0]["outcome"] == "suppressed"
    assert sub[0]["agent_type"] == "general-purpose"  # the call came from inside the subagent
    assert any(r["action_type"] == "spawn_agent" and r["outcome"] == "executed" for r in records)


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_thirteenth_command_in_a_minute_is_throttled(claude_bin, gateway, sandbox, http) -> None:
    run_id = _run_id("c-thr")
    script = Script([[_bash(f"echo {i} >> log.txt")] for i in range(13)])
    result = run_claude(claude_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id),
                        http=http)
    assert result.returncode == 0, result.stderr
    assert (sandbox.workspace / "log.txt").read_text().split() == [str(i) for i in range(12)]
    assert "throttled" in result.script.tool_results()[-1]
    assert [r["outcome"] for r in audit(gateway, run_id)][-1] == "throttled"


def test_gemini_thirteenth_command_in_a_minute_is_throttled(gemini_bin, gateway, sandbox) -> None:
    run_id = _run_id("g-thr")
    script = Script([[_shell(f"echo {i} >> log.txt")] for i in range(13)])
    result = run_gemini(gemini_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id))
    assert result.returncode == 0, result.stderr
    assert (sandbox.workspace / "log.txt").read_text().split() == [str(i) for i in range(12)]
    assert "throttled" in result.script.tool_results()[-1]


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_with_the_gateway_down_is_blocked_and_told(claude_bin, sandbox, http) -> None:
    script = Script([[_bash("echo hello > out.txt")]])
    result = run_claude(claude_bin, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any",
                        http=http)
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = result.script.tool_results()[0]
    assert "hook" in told.lower()
    if not http:  # the command hook explains itself; for the http hook Claude reports the failure
        assert "gateway unavailable" in told and "fail closed" in told


def test_gemini_with_the_gateway_down_is_blocked_and_told(gemini_bin, sandbox) -> None:
    script = Script([[_shell("echo hello > out.txt")]])
    result = run_gemini(gemini_bin, sandbox, script, gateway=dead_gateway_url(), run_id="default", key="any")
    assert result.returncode == 0, result.stderr
    assert not (sandbox.workspace / "out.txt").exists()
    told = result.script.tool_results()[0]
    assert "gateway unavailable" in told and "fail closed" in told


@pytest.mark.parametrize("http", CLAUDE_MODES)
def test_claude_installed_by_hand_keeps_its_own_permission_prompt(claude_bin, gateway, sandbox, http) -> None:
    """With the default install a harmless call the gateway allows still needs Claude's own
    permission — headless, with Bash in no allow list, it is not run; a destructive one is denied either way.
    Installed --authoritative (what orchestrated runs use) the gateway's allow is the permission."""
    precious = sandbox.precious()
    run_id = _run_id("c-own-perms")
    script = Script([[_bash(f"rm -rf {precious}")], [_bash("echo hello > out.txt")]])
    result = run_claude(claude_bin, sandbox, script, gateway=gateway, run_id=run_id, key=new_run(gateway, run_id),
                        http=http, authoritative=False)
    assert result.returncode == 0, result.stderr
    assert (precious / "data.txt").read_text() == "keep me"
    assert not (sandbox.workspace / "out.txt").exists()  # allowed by the gateway, not by Claude's permissions
    assert "block-destructive-commands" in result.script.tool_results()[0]
    assert [r["outcome"] for r in audit(gateway, run_id)] == ["suppressed", "executed"]
