"""The ``codex`` engine: ``codex exec --json`` with the gate given on its own command line.

``-c hooks.PreToolUse=…`` puts the gate in Codex's session-flags layer, above the user's and the project's
config, and ``-c features.hooks=true`` keeps a ``[features] hooks = false`` there from turning it off; the hook's
trust (a hash Codex records when a person approves a hook in ``/hooks``) is bypassed because the orchestrator
wrote this hook itself. Codex's own sandbox is off, as the other engines' permission prompts are: the gate is
the boundary (a worktree's git metadata lives outside it, where Codex's sandbox would refuse commits). The
user's Codex configuration and login (``$CODEX_HOME`` or ``~/.codex``) are used as they are.

Codex runs a call whose hook fails, so the hook's budget ends well inside the timeout written here
(docs/clis.md#codex-cli)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acteon_core.settings import HookOptions, codex_hooks
from orchestrator.engines.base import (
    SubtaskContext,
    SubtaskResult,
    cli_binary,
    read_json_lines,
    run_event_cli,
)
from orchestrator.engines.usage import from_codex
from orchestrator.process import ProcResult, run_in_group

BIN_ENV = "ACTEON_CODEX_BIN"


def binary(env: dict[str, str]) -> str:
    return cli_binary(env, "codex", BIN_ENV)


def gate_flags(hook: HookOptions) -> list[str]:
    """The command-line overrides that install the gate for one session (and keep hooks switched on)."""
    hooks = codex_hooks({}, hook)["hooks"]
    return ["-c", f"hooks.PreToolUse={_toml(hooks['PreToolUse'])}", "-c",
            f"hooks.PostToolUse={_toml(hooks['PostToolUse'])}", "-c", "features.hooks=true"]


def _toml(value: Any) -> str:
    """``value`` as a TOML inline value (JSON's string escapes are TOML's basic-string escapes)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


async def run_session(*, prompt: str, hook: HookOptions, agent_dir: Path, workdir: Path, env: dict[str, str],
                      timeout_s: float | None, extra_args: Sequence[str] = (),
                      on_start: Callable[[int], None] | None = None) -> tuple[ProcResult, str, list[dict[str, Any]]]:
    """One gated ``codex exec`` session — the one way the orchestrator runs Codex CLI. The prompt goes on
    standard input. Returns the process result, the final answer and the JSON events Codex printed."""
    answer_file = agent_dir / "result.md"
    answer_file.unlink(missing_ok=True)
    argv = [binary(env), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
            "--sandbox", "danger-full-access", "--color", "never", "-C", str(workdir),
            "--output-last-message", str(answer_file), *gate_flags(hook), *extra_args, "-"]
    events_file = agent_dir / "events.jsonl"
    result = await run_in_group(argv, cwd=workdir, env=env, stdout_path=events_file,
                                stderr_path=agent_dir / "stderr.log", timeout_s=timeout_s,
                                stdin=prompt.encode("utf-8"), on_start=on_start)
    try:
        answer = answer_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        answer = ""
    return result, answer, read_json_lines(events_file)


def failure(events: list[dict[str, Any]]) -> str | None:
    """Why the session failed, as Codex reported it (``turn.failed``, an ``error`` event), or None."""
    for event in reversed(events):
        if event.get("type") == "turn.failed":
            error = event.get("error")
            return str(error.get("message") if isinstance(error, dict) else error or "turn failed")[:500]
        if event.get("type") == "error":
            return str(event.get("message") or "error")[:500]
    return None


class CodexEngine:
    name = "codex"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        return await run_event_cli(ctx, run_session, failure, from_codex)


__all__ = ["CodexEngine", "binary", "gate_flags", "run_session"]
