"""The ``opencode`` engine: ``opencode run --format json`` with the gate plugin loaded for this session only.

OpenCode has no command hooks; the gate is a plugin (``acteon_core/opencode_plugin.js``) that runs the hook
and throws on anything but an allow. The engine writes it into the agent's own folder and points
``OPENCODE_CONFIG`` at a session config that loads it — never into the worktree's ``.opencode/``, which is the
project's (and would be committed). The user's own OpenCode configuration and logins (``~/.config/opencode``,
``~/.local/share/opencode``) are used as they are. Paths outside the project are allowed for the session, as
the other engines run without prompts: the gate is the boundary (docs/clis.md#opencode)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic, write_text_atomic
from acteon_core.settings import HookOptions, opencode_plugin
from orchestrator.engines.base import (
    SubtaskContext,
    SubtaskResult,
    cli_binary,
    read_json_lines,
    run_event_cli,
)
from orchestrator.engines.usage import from_opencode
from orchestrator.process import ProcResult, run_in_group

BIN_ENV = "ACTEON_OPENCODE_BIN"


def binary(env: dict[str, str]) -> str:
    return cli_binary(env, "opencode", BIN_ENV)


def session_config(agent_dir: Path, hook: HookOptions) -> Path:
    """Write the gate plugin and the session config that loads it; returns the config's path."""
    plugin = agent_dir / "acteon-swarm.js"
    write_text_atomic(plugin, opencode_plugin(hook))
    config = agent_dir / "opencode-session.json"
    write_atomic(config, {"plugin": [plugin.absolute().as_uri()], "permission": {"external_directory": "allow"}})
    return config


async def run_session(*, prompt: str, hook: HookOptions, agent_dir: Path, workdir: Path, env: dict[str, str],
                      timeout_s: float | None, extra_args: Sequence[str] = (),
                      on_start: Callable[[int], None] | None = None) -> tuple[ProcResult, str, list[dict[str, Any]]]:
    """One gated ``opencode run`` — the one way the orchestrator runs OpenCode. Returns the process result, the
    final answer (the last message's text) and the JSON events OpenCode printed."""
    config = session_config(agent_dir, hook)
    argv = [binary(env), "run", "--format", "json", *extra_args, prompt]
    events_file = agent_dir / "events.jsonl"
    result = await run_in_group(argv, cwd=workdir, env={**env, "OPENCODE_CONFIG": str(config)},
                                stdout_path=events_file, stderr_path=agent_dir / "stderr.log", timeout_s=timeout_s,
                                on_start=on_start)
    events = read_json_lines(events_file)
    return result, final_text(events), events


def final_text(events: list[dict[str, Any]]) -> str:
    """The text of the last message that had any."""
    texts: dict[str, list[str]] = {}
    for event in events:
        part = event.get("part")
        if event.get("type") == "text" and isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.setdefault(str(part.get("messageID")), []).append(part["text"])
    return "".join(list(texts.values())[-1]) if texts else ""


def failure(events: list[dict[str, Any]]) -> str | None:
    """What OpenCode reported going wrong (an ``error`` event), or None."""
    for event in reversed(events):
        if event.get("type") == "error":
            error = event.get("error")
            data = error.get("data") if isinstance(error, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            return str(message or (error.get("name") if isinstance(error, dict) else error) or "error")[:500]
    return None


class OpenCodeEngine:
    name = "opencode"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        return await run_event_cli(ctx, run_session, failure, from_opencode)


__all__ = ["OpenCodeEngine", "binary", "final_text", "run_session", "session_config"]
