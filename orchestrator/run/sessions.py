"""The agent sessions of one run: each journaled from start to finish, its process group known to the monitor
and to a resume, its own key in a worktree; and the orchestrator's own commands (verify, eval) run like a
plan's commands, through the gateway."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from acteon_core.vocabulary import AGENT_ENGINES
from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.adversarial.loop import Gate
from orchestrator.config import SwarmConfig
from orchestrator.engines import EngineError, SubtaskContext, get_engine
from orchestrator.engines.base import Seat, SubtaskResult
from orchestrator.executors.base import Executor
from orchestrator.gatewayclient import GatewayClient
from orchestrator.plan.model import Task
from orchestrator.process import kill_group, process_start_time
from orchestrator.run.handoffs import Handoffs
from orchestrator.run.options import RunOptions
from orchestrator.workspace.claims import Held
from orchestrator.workspace.tasks import Attempts, TaskPlaces
from orchestrator.workspace.worktrees import Worktree
from orchestrator.workspace.worktrees import identity_env as git_identity

_T = TypeVar("_T")
# A session that stops at a call for a person this many times is ended: each stop is one call a person decided
# (or let expire), so more means the agent keeps asking for what it is not given.
MAX_DEFERRALS = 20


async def _holding(task_id: str, work: Awaitable[_T], reason: str) -> _T:
    return await work


class Sessions:
    def __init__(self, run_dir: R.RunDir, opts: RunOptions, cfg: SwarmConfig, *, client: GatewayClient,
                 executor: Executor, handoffs: Handoffs, attempts: Attempts,
                 fixes: dict[str, tuple[Gate, Path]]) -> None:
        self.dir, self.opts, self.cfg, self.client, self.executor = run_dir, opts, cfg, client, executor
        self.handoffs, self.attempts, self.fixes = handoffs, attempts, fixes
        self.agent_key = ""  # the run's own key, once the gateway gave it
        self.places: TaskPlaces | None = None  # worktrees and merge queue (None: not a git repository)
        self.groups: dict[str, int] = {}  # live agents: agent id -> process group id
        self.monitor_kills: dict[str, str] = {}  # agent id -> why the monitor killed it
        # The orchestrator's own commands (verify, eval) run on the command engine whatever the run's engine.
        self._command_engine = get_engine("command")
        # How an agent waits for a person without its slot (the run's scheduler sets it: Scheduler.unslotted).
        self.unslotted: Callable[[str, Awaitable[Any], str], Awaitable[Any]] = _holding
        # Sessions a crashed run left stopped at a call for a person (run --resume): agent id -> its deferral.
        self.deferred: dict[str, E.SubtaskDeferred] = {}

    @property
    def seat(self) -> Seat:
        """The run's seat: its gateway, its own key, the user's environment and what agents may see of it."""
        return Seat(gateway_url=self.opts.gateway_url, agent_key=self.agent_key, run_id=self.dir.run_id,
                    env=self.opts.env, pass_env=tuple(self.cfg.safety.pass_env))

    async def session(self, task: Task, sub_id: str, *, engine: str, workdir: Path, place: Worktree | None,
                      held: Held | None, timeout_s: float, prompt: str | None = None, command: str | None = None,
                      model: str | None = None, extra_env: dict[str, str] | None = None) -> SubtaskResult:
        """One agent session (a subtask, a lens member). An engine that cannot start it, or the monitor
        killing it, is a failed result, never an exception."""
        agent_id = f"{task.id}.{sub_id}"
        self.dir.record(E.SubtaskStarted, task_id=task.id, subtask_id=sub_id, agent_id=agent_id, engine=engine)
        # On worker machines each attempt's key is minted there (by a worker key), never sent from here.
        key = await self.key_for(task, agent_id, place, held) if self.executor.name == "local" else ""
        ctx = SubtaskContext(
            seat=dataclasses.replace(self.seat, agent_key=key), agent_id=agent_id, role=task.assigned_role,
            task_id=task.id, subtask_id=sub_id, prompt=prompt, command=command, workdir=workdir,
            agent_dir=self.dir.agent_dir(agent_id),
            key_binding=TaskPlaces.binding(task, agent_id, place, held) if place is not None else {},
            worktree={"top": str(place.top), "branch": place.branch or ""} if place is not None else {},
            timeout_s=timeout_s, client=self.client,
            on_start=functools.partial(self.started, task.id, sub_id, agent_id),
            extra_env={**self.extra_env(task, agent_id, place), **(extra_env or {})}, model=model,
            # Claude stops at a call for a person (its slot freed) and is resumed here, on this machine.
            defer=engine == "claude" and self.executor.name == "local")
        earlier = self.deferred.pop(agent_id, None) if ctx.defer else None
        try:
            if prompt is not None and engine == "command":
                raise EngineError(f"subtask {sub_id} has a prompt but the run's engine is 'command'; "
                                  f"use --engine {'|'.join(AGENT_ENGINES)}")
            if earlier is not None:  # stopped at a call for a person before the crash: wait, then go on
                await self._decided(task.id, agent_id, earlier.tool)
                ctx.resume_session = earlier.session_id
            # The task's n-th attempt (a retry by the refiner or a person runs it again; counted from the
            # journal). A resume runs the same attempt: an executor that ran it elsewhere re-attaches to it,
            # or takes its result if it finished while this process was down.
            generation = self.attempts.count.get(task.id, 0)
            result = await self.executor.run(ctx, engine, generation=generation)
            used: dict[str, Any] = {}
            for _ in range(MAX_DEFERRALS):
                if result.deferred is None:
                    break
                self.dir.record(E.SubtaskDeferred, task_id=task.id, subtask_id=sub_id, agent_id=agent_id,
                                **result.deferred)
                used = _added(used, result.usage)
                await self._decided(task.id, agent_id, result.deferred["tool"])
                ctx.resume_session = result.deferred["session_id"]
                result = await self.executor.run(ctx, engine, generation=generation)
            if result.deferred is not None:
                result.ok, result.detail = False, f"stopped at a call for a person {MAX_DEFERRALS} times; ended"
            result.usage = _added(used, result.usage)
        except EngineError as e:
            result = SubtaskResult(ok=False, detail=str(e))
        finally:
            self.groups.pop(agent_id, None)
        if agent_id in self.monitor_kills:
            result.ok, result.detail = False, self.monitor_kills[agent_id]
        self.dir.record(E.SubtaskFinished, task_id=task.id, subtask_id=sub_id, agent_id=agent_id, ok=result.ok,
                        returncode=result.returncode, timed_out=result.timed_out, duration_s=result.duration_s,
                        detail=result.detail[:2000], **result.usage)
        return result

    async def _decided(self, task_id: str, agent_id: str, tool: str) -> None:
        """Wait, without the agent's slot, until no approval of this agent is pending (a person decided, or it
        expired). Whatever was decided, the resumed session asks the gateway again, and the gateway answers
        for the same call as the person decided: run it once, or refuse it with their reason."""

        async def decided() -> None:
            while True:
                pending = [a for a in await self.client.approvals(self.dir.run_id, "pending")
                           if a.get("agent_id") == agent_id]
                if not pending:
                    return
                await self.client.wait_approval("", str(pending[0]["approval_id"]), 300)

        await self.unslotted(task_id, decided(), f"{agent_id} waits for a person to approve its {tool} call "
                                                 "(acteon-swarm approvals, or the console)")

    async def run_command(self, command: str, where: Path, *, agent_id: str, task_id: str, subtask_id: str,
                          timeout_s: float, extra_env: dict[str, str] | None = None,
                          journaled: bool = False) -> SubtaskResult:
        """A command of the orchestrator's own (verify, eval) run like a plan command: dispatched to the gateway
        as an executor with the run's key; ``journaled``: its process group is journaled so a resume can reap it."""
        ctx = SubtaskContext(
            seat=self.seat, agent_id=agent_id, role="executor", task_id=task_id, subtask_id=subtask_id,
            prompt=None, command=command, workdir=where, agent_dir=self.dir.agent_dir(agent_id),
            timeout_s=float(timeout_s), client=self.client,
            on_start=functools.partial(self.started, task_id, subtask_id, agent_id) if journaled else None,
            extra_env=extra_env or {})
        return await self._command_engine.run_subtask(ctx)

    async def key_for(self, task: Task, agent_id: str, place: Worktree | None, held: Held | None) -> str:
        """In a worktree each agent gets a key of its own: the gateway then knows who calls whatever the call
        claims, and holds it to its worktree (and an isolated task to its file scope and claim)."""
        if place is None:
            return self.agent_key
        return await self.client.mint_key(self.dir.run_id, TaskPlaces.binding(task, agent_id, place, held))

    def started(self, task_id: str, subtask_id: str, agent_id: str, pid: int) -> None:
        self.groups[agent_id] = pid
        self.dir.record(E.AgentStarted, task_id=task_id, subtask_id=subtask_id, agent_id=agent_id, pid=pid,
                        pgid=pid, start_time=process_start_time(pid))

    async def kill(self, agent_id: str, why: str) -> bool:
        """The monitor's "kill": the agent's whole process group; its subtask then fails with ``why``."""
        pgid = self.groups.get(agent_id)
        if pgid is None:
            # On a worker machine: its workflow is cancelled, and the worker kills the group.
            self.monitor_kills[agent_id] = why
            if not await self.executor.stop(self.dir.run_id, agent_id):
                del self.monitor_kills[agent_id]
                return False
            return True
        self.monitor_kills[agent_id] = why
        await asyncio.to_thread(kill_group, pgid)
        return True

    def extra_env(self, task: Task, agent_id: str, place: Worktree | None) -> dict[str, str]:
        env = git_identity(agent_id) if place is not None else {}
        report = self.attempts.report(task.id)
        if report is not None:
            env["ACTEON_RETRY_REPORT"] = report  # a retried task's failed attempt, for commands
        synthesis = self.handoffs.synthesis_file(task.id)
        if synthesis is not None:
            env["ACTEON_SYNTHESIS"] = str(synthesis)  # its parents' work, condensed
        if task.id in self.fixes:
            env["ACTEON_CHALLENGE"] = str(self.fixes[task.id][1])  # the challenge a recovery agent fixes
        lenses = self.handoffs.lens_reports(task)
        if lenses is not None:
            env["ACTEON_LENS_REPORT"] = lenses  # merged.json of each lens task it depends on
        return env


def _added(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Usage of two legs of one session (numbers summed; a field only one reports is kept as it is)."""
    out = dict(a)
    for k, v in b.items():
        out[k] = (out[k] + v) if isinstance(v, int | float) and isinstance(out.get(k), int | float) else v
    return out
