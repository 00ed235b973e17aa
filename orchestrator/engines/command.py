"""The ``command`` engine: subtasks carry a shell command; the orchestrator dispatches it to the gateway
as the agent (provider ``orchestrator``) and runs it only when allowed. Real plans then run with no AI
at all — this is the engine of ``acteon-swarm demo`` and of the scheduler benchmark."""

from __future__ import annotations

import asyncio
import time

from acteon_core import contract as c
from orchestrator.engines.base import MAX_OUTPUT, SubtaskContext, SubtaskResult, tail
from orchestrator.process import run_in_group


class CommandEngine:
    name = "command"

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult:
        started = time.monotonic()
        command = ctx.command or ""
        body = {
            c.F_RUN_ID: ctx.seat.run_id, c.F_AGENT_ID: ctx.agent_id, c.F_ROLE: ctx.role,
            c.F_PROVIDER: c.PROVIDER_ORCHESTRATOR, c.F_TOOL: "Bash", c.F_INPUT: {"command": command},
            c.F_CWD: str(ctx.workdir),
        }
        decision = await ctx.client.dispatch(ctx.seat.agent_key, body)
        # Throttled: wait exactly as long as the gateway says and ask again, while the subtask has time.
        while decision[c.R_OUTCOME] == c.THROTTLED and decision.get(c.R_RETRY_AFTER_MS) is not None:
            wait_s = decision[c.R_RETRY_AFTER_MS] / 1000 + 0.01
            if time.monotonic() - started + wait_s >= ctx.timeout_s:
                break
            await asyncio.sleep(wait_s)
            decision = await ctx.client.dispatch(ctx.seat.agent_key, body)
        if decision[c.R_OUTCOME] == c.PENDING_APPROVAL and decision.get(c.R_APPROVAL_ID):
            # Wait for a human within the subtask's time, then ask again: approved → the call consumes it;
            # rejected → the gateway answers with the person's reason, which is what the agent must hear.
            view = await ctx.client.wait_approval(ctx.seat.agent_key, decision[c.R_APPROVAL_ID],
                                                  max(0.0, ctx.timeout_s - (time.monotonic() - started)))
            if view.get("status") in (c.APPROVAL_APPROVED, c.APPROVAL_REJECTED):
                decision = await ctx.client.dispatch(ctx.seat.agent_key, body)
        if not decision[c.R_ALLOWED]:
            return SubtaskResult(
                ok=False, duration_s=time.monotonic() - started,
                detail=f"blocked by the gateway: {decision[c.R_OUTCOME]} ({decision[c.R_RULE]}): "
                       f"{decision[c.R_REASON]}",
            )
        if decision[c.R_OUTCOME] == c.REROUTED:
            command = str((decision.get(c.R_UPDATED_INPUT) or {}).get("command", command))
        (ctx.agent_dir / "command.sh").write_text(command + "\n", encoding="utf-8")
        remaining = ctx.timeout_s - (time.monotonic() - started)
        result = await run_in_group(
            ["bash", "-c", command], cwd=ctx.workdir, env=ctx.agent_env(),
            stdout_path=ctx.agent_dir / "stdout.log", stderr_path=ctx.agent_dir / "stderr.log",
            timeout_s=max(0.1, remaining), on_start=ctx.on_start,
        )
        ok = result.returncode == 0 and not result.timed_out
        await _report(ctx, ok, result.duration_s)
        detail = ("timed out" if result.timed_out else
                  "" if ok else f"exit {result.returncode}: {tail(ctx.agent_dir / 'stderr.log', 500)}")
        return SubtaskResult(ok=ok, returncode=result.returncode, timed_out=result.timed_out,
                             duration_s=time.monotonic() - started, detail=detail,
                             output=tail(ctx.agent_dir / "stdout.log", MAX_OUTPUT),
                             answer_file=ctx.agent_dir / "stdout.log")


async def _report(ctx: SubtaskContext, ok: bool, duration_s: float) -> None:
    """The completion event the CLIs' PostToolUse/AfterTool hooks would send."""
    try:
        await ctx.client.event(ctx.seat.agent_key, ctx.seat.run_id, {
            "agent_id": ctx.agent_id, "tool": "Bash", "success": ok, "duration_ms": int(duration_s * 1000)})
    except Exception:
        return
