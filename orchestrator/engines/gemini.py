"""The ``gemini`` engine: ``gemini -p --yolo`` with the hook injected through a per-agent system settings
file (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), a trusted workspace, and the hook timeout in milliseconds.

Under ``--yolo`` the BeforeTool hook is the only gate, and Gemini silently skips a settings file below a
group/world-writable directory — so the engine checks that before it starts an agent."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic
from acteon_core.settings import HookOptions, gemini_settings, insecure_ancestor
from orchestrator.engines.base import (
    EngineError,
    SubtaskContext,
    SubtaskResult,
    cli_binary,
    hook_options,
    read_output,
    session_result,
)
from orchestrator.engines.usage import from_gemini
from orchestrator.process import ProcResult, run_in_group

BIN_ENV = "ACTEON_GEMINI_BIN"


async def run_session(*, prompt: str, hook: HookOptions, agent_dir: Path, workdir: Path,
                      env: dict[str, str], timeout_s: float | None, extra_args: Sequence[str] = (),
                      base_settings: dict[str, Any] | None = None,
                      on_start: Callable[[int], None] | None = None,
                      max_output_bytes: int = 8 << 20) -> tuple[ProcResult, dict[str, Any]]:
    """One gated ``gemini -p`` session — the one way any part of the orchestrator runs Gemini CLI (the
    engine's agents, the refiner, the planner): the gate hook in the session's own system settings file
    (refused where Gemini would skip it), a trusted workspace, JSON output. Returns the process result and
    the parsed output (``{}`` when there is none)."""
    found = binary(env)
    settings_file = agent_dir / "gemini-settings.json"
    write_gated_settings(settings_file, hook, base=base_settings)
    session_env = {**env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(settings_file), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    out = agent_dir / "output.json"
    result = await run_in_group([found, "-p", prompt, *extra_args, "--output-format", "json"], cwd=workdir,
                                env=session_env, stdout_path=out, stderr_path=agent_dir / "stderr.log",
                                timeout_s=timeout_s, on_start=on_start)
    return result, read_output(out, max_output_bytes)


class GeminiEngine:
    name = "gemini"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        started = time.monotonic()
        prompt = ctx.prompt or ""
        (ctx.agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")
        result, data = await run_session(prompt=prompt, hook=hook_options(ctx), agent_dir=ctx.agent_dir,
                                         workdir=ctx.workdir, env=ctx.agent_env(), timeout_s=ctx.timeout_s,
                                         extra_args=["--yolo", *(["-m", ctx.model] if ctx.model else [])],
                                         on_start=ctx.on_start)
        return session_result(ctx, started, result, ok=not data.get("error"), answer=str(data.get("response", "")),
                              usage=from_gemini(data).fields())


def binary(env: dict[str, str]) -> str:
    return cli_binary(env, "gemini", BIN_ENV)


def write_gated_settings(settings_file: Path, opts: HookOptions, base: dict[str, Any] | None = None) -> None:
    """Write an agent's system settings file (``base`` plus the gate hook), refusing a place where Gemini
    CLI would silently skip it. ``base`` itself is left unchanged."""
    bad = insecure_ancestor(settings_file)
    if bad is not None:
        raise EngineError(f"refusing to start an ungated gemini agent: {bad} is writable by group or others, "
                          "and Gemini CLI would silently skip the hook settings below it")
    write_atomic(settings_file, gemini_settings(copy.deepcopy(base or {}), opts))
