"""The gateway in front of every tool call of a Claude Agent SDK agent, in one line (docs/agent-sdk.md).

    from claude_agent_sdk import ClaudeAgentOptions, query
    from hook.agent_sdk import gateway_hooks

    options = ClaudeAgentOptions(hooks=gateway_hooks(), permission_mode="bypassPermissions")
    async for message in query(prompt="Fix the failing test.", options=options):
        ...

The SDK runs hook callbacks before its deny/ask/allow rules, its permission mode and ``can_use_tool``, so
a ``PreToolUse`` callback sees every call, the auto-approved ones included; ``can_use_tool`` never sees a
call that ``bypassPermissions`` or an allow rule already approved. The SDK's hook input is Claude Code's
``PreToolUse`` event, so the callback is the hook's own decision (:func:`hook.gate.decide`, Claude dialect):
the same rules, approvals wait, attachments and fail-closed behaviour as ``acteon-swarm-hook gate``.

**Fails closed, in-process.** Every failure is answered with an explicit deny and its reason, never an
exception: when a callback raises, the SDK answers the CLI with an error and Claude Code (2.1.328) treats
the answer as empty — no decision, so under ``bypassPermissions`` the call would run. The blocking HTTP runs
in a worker thread under a hard deadline (the budget); the matcher's timeout is the budget plus
``HOOK_TIMEOUT_MARGIN_S``, and its ``on_failure="block"`` makes the CLI block should the callback fail or
time out anyway (a CLI too old to honour that makes the SDK refuse to connect).

The SDK is imported inside :func:`gateway_hooks`: importing this module needs only the standard library,
and nothing here is ever loaded by the ``acteon-swarm-hook`` executable.
"""

from __future__ import annotations

import functools
import logging
import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from acteon_core import contract as c
from acteon_core import dialects, wire
from hook import complete, gate

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from claude_agent_sdk import HookMatcher
    from claude_agent_sdk.types import HookContext, HookEvent, HookInput, HookJSONOutput

    Callback = Callable[[HookInput, str | None, HookContext], Awaitable[HookJSONOutput]]

SDK_VERSION_TESTED = "0.2.189"
INSTALL_HINT = f"pip install 'claude-agent-sdk>={SDK_VERSION_TESTED}'"
# A finished call is reported within this (like `acteon-swarm-hook complete`); the CLI waits at most
# COMPLETE_TIMEOUT_S, as `install` writes for Claude Code's PostToolUse command.
COMPLETE_BUDGET_S = 5.0
COMPLETE_TIMEOUT_S = 10.0

log = logging.getLogger("acteon_swarm.agent_sdk")


@dataclass(frozen=True)
class GateConfig:
    """What the callbacks send: the environment the hook would read, after the explicit arguments."""

    env: Mapping[str, str]
    url: str
    key_file: str | None
    budget_s: float
    authoritative: bool


def gateway_hooks(
    *, url: str | None = None, key: str | None = None, key_file: str | None = None, run_id: str | None = None,
    agent_id: str | None = None, role: str | None = None, budget_s: float = c.HOOK_BUDGET_S,
    authoritative: bool = True, env: Mapping[str, str] | None = None,
) -> dict[HookEvent, list[HookMatcher]]:
    """``ClaudeAgentOptions(hooks=...)`` that send every tool call to the gateway before it runs
    (``PreToolUse``, which denies on every failure) and report it once it ran (``PostToolUse``).

    Every argument left out comes from the variable ``acteon-swarm-hook`` reads (``ACTEON_URL``,
    ``ACTEON_AGENT_KEY``, ``ACTEON_AGENT_KEY_FILE``, ``ACTEON_RUN_ID``, ``ACTEON_AGENT_ID``,
    ``ACTEON_AGENT_ROLE``) in ``env`` (default: ``os.environ``, read once, here); a key file is read on
    every call. ``authoritative``: a gateway allow answers ``allow`` (the SDK's own rules and permission
    mode are skipped), as orchestrated agents run; False answers no decision, leaving them to decide.
    ``budget_s`` bounds each decision, a wait for a human approval included."""
    try:
        from claude_agent_sdk import HookMatcher
    except ImportError as e:
        raise ImportError(f"hook.agent_sdk needs the Claude Agent SDK: {INSTALL_HINT}") from e
    if not (isinstance(budget_s, int | float) and math.isfinite(budget_s) and budget_s > 0):
        raise ValueError(f"budget_s must be a positive number of seconds, not {budget_s!r}")
    environ = dict(os.environ if env is None else env)
    if key_file is not None and key is None:
        environ.pop(c.ENV_AGENT_KEY, None)  # an explicit key file wins over a key in the environment
    for name, value in ((c.ENV_URL, url), (c.ENV_AGENT_KEY, key), (c.ENV_AGENT_KEY_FILE, key_file),
                        (c.ENV_RUN_ID, run_id), (c.ENV_AGENT_ID, agent_id), (c.ENV_AGENT_ROLE, role)):
        if value is not None:
            environ[name] = value
    config = GateConfig(env=environ, url=environ.get(c.ENV_URL) or c.DEFAULT_URL,
                        key_file=environ.get(c.ENV_AGENT_KEY_FILE) or None, budget_s=float(budget_s),
                        authoritative=authoritative)
    return {
        "PreToolUse": [HookMatcher(matcher=None, hooks=[pre_tool_use_callback(config)],
                                   timeout=config.budget_s + c.HOOK_TIMEOUT_MARGIN_S, on_failure="block")],
        "PostToolUse": [HookMatcher(matcher=None, hooks=[post_tool_use_callback(config)],
                                    timeout=COMPLETE_TIMEOUT_S)],
    }


def pre_tool_use_callback(config: GateConfig) -> Callback:
    """The ``PreToolUse`` callback: the gateway's decision as Claude Code's answer; a deny on any failure."""

    async def acteon_gate(input_data: HookInput, tool_use_id: str | None, context: HookContext) -> HookJSONOutput:
        return cast("HookJSONOutput", await decide(config, input_data, tool_use_id))

    return acteon_gate


def post_tool_use_callback(config: GateConfig) -> Callback:
    """The ``PostToolUse`` callback: reports the finished call to the run's audit; always answers ``{}``."""

    async def acteon_complete(input_data: HookInput, tool_use_id: str | None,
                              context: HookContext) -> HookJSONOutput:
        problem = await report(config, input_data, tool_use_id)
        if problem:
            log.warning("%s", problem)
        return {}

    return acteon_complete


def deny(reason: str) -> dict[str, Any]:
    return dialects.deny(dialects.CLAUDE_SDK, reason)


async def decide(config: GateConfig, input_data: object, tool_use_id: object) -> dict[str, Any]:
    """The answer for one ``PreToolUse`` input. Raises nothing but cancellation: every failure is a deny."""
    try:
        import anyio  # the SDK's own async layer: asyncio or trio, whichever runs the agent

        event = _event(input_data, tool_use_id, "PreToolUse")
        if event is None:
            return deny("acteon-swarm: the hook input is not a PreToolUse event object; call blocked (fail closed)")
        decision = functools.partial(_decide_blocking, config, event)
        # A hard deadline in-process: the gate's own deadlines cover the network calls, this also covers a
        # name lookup or a key file that blocks. The worker thread is abandoned; it ends at its own deadline.
        with anyio.fail_after(config.budget_s):
            return await anyio.to_thread.run_sync(decision, abandon_on_cancel=True)
    except TimeoutError:
        return deny(f"acteon-swarm: no decision within {config.budget_s:g} s; call blocked (fail closed)")
    except Exception as e:  # our own bugs block the call too
        return deny(f"acteon-swarm: internal error ({type(e).__name__}: {e}); call blocked (fail closed)")


def _decide_blocking(config: GateConfig, event: dict[str, Any]) -> dict[str, Any]:
    return gate.decide(event, dialects.CLAUDE_SDK, config.env, url=config.url, key_file=config.key_file,
                       budget_s=config.budget_s, authoritative=config.authoritative)


async def report(config: GateConfig, input_data: object, tool_use_id: object) -> str:
    """Post a finished call to the run's events; returns what went wrong ('' when it was recorded)."""
    try:
        import anyio

        event = _event(input_data, tool_use_id, "PostToolUse")
        if event is None:
            return "acteon-swarm: the hook input is not a PostToolUse event object; no event recorded"
        send = functools.partial(complete.run, wire.dumps(event).encode(), dialects.CLAUDE_SDK, config.env,
                                 url=config.url, key_file=config.key_file, budget_s=COMPLETE_BUDGET_S)
        with anyio.move_on_after(COMPLETE_BUDGET_S + 1.0):
            return await anyio.to_thread.run_sync(send, abandon_on_cancel=True)
        return "acteon-swarm: event not recorded: the gateway did not answer in time"
    except Exception as e:
        return f"acteon-swarm: event not recorded: internal error ({type(e).__name__}: {e})"


def _event(input_data: object, tool_use_id: object, event_name: str) -> dict[str, Any] | None:
    """The SDK's input as the hook's event, or None when it is not an object for ``event_name``."""
    if not isinstance(input_data, dict) or input_data.get("hook_event_name", event_name) != event_name:
        return None
    event = dict(input_data)
    if isinstance(tool_use_id, str) and tool_use_id and not event.get(c.F_TOOL_USE_ID):
        event[c.F_TOOL_USE_ID] = tool_use_id
    return event
