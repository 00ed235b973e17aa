"""The ``claude`` engine: ``claude -p`` with the agent's own settings file (``--settings``, never the shared
``.claude/settings.json``) carrying the gateway hook with ``onFailure: "block"``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic
from acteon_core.settings import claude_settings
from orchestrator.engines.base import (
    MAX_OUTPUT,
    EngineError,
    SubtaskContext,
    SubtaskResult,
    cli_binary,
    hook_options,
    read_output,
    tail,
)
from orchestrator.engines.usage import from_claude
from orchestrator.process import ProcResult, run_in_group

BIN_ENV = "ACTEON_CLAUDE_BIN"


def binary(env: dict[str, str]) -> str:
    return cli_binary(env, "claude", BIN_ENV)


async def run_session(*, prompt: str, settings: dict[str, object], agent_dir: Path, workdir: Path,
                      env: dict[str, str], timeout_s: float | None, extra_args: Sequence[str] = (),
                      on_start: Callable[[int], None] | None = None, max_output_bytes: int = 8 << 20,
                      persist: bool = False, resume: str | None = None) -> tuple[ProcResult, dict[str, Any]]:
    """One gated ``claude -p`` session — the one way any part of the orchestrator runs Claude Code (the
    engine's agents, the refiner, the planner): the agent's own settings file with the gate hook (checked to
    fail closed), no other settings source, JSON output. Returns the process result and the parsed output
    (``{}`` when there is none). ``persist``: Claude keeps the session, so that ``resume`` (a session id) can
    continue it — a deferred call is then asked for again, with no new prompt."""
    check_gated(settings)
    settings_file = agent_dir / "settings.json"
    write_atomic(settings_file, settings)
    start = ["-p", "--resume", resume] if resume else ["-p", prompt]
    argv = [binary(env), *start, "--settings", str(settings_file),
            # Only our --settings: a project's own settings cannot add or disable hooks for this session.
            "--setting-sources", "", "--output-format", "json",
            *([] if persist or resume else ["--no-session-persistence"]), *extra_args]
    out = agent_dir / "output.json"
    result = await run_in_group(argv, cwd=workdir, env=env, stdout_path=out, stderr_path=agent_dir / "stderr.log",
                                timeout_s=timeout_s, on_start=on_start)
    return result, read_output(out, max_output_bytes)


class ClaudeEngine:
    name = "claude"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        started = time.monotonic()
        prompt = ctx.prompt or ""
        if ctx.resume_session is None:
            (ctx.agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")
        result, data = await run_session(prompt=prompt, settings=claude_settings({}, hook_options(ctx)),
                                         agent_dir=ctx.agent_dir, workdir=ctx.workdir, env=ctx.agent_env(),
                                         timeout_s=ctx.timeout_s, on_start=ctx.on_start,
                                         extra_args=["--model", ctx.model] if ctx.model else (),
                                         persist=ctx.defer, resume=ctx.resume_session)
        deferred = _deferred(data) if result.returncode == 0 and not result.timed_out else None
        ok, detail, answer = _parse(ctx, result.returncode, data)
        if result.timed_out:
            ok, detail = False, "timed out"
        elif deferred is not None:
            ok, detail = False, f"stopped at {deferred['tool']}: waiting for a person to approve it"
        return SubtaskResult(ok=ok, returncode=result.returncode, timed_out=result.timed_out,
                             duration_s=time.monotonic() - started, detail=detail, output=answer,
                             usage=from_claude(data).fields(), answer_file=ctx.agent_dir / "result.md",
                             deferred=deferred)


def _deferred(data: dict[str, Any]) -> dict[str, str] | None:
    """The call a session stopped at (``stop_reason: tool_deferred``), or None."""
    call = data.get("deferred_tool_use")
    session = data.get("session_id")
    if data.get("stop_reason") != "tool_deferred" or not isinstance(session, str) or not session:
        return None
    call = call if isinstance(call, dict) else {}
    return {"session_id": session, "tool": str(call.get("name") or "?"), "tool_use_id": str(call.get("id") or "")}


def check_gated(settings: dict[str, object]) -> None:
    """Refuse to start an agent whose gate would not load or would fail open."""
    hooks = settings.get("hooks")
    pre = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    gate = pre[-1]["hooks"][0] if isinstance(pre, list) and pre else None
    if not isinstance(gate, dict) or gate.get("onFailure") != "block" or settings.get("disableAllHooks"):
        raise EngineError("refusing to start an ungated claude agent: the gate hook is missing or fails open")


def _parse(ctx: SubtaskContext, returncode: int | None, data: dict[str, Any]) -> tuple[bool, str, str]:
    """(ok, detail for the journal, the agent's final answer)."""
    full = str(data.get("result", ""))
    (ctx.agent_dir / "result.md").write_text(full, encoding="utf-8")
    result_text = full[:MAX_OUTPUT]
    is_error = bool(data.get("is_error")) if data else True
    if returncode == 0 and not is_error:
        return True, result_text[:500], result_text
    return False, f"exit {returncode}: {result_text[:300] or tail(ctx.agent_dir / 'stderr.log', 300)}", result_text


__all__ = ["ClaudeEngine", "binary", "check_gated", "run_session"]
