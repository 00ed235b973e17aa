"""The Claude Agent SDK (Python) driving the real pinned ``claude`` binary offline against the scripted fake model,
with :func:`hook.agent_sdk.gateway_hooks` in its options and ``permission_mode="bypassPermissions"``: the SDK
would approve every call, so whatever is blocked here is blocked by the gateway's hook callbacks alone. Judged by
effects on disk, by what reached the model and by the gateway's audit."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from hook import agent_sdk
from hook.agent_sdk import gateway_hooks
from tests.e2e.conftest import ADMIN_KEY, Sandbox, audit, dead_gateway_url, new_run
from tests.e2e.fake_models import Script, fake_model
from tests.hook.fake_gateway import fake_gateway
from tests.support import require

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # real agent CLIs: seconds each


@pytest.fixture(autouse=True)
def _sdk() -> None:
    try:
        import claude_agent_sdk  # noqa: F401
    except ImportError:
        require("claude-agent-sdk (the test extra)", False)


def _bash(command: str) -> tuple[str, dict[str, str]]:
    return ("Bash", {"command": command, "description": "step"})


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def run_sdk(claude_bin: str, sb: Sandbox, script: Script, **options: Any) -> list[Any]:
    """One ``query()`` of the SDK, the CLI in the sandbox, every tool call approved by the permission mode."""
    from claude_agent_sdk import ClaudeAgentOptions, query

    with fake_model(script) as model:
        opts = ClaudeAgentOptions(
            cli_path=claude_bin, cwd=sb.workspace, permission_mode="bypassPermissions", setting_sources=[],
            env={"HOME": str(sb.home), "ANTHROPIC_BASE_URL": model, "ANTHROPIC_API_KEY": "sk-ant-fake",
                 "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                 "IS_SANDBOX": "1"},  # bypassPermissions is refused to root outside a sandbox
            **options)

        async def drive() -> list[Any]:
            return [message async for message in query(prompt="Do the task.", options=opts)]

        return await asyncio.wait_for(drive(), 240)


def events(gateway: str, run_id: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{gateway}/v1/runs/{run_id}/events", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    return list(r.json()["events"])


def _result(messages: list[Any]) -> Any:
    from claude_agent_sdk import ResultMessage

    (result,) = [m for m in messages if isinstance(m, ResultMessage)]
    return result


async def test_a_destructive_command_is_blocked_and_a_harmless_one_runs(claude_bin, gateway, sandbox) -> None:
    precious = sandbox.precious()
    run_id = _run_id("sdk-destroy")
    hooks = gateway_hooks(url=gateway, key=new_run(gateway, run_id), run_id=run_id, agent_id="sdk-agent-1",
                          budget_s=20, env={"HOME": str(sandbox.home)})
    script = Script([[_bash(f"rm -rf {precious}")], [_bash("echo hello > out.txt")]])
    messages = await run_sdk(claude_bin, sandbox, script, hooks=hooks)
    assert not _result(messages).is_error
    assert (precious / "data.txt").read_text() == "keep me"
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"
    told = script.tool_results()[0]
    assert "block-destructive-commands" in told and "destructive command blocked by policy" in told
    records = audit(gateway, run_id)
    assert [(r["target"].split()[0], r["outcome"], r["agent_id"]) for r in records] == \
        [("rm", "suppressed", "sdk-agent-1"), ("echo", "executed", "sdk-agent-1")]
    (done,) = events(gateway, run_id)  # PostToolUse: only the call that ran
    assert (done["tool"], done["success"], done["agent_id"], done["tool_use_id"]) == \
        ("Bash", True, "sdk-agent-1", records[1]["tool_use_id"])


async def test_a_subagents_tool_calls_are_gated_too(claude_bin, gateway, sandbox) -> None:
    precious = sandbox.precious()
    run_id = _run_id("sdk-sub")
    hooks = gateway_hooks(url=gateway, key=new_run(gateway, run_id), run_id=run_id, agent_id="sdk-agent-2",
                          budget_s=20, env={"HOME": str(sandbox.home)})
    script = Script(
        steps=[[("Agent", {"description": "clean up", "prompt": "SUBAGENT-5D1 clean the home directory",
                           "subagent_type": "general-purpose"})]],
        subagents={"SUBAGENT-5D1": [[_bash(f"rm -rf {precious}")]]},
    )
    await run_sdk(claude_bin, sandbox, script, hooks=hooks)
    assert (precious / "data.txt").read_text() == "keep me"
    records = audit(gateway, run_id)
    (sub,) = [r for r in records if r["tool"] == "Bash"]
    assert (sub["outcome"], sub["agent_type"], sub["agent_id"]) == ("suppressed", "general-purpose", "sdk-agent-2")
    assert any(r["action_type"] == "spawn_agent" and r["outcome"] == "executed" for r in records)


async def test_with_the_gateway_down_every_call_is_blocked_and_the_model_told(claude_bin, sandbox) -> None:
    hooks = gateway_hooks(url=dead_gateway_url(), key="any", budget_s=20, env={})
    script = Script([[_bash("echo hello > out.txt")]])
    messages = await run_sdk(claude_bin, sandbox, script, hooks=hooks)
    assert not _result(messages).is_error
    assert not (sandbox.workspace / "out.txt").exists()
    told = script.tool_results()[0]
    assert "gateway unavailable" in told and "fail closed" in told


async def test_a_gateway_that_hangs_is_blocked_at_the_budget(claude_bin, sandbox) -> None:
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, seen, _release):
        hooks = gateway_hooks(url=url, key="any", budget_s=2, env={})
        script = Script([[_bash("echo hello > out.txt")]])
        messages = await run_sdk(claude_bin, sandbox, script, hooks=hooks)
    assert not _result(messages).is_error and len(seen) == 1
    assert not (sandbox.workspace / "out.txt").exists()
    assert "did not answer in time" in script.tool_results()[0]


async def test_without_the_gate_the_same_script_runs_and_can_use_tool_is_never_asked(claude_bin, sandbox) -> None:
    """The control: under bypassPermissions the destructive command runs, even with a ``can_use_tool`` that
    refuses everything — which is why the gate is a PreToolUse hook callback."""
    from claude_agent_sdk import PermissionResultDeny

    asked: list[str] = []

    async def refuse_all(tool: str, tool_input: dict[str, Any], context: Any) -> PermissionResultDeny:
        asked.append(tool)
        return PermissionResultDeny(message="refused")

    precious = sandbox.precious()
    script = Script([[_bash(f"rm -rf {precious}")]])
    with pytest.warns(UserWarning, match="can_use_tool will not be invoked"):
        await run_sdk(claude_bin, sandbox, script, can_use_tool=refuse_all)
    assert not precious.exists() and asked == []


async def test_a_gate_callback_that_raises_still_blocks_and_would_not_without_on_failure(
        claude_bin, sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """The callback answers a deny on every failure of its own; should it ever raise anyway, its matcher's
    ``on_failure="block"`` blocks the call. Without it, Claude Code treats a callback's error as no decision and
    bypassPermissions runs the call."""
    from claude_agent_sdk import HookMatcher

    async def broken(*args: Any) -> dict[str, Any]:
        raise RuntimeError("exploded")

    monkeypatch.setattr(agent_sdk, "decide", broken)
    script = Script([[_bash("echo hello > out.txt")]])
    await run_sdk(claude_bin, sandbox, script, hooks=gateway_hooks(url=dead_gateway_url(), key="any", env={}))
    assert not (sandbox.workspace / "out.txt").exists()
    assert 'onFailure is "block"' in script.tool_results()[0]

    (matcher,) = gateway_hooks(url=dead_gateway_url(), key="any", env={})["PreToolUse"]
    open_matcher = HookMatcher(matcher=None, hooks=matcher.hooks, timeout=matcher.timeout)  # no on_failure
    await run_sdk(claude_bin, sandbox, Script([[_bash("echo hello > out.txt")]]), hooks={"PreToolUse": [open_matcher]})
    assert (sandbox.workspace / "out.txt").read_text().strip() == "hello"


async def test_another_hooks_allow_does_not_override_the_gates_deny(claude_bin, sandbox) -> None:
    """Claude Code runs every matcher of the event; the deny wins, whichever list order."""
    from claude_agent_sdk import HookMatcher

    async def allow_everything(*args: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "permissionDecisionReason": "mine"}}

    hooks = gateway_hooks(url=dead_gateway_url(), key="any", env={})
    hooks["PreToolUse"].insert(0, HookMatcher(matcher=None, hooks=[allow_everything]))
    script = Script([[_bash("echo hello > out.txt")]])
    await run_sdk(claude_bin, sandbox, script, hooks=hooks)
    assert not (sandbox.workspace / "out.txt").exists()
    assert "gateway unavailable" in script.tool_results()[0]


async def test_an_sdk_mcp_tool_is_gated_and_denied_by_the_default_pack(claude_bin, gateway, sandbox) -> None:
    from claude_agent_sdk import create_sdk_mcp_server, tool

    called: list[dict[str, Any]] = []

    @tool("echo", "echo a text", {"text": str})
    async def echo(args: dict[str, Any]) -> dict[str, Any]:
        called.append(args)
        return {"content": [{"type": "text", "text": args["text"]}]}

    run_id = _run_id("sdk-mcp")
    hooks = gateway_hooks(url=gateway, key=new_run(gateway, run_id), run_id=run_id, env={})
    script = Script([[("mcp__srv__echo", {"text": "hi"})]])
    await run_sdk(claude_bin, sandbox, script, hooks=hooks,
                  mcp_servers={"srv": create_sdk_mcp_server("srv", tools=[echo])})
    assert called == [] and "default-deny" in script.tool_results()[0]
    (record,) = audit(gateway, run_id)
    assert (record["tool"], record["action_type"], record["rule"], record["outcome"]) == \
        ("mcp__srv__echo", "mcp_call", "default-deny", "suppressed")
