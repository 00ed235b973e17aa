"""The Claude Agent SDK helper (hook/agent_sdk.py): its callbacks called as the SDK calls them — input, tool use
id, context — against a real gateway process on the default pack, and against a scripted gateway for every
way the decision can fail. Every failure must be an explicit deny with its reason, never an exception."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from acteon_core import contract as c
from hook import agent_sdk, gate
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision
from tests.support import ROOT, free_port, gateway_process, require

ADMIN_KEY = "sdk-admin-key-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
CONTEXT: Any = {"signal": None}  # what the SDK passes as the callback's context
DESTRUCTIVE = ("acteon-swarm blocked this call (suppressed, rule block-destructive-commands): destructive command "
               "blocked by policy. Instead: delete only inside the workspace (`rm -rf ./build`); leave home and "
               "system paths to a human")


@pytest.fixture(autouse=True)
def _sdk() -> None:
    try:
        import claude_agent_sdk  # noqa: F401
    except ImportError:
        require("claude-agent-sdk (the test extra)", False)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real gateway process (embedded store, default pack); each test makes its own run."""
    state = tmp_path_factory.mktemp("sdk-gw")
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(state)}) as url:
        yield url


# The tests against the real gateway wait for its process to start: seconds, on a busy machine more than five.
real_gateway = pytest.mark.slow


def new_run(url: str) -> tuple[str, str]:
    run_id = f"sdk-{uuid.uuid4().hex[:8]}"
    r = httpx.post(f"{url}/v1/runs", json={"run_id": run_id}, headers=ADMIN)
    assert r.status_code == 201, r.text
    return run_id, str(r.json()["agent_key"])


def records(url: str, run_id: str, kind: str = "audit") -> list[dict[str, Any]]:
    """The run's audit records (``audit``) or completion events (``events``)."""
    r = httpx.get(f"{url}/v1/runs/{run_id}/{kind}", headers=ADMIN)
    assert r.status_code == 200, r.text
    return list(r.json()["records" if kind == "audit" else "events"])


def pre_input(tool: str = "Bash", tool_input: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A PreToolUse input as the SDK hands it to the callback (Claude Code's event)."""
    return {"session_id": "5e55104d-sdk", "transcript_path": "/tmp/t.jsonl", "cwd": "/work/proj",
            "permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": {"command": "ls", "description": "list"} if tool_input is None else tool_input,
            "tool_use_id": "toolu_01", **extra}


def deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def allow(rule: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "permissionDecisionReason": f"acteon-swarm: executed ({rule})"}}


async def gate_answer(hooks: dict[Any, Any], input_data: Any, tool_use_id: str | None = "toolu_01") -> Any:
    (matcher,) = hooks["PreToolUse"]
    (callback,) = matcher.hooks
    return await callback(input_data, tool_use_id, CONTEXT)


async def post_answer(hooks: dict[Any, Any], input_data: Any, tool_use_id: str | None = "toolu_02") -> Any:
    (matcher,) = hooks["PostToolUse"]
    (callback,) = matcher.hooks
    return await callback(input_data, tool_use_id, CONTEXT)


# -- the matchers ------------------------------------------------------------------------------------

def test_one_matcher_per_event_for_every_tool_with_the_clis_timeout_above_the_budget() -> None:
    from claude_agent_sdk import ClaudeAgentOptions

    hooks = agent_sdk.gateway_hooks(key="k", budget_s=20, env={})
    assert set(hooks) == {"PreToolUse", "PostToolUse"}
    (pre,) = hooks["PreToolUse"]
    assert (pre.matcher, len(pre.hooks), pre.timeout, pre.on_failure) == (None, 1, 20 + c.HOOK_TIMEOUT_MARGIN_S,
                                                                          "block")
    (post,) = hooks["PostToolUse"]
    assert (post.matcher, len(post.hooks), post.timeout, post.on_failure) == (None, 1, 10.0, None)
    assert ClaudeAgentOptions(hooks=hooks).hooks is hooks


@pytest.mark.parametrize("budget", [0, -1, float("nan"), float("inf")])
def test_a_budget_that_is_not_a_positive_number_is_refused(budget: float) -> None:
    with pytest.raises(ValueError, match="budget_s must be a positive number"):
        agent_sdk.gateway_hooks(key="k", budget_s=budget, env={})


def test_the_module_imports_without_the_sdk_and_says_what_to_install() -> None:
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\nimport hook.agent_sdk as m\n"
            "try:\n    m.gateway_hooks()\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "hook.agent_sdk needs the Claude Agent SDK: pip install 'claude-agent-sdk>=0.2.189'"


# -- decisions of the real gateway ---------------------------------------------------------------------

@real_gateway
async def test_a_destructive_command_is_denied_with_the_rules_reason(gateway: str) -> None:
    run_id, key = new_run(gateway)
    hooks = agent_sdk.gateway_hooks(url=gateway, key=key, run_id=run_id, agent_id="sdk-agent",
                                    env={"HOME": "/home/agent"})
    answer = await gate_answer(hooks, pre_input(tool_input={"command": "rm -rf ~/precious"}))
    assert answer == deny(DESTRUCTIVE)
    (record,) = records(gateway, run_id)
    assert (record["outcome"], record["rule"], record["agent_id"], record["provider"], record["tool"]) == \
        ("suppressed", "block-destructive-commands", "sdk-agent", "claude-agent-sdk", "Bash")


@real_gateway
async def test_a_harmless_command_is_allowed(gateway: str) -> None:
    run_id, key = new_run(gateway)
    hooks = agent_sdk.gateway_hooks(url=gateway, key=key, run_id=run_id, env={})
    assert await gate_answer(hooks, pre_input()) == allow("allow-normal-operations")
    # not authoritative: the SDK's own rules and permission mode still decide what the gateway allows
    hooks = agent_sdk.gateway_hooks(url=gateway, key=key, run_id=run_id, authoritative=False, env={})
    assert await gate_answer(hooks, pre_input()) == {}
    assert [(r["outcome"], r["agent_id"]) for r in records(gateway, run_id)] == \
        [("executed", "claude-sdk-5e55104d-sdk")] * 2


@real_gateway
async def test_post_tool_use_reports_the_finished_call_to_the_runs_events(gateway: str) -> None:
    run_id, key = new_run(gateway)
    hooks = agent_sdk.gateway_hooks(url=gateway, key=key, run_id=run_id, agent_id="sdk-agent", env={})
    done = {**pre_input(), "hook_event_name": "PostToolUse", "duration_ms": 12,
            "tool_response": {"stdout": "a\nb\n", "stderr": "", "interrupted": False}}
    del done["tool_use_id"]  # the SDK's argument stands in for it
    assert await post_answer(hooks, done) == {}
    (event,) = records(gateway, run_id, "events")
    assert {k: event.get(k) for k in ("agent_id", "tool", "success", "duration_ms", "tool_use_id", "session_id")} \
        == {"agent_id": "sdk-agent", "tool": "Bash", "success": True, "duration_ms": 12, "tool_use_id": "toolu_02",
            "session_id": "5e55104d-sdk"}


# -- fail closed ---------------------------------------------------------------------------------------

async def test_the_gateway_down_denies_at_once() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    hooks = agent_sdk.gateway_hooks(url=url, key="k", budget_s=20, env={})
    started = time.monotonic()
    answer = await gate_answer(hooks, pre_input())
    elapsed = time.monotonic() - started
    assert answer == deny(f"acteon-swarm gateway unavailable, call blocked (fail closed): cannot reach the gateway "
                          f"at {url}: Connection refused")
    assert elapsed < 2.0, f"a refused connection took {elapsed:.1f} s to deny"


async def test_a_gateway_that_hangs_is_denied_within_the_budget() -> None:
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, seen, _release):
        hooks = agent_sdk.gateway_hooks(url=url, key="k", budget_s=1.0, env={})
        started = time.monotonic()
        answer = await gate_answer(hooks, pre_input())
        elapsed = time.monotonic() - started
    assert answer == deny("acteon-swarm gateway unavailable, call blocked (fail closed): "
                          "the gateway did not answer in time")
    assert len(seen) == 1 and elapsed < 1.0, f"denied after {elapsed:.2f} s on a 1 s budget"


async def test_decision_code_that_hangs_is_denied_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the socket deadlines do not cover (a name lookup, a key file that is a pipe) meets the hard deadline
    around the worker thread."""
    stuck = threading.Event()
    monkeypatch.setattr(gate, "decide", lambda *a, **k: stuck.wait(30))
    hooks = agent_sdk.gateway_hooks(url="http://127.0.0.1:9", key="k", budget_s=0.5, env={})
    started = time.monotonic()
    try:
        answer = await gate_answer(hooks, pre_input())
    finally:
        stuck.set()
    elapsed = time.monotonic() - started
    assert answer == deny("acteon-swarm: no decision within 0.5 s; call blocked (fail closed)")
    assert 0.5 <= elapsed < 1.5


async def test_the_agents_event_loop_runs_while_the_gateway_decides() -> None:
    """The HTTP call runs in a worker thread: this coroutine lets the gateway answer while the callback waits
    for it, which a callback blocking the loop would never let happen (it would time out instead)."""
    arrived, answer_now = threading.Event(), threading.Event()

    def slow(method: str, path: str, body: Any) -> tuple[int, Any]:
        arrived.set()
        answer_now.wait(10)
        return 200, decision("executed", True)

    with fake_gateway(slow) as (url, _seen, _release):
        hooks = agent_sdk.gateway_hooks(url=url, key="k", budget_s=10, env={})
        pending = asyncio.ensure_future(gate_answer(hooks, pre_input()))
        assert await asyncio.to_thread(arrived.wait, 10)  # the request has reached the gateway
        assert not pending.done()
        answer_now.set()
        answer = await asyncio.wait_for(pending, 10)
    assert answer == allow("some-rule")


GARBAGE = [
    pytest.param(None, "acteon-swarm: the hook input is not a PreToolUse event object; call blocked (fail closed)",
                 id="none"),
    pytest.param("rm -rf /", "acteon-swarm: the hook input is not a PreToolUse event object; call blocked "
                 "(fail closed)", id="string"),
    pytest.param([pre_input()], "acteon-swarm: the hook input is not a PreToolUse event object; call blocked "
                 "(fail closed)", id="list"),
    pytest.param(pre_input(hook_event_name="PostToolUse"), "acteon-swarm: the hook input is not a PreToolUse event "
                 "object; call blocked (fail closed)", id="another-event"),
    pytest.param({**pre_input(), "tool_input": "rm -rf /"}, "acteon-swarm: the hook input has no "
                 "tool_name/tool_input; call blocked", id="input-not-an-object"),
    pytest.param({k: v for k, v in pre_input().items() if k != "tool_name"}, "acteon-swarm: the hook input has no "
                 "tool_name/tool_input; call blocked", id="no-tool-name"),
    pytest.param({**pre_input(), "tool_name": 7}, "acteon-swarm: the hook input has no tool_name/tool_input; call "
                 "blocked", id="tool-name-not-a-string"),
]


@pytest.mark.parametrize(("input_data", "reason"), GARBAGE)
async def test_garbage_input_is_denied_without_asking_the_gateway(input_data: Any, reason: str) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _release):
        answer = await gate_answer(agent_sdk.gateway_hooks(url=url, key="k", env={}), input_data)
    assert answer == deny(reason) and seen == []


async def test_an_input_the_gate_cannot_send_is_denied_as_an_internal_error() -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _release):
        hooks = agent_sdk.gateway_hooks(url=url, key="k", env={})
        answer = await gate_answer(hooks, pre_input("Write", {"file_path": "/w/a", "content": {1, 2}}))
    assert set(answer) == {"hookSpecificOutput"} and seen == []
    specific = answer["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert (specific["hookEventName"], specific["permissionDecision"]) == ("PreToolUse", "deny")
    assert specific["permissionDecisionReason"].startswith("acteon-swarm: internal error (TypeError: ")
    assert specific["permissionDecisionReason"].endswith("; call blocked (fail closed)")


async def test_a_bug_in_the_decision_code_is_a_deny_never_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("boom")

    monkeypatch.setattr(gate, "decide", broken)
    answer = await gate_answer(agent_sdk.gateway_hooks(key="k", env={}), pre_input())
    assert answer == deny("acteon-swarm: internal error (RuntimeError: boom); call blocked (fail closed)")


async def test_no_key_is_denied_without_asking_the_gateway(tmp_path: Path) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _release):
        answer = await gate_answer(agent_sdk.gateway_hooks(url=url, env={}), pre_input())
        assert answer == deny("acteon-swarm: no agent key (ACTEON_AGENT_KEY or --key-file); every tool call is "
                              "blocked")
        missing = tmp_path / "no-such.key"
        answer = await gate_answer(agent_sdk.gateway_hooks(url=url, key_file=str(missing), env={}), pre_input())
        assert answer == deny(f"acteon-swarm: cannot read the agent key file {missing}: No such file or directory")
    assert seen == []


# -- identity ------------------------------------------------------------------------------------------

async def test_identity_comes_from_the_hooks_variables_and_the_arguments_win(tmp_path: Path) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _release):
        env = {c.ENV_URL: url, c.ENV_AGENT_KEY: "env-key", c.ENV_RUN_ID: "run-9", c.ENV_AGENT_ID: "env-agent",
               c.ENV_AGENT_ROLE: "coder", "HOME": "/home/agent"}
        assert await gate_answer(agent_sdk.gateway_hooks(env=env), pre_input(), "toolu_arg") == allow("some-rule")
        key_file = tmp_path / "agent.key"
        key_file.write_text("file-key\n")
        hooks = agent_sdk.gateway_hooks(key_file=str(key_file), run_id="run-10", agent_id="arg-agent", role="tester",
                                        env=env)
        assert await gate_answer(hooks, pre_input(tool_use_id="")) == allow("some-rule")
    (_m1, path, first), (_m2, _p, second) = seen
    assert (path, first["auth"], second["auth"]) == (c.DISPATCH_PATH, "Bearer env-key", "Bearer file-key")
    assert {k: first["body"].get(k) for k in ("run_id", "agent_id", "role", "provider", "tool", "input", "cwd",
                                              "session_id", "tool_use_id", "home")} == {
        "run_id": "run-9", "agent_id": "env-agent", "role": "coder", "provider": "claude-agent-sdk", "tool": "Bash",
        "input": {"command": "ls", "description": "list"}, "cwd": "/work/proj", "session_id": "5e55104d-sdk",
        "tool_use_id": "toolu_01", "home": "/home/agent"}
    assert (second["body"]["run_id"], second["body"]["agent_id"], second["body"]["role"],
            second["body"]["tool_use_id"]) == ("run-10", "arg-agent", "tester", "toolu_01")


# -- PostToolUse never blocks --------------------------------------------------------------------------

@pytest.mark.parametrize("input_data", [None, "x", {**pre_input(), "hook_event_name": "PreToolUse"}])
async def test_post_tool_use_with_garbage_or_the_gateway_down_answers_empty_and_warns(
        input_data: Any, caplog: pytest.LogCaptureFixture) -> None:
    hooks = agent_sdk.gateway_hooks(url=f"http://127.0.0.1:{free_port()}", key="k", env={})
    with caplog.at_level(logging.WARNING, logger="acteon_swarm.agent_sdk"):
        assert await post_answer(hooks, input_data) == {}
        done = {**pre_input(), "hook_event_name": "PostToolUse", "tool_response": {"stdout": ""}}
        assert await post_answer(hooks, done) == {}
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings[0] == "acteon-swarm: the hook input is not a PostToolUse event object; no event recorded"
    assert warnings[1].startswith("acteon-swarm: event not recorded: cannot reach the gateway at ")
    assert len(warnings) == 2
