"""The ``gemini`` engine: ``gemini -p --yolo`` with the hook injected through a per-agent system settings
file (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``), a trusted workspace, and the hook timeout in milliseconds.

Under ``--yolo`` the BeforeTool hook is the only gate, and Gemini silently skips a settings file below a
group/world-writable directory — so the engine checks that before it starts an agent."""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import time
from pathlib import Path
from typing import Any

from hook import install
from orchestrator.engines.base import MAX_OUTPUT, EngineError, SubtaskContext, SubtaskResult, hook_args, tail
from orchestrator.process import run_in_group

BIN_ENV = "ACTEON_GEMINI_BIN"


class GeminiEngine:
    name = "gemini"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        started = time.monotonic()
        found = binary(ctx.base_env)
        settings_file = ctx.agent_dir / "gemini-settings.json"
        write_gated_settings(settings_file, hook_args(ctx))
        prompt = ctx.prompt or ""
        (ctx.agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")
        env = ctx.agent_env()
        env.update({"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(settings_file), "GEMINI_CLI_TRUST_WORKSPACE": "true"})
        result = await run_in_group([found, "-p", prompt, "--yolo", "--output-format", "json"], cwd=ctx.workdir,
                                    env=env, stdout_path=ctx.agent_dir / "output.json",
                                    stderr_path=ctx.agent_dir / "stderr.log", timeout_s=ctx.timeout_s,
                                    on_start=ctx.on_start)
        try:
            data = json.loads((ctx.agent_dir / "output.json").read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            data = {}
        answer = str(data.get("response", ""))[:MAX_OUTPUT] if isinstance(data, dict) else ""
        (ctx.agent_dir / "result.md").write_text(answer, encoding="utf-8")
        ok = result.returncode == 0 and not result.timed_out and not (isinstance(data, dict) and data.get("error"))
        if result.timed_out:
            detail = "timed out"
        elif ok:
            detail = answer[:500]
        else:
            detail = f"exit {result.returncode}: {tail(ctx.agent_dir / 'stderr.log', 300)}"
        return SubtaskResult(ok=ok, returncode=result.returncode, timed_out=result.timed_out,
                             duration_s=time.monotonic() - started, detail=detail, output=answer)


def binary(env: dict[str, str]) -> str:
    found = env.get(BIN_ENV) or shutil.which("gemini", path=env.get("PATH"))
    if not found:
        raise EngineError(f"the gemini CLI is not on PATH (or set {BIN_ENV})")
    return found


def write_gated_settings(settings_file: Path, args: argparse.Namespace, base: dict[str, Any] | None = None) -> None:
    """Write an agent's system settings file (``base`` plus the gate hook), refusing a place where Gemini
    CLI would silently skip it. ``base`` itself is left unchanged."""
    bad = install.insecure_ancestor(settings_file)
    if bad is not None:
        raise EngineError(f"refusing to start an ungated gemini agent: {bad} is writable by group or others, "
                          "and Gemini CLI would silently skip the hook settings below it")
    install.write_atomic(settings_file, install.gemini_settings(copy.deepcopy(base or {}), args))
