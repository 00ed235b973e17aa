"""The coordinator's side of the Temporal executor: one workflow per subtask, awaited in the scheduler's slot.

The scheduler decides when a subtask starts (``max_agents``, role caps): a workflow is started only in a
slot, so caps stay exact whatever the number of workers; worker slots only bound each machine. Workflow
ids are deterministic (``acteon/<run>/<agent>``): a resumed run re-attaches to a subtask still in flight
(or takes the result of one that finished while the coordinator was down) instead of running it again.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import CancelledError as TemporalCancelled
from temporalio.exceptions import WorkflowAlreadyStartedError

from orchestrator.engines.base import SubtaskContext, SubtaskResult
from orchestrator.executors.base import ExecutorConfig
from orchestrator.executors.temporal.connect import connect
from orchestrator.executors.temporal.inputs import pack
from orchestrator.executors.temporal.workflow import WORKFLOW
from orchestrator.executors.temporal.workspace import offer, take
from orchestrator.workspace.git import GitError

ATTEMPTS_PER_GENERATION = 1000  # a refiner's retry of an agent counts its attempts from here on


def workflow_id(run_id: str, agent_id: str, generation: int = 0) -> str:
    base = f"acteon/{run_id}/{agent_id}"
    return base if generation == 0 else f"{base}/{generation}"


def spec_of(ctx: SubtaskContext, engine: str, cfg: ExecutorConfig, generation: int,
            git: dict[str, Any] | None = None) -> dict[str, Any]:
    """What crosses to the worker: the subtask, never a key (the worker mints the attempt's own)."""
    extra_env, files = pack(ctx.extra_env)
    return {
        "run_id": ctx.seat.run_id, "agent_id": ctx.agent_id, "role": ctx.role, "task_id": ctx.task_id,
        "subtask_id": ctx.subtask_id, "prompt": ctx.prompt, "command": ctx.command, "workdir": str(ctx.workdir),
        "timeout_s": ctx.timeout_s, "engine": engine, "model": ctx.model, "pass_env": list(ctx.seat.pass_env),
        "extra_env": extra_env, "files": files, "queue": cfg.queue_for(ctx.role),
        "heartbeat_timeout_s": cfg.heartbeat_timeout_seconds, "max_attempts": cfg.max_attempts,
        "attempt_base": generation * ATTEMPTS_PER_GENERATION,
        # What the attempt's key holds the agent to (worktree, file scope, scope claim); the key itself is not here.
        "binding": {k: v for k, v in ctx.key_binding.items() if k != "agent_id"},
        "git": git,  # the task's worktree head, to check out on the worker (workspace.py); None outside git
    }


class TemporalExecutor:
    name = "temporal"

    def __init__(self, cfg: ExecutorConfig) -> None:
        self.cfg = cfg
        self._client: Client | None = None
        self._live: dict[str, WorkflowHandle[Any, Any]] = {}  # workflow id -> handle, while awaited

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RuntimeError("TemporalExecutor.start() first")
        return self._client

    async def start(self) -> None:
        if self._client is None:
            self._client = await connect(self.cfg)

    async def run(self, ctx: SubtaskContext, engine: str, *, generation: int = 0) -> SubtaskResult:
        git = None
        if ctx.worktree:
            git = await asyncio.to_thread(offer, ctx.worktree, ctx.workdir, self.cfg.git_remote, ctx.seat.run_id,
                                          ctx.agent_id, generation)
        spec = spec_of(ctx, engine, self.cfg, generation, git)
        wid = workflow_id(ctx.seat.run_id, ctx.agent_id, generation)
        try:
            handle: WorkflowHandle[Any, Any] = await self.client.start_workflow(
                WORKFLOW, spec, id=wid, task_queue=spec["queue"],
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING)  # in flight: re-attach
        except WorkflowAlreadyStartedError:
            handle = self.client.get_workflow_handle(wid)  # finished while we were down: its result
        self._live[wid] = handle
        try:
            out: dict[str, Any] = await handle.result()
        except asyncio.CancelledError:
            # The runner stops the subtask (its run was cancelled): the workflow's cancel returns once the
            # worker has killed the agent's group.
            with contextlib.suppress(Exception):
                await asyncio.shield(cancel_and_wait(handle))
            raise
        except WorkflowFailureError as e:
            return SubtaskResult(ok=False, detail=_failure(e))
        finally:
            self._live.pop(wid, None)
        if git is not None and out.get("git"):
            try:  # the attempt's commits: onto the task's branch here, where the merge queue lands them
                await asyncio.to_thread(take, ctx.worktree, git["remote"], out["git"])
            except GitError as e:
                return SubtaskResult(ok=False, detail=f"the worker's commits could not be fetched: {e}"[:500])
        return SubtaskResult(ok=bool(out["ok"]), returncode=out.get("returncode"), timed_out=bool(out["timed_out"]),
                             duration_s=float(out["duration_s"]), detail=str(out["detail"]),
                             output=str(out["output"]), usage=dict(out.get("usage") or {}))

    async def stop(self, run_id: str, agent_id: str) -> bool:
        """Cancel the agent's workflow; returns once its worker has killed the agent's group."""
        wid = next((w for w in self._live if w.split("/")[:3] == ["acteon", run_id, agent_id]), None)
        if wid is None:
            return False
        await cancel_and_wait(self._live[wid])
        return True

    async def close(self) -> None:
        self._client = None  # the SDK's client holds no resources to release


async def cancel_and_wait(handle: WorkflowHandle[Any, Any]) -> None:
    """Cancel a subtask's workflow; returns once its activity has killed the agent's group and said so."""
    await handle.cancel()
    with contextlib.suppress(WorkflowFailureError):
        await handle.result()


async def cancel_run(cfg: ExecutorConfig, run_id: str) -> int:
    """Cancel every running workflow of a run, found on the Temporal service itself (``cancel`` of a run
    whose coordinator is dead); returns once each agent's group is gone. The number cancelled."""
    client = await connect(cfg)
    query = f'WorkflowId STARTS_WITH "acteon/{run_id}/" AND ExecutionStatus = "Running"'
    handles = [client.get_workflow_handle(w.id) async for w in client.list_workflows(query)]
    await asyncio.gather(*(cancel_and_wait(h) for h in handles))
    return len(handles)


def _failure(e: WorkflowFailureError) -> str:
    cause: BaseException | None = e.cause
    if isinstance(cause, TemporalCancelled):
        return "cancelled"
    while getattr(cause, "cause", None) is not None:
        cause = getattr(cause, "cause")  # noqa: B009 - the innermost failure says what went wrong
    return f"the subtask's workflow failed: {cause or e}"[:500]
