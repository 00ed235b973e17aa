"""One swarm run, start to finish (docs/swarm.md).

Sets the run up in the gateway (role tool allowlists, blocked commands, quota), schedules the plan's
tasks as agent sessions, journals every change, and on the way out snapshots the gateway's counters and
writes the summary. SIGTERM/SIGINT (what ``acteon-swarm cancel`` sends) cancel the run: every agent's
process group is killed and the run ends ``cancelled``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import signal
import time
from pathlib import Path
from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.adversarial.loop import Gate
from orchestrator.adversarial.runs import check_adversarial, eval_gate, run_adversarial
from orchestrator.config import SwarmConfig
from orchestrator.engines.ask import answering_engine, asking_of
from orchestrator.engines.base import Seat
from orchestrator.executors import make_executor
from orchestrator.gatewayclient import GatewayClient
from orchestrator.lenses.runs import run_lens
from orchestrator.lenses.swarm import check_lenses
from orchestrator.plan.file import save_plan
from orchestrator.plan.model import Plan, Task
from orchestrator.process import become_subreaper, stop_orphans
from orchestrator.roles import Role
from orchestrator.run import evaluation, journaling, resume
from orchestrator.run.briefing import Briefing
from orchestrator.run.delivery import Delivery
from orchestrator.run.handoffs import Handoffs
from orchestrator.run.options import RunOptions, RunReport
from orchestrator.run.parking import ParkLedger
from orchestrator.run.refining import Refining
from orchestrator.run.registration import Registration
from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec
from orchestrator.run.sessions import Sessions
from orchestrator.show.progress import Progress
from orchestrator.watch.reporter import StateReporter
from orchestrator.watch.watcher import Watcher
from orchestrator.workspace.claims import ClaimRefused, Held
from orchestrator.workspace.tasks import Attempts, check_isolation
from orchestrator.workspace.worktrees import RunWorkspace, Worktree

__all__ = ["Run", "RunOptions", "RunReport"]


class Run:
    def __init__(self, plan: Plan, cfg: SwarmConfig, roles: dict[str, Role], opts: RunOptions, run_id: str,
                 progress: Progress | None = None) -> None:
        self.plan, self.cfg, self.roles, self.opts = plan, cfg, roles, opts
        self.dir = R.RunDir(opts.state_dir, run_id)
        self.run_id = run_id
        self.progress = progress
        self.client = GatewayClient(opts.gateway_url, opts.admin_key)
        self.reporter = StateReporter(self.client, run_id)
        self.registration = Registration(self.client, run_id, plan=plan, cfg=cfg, roles=roles,
                                         extra_rules=opts.extra_rules)
        self.cancel_reason: str | None = None
        self.scheduler: Scheduler | None = None
        self.tasks = {t.id: t for t in plan.tasks}  # one table for the whole run: the refiner and people edit it
        self.reaped: list[str] = []  # agents of a crashed earlier process killed by this resume
        self.watcher: Watcher | None = None
        # None: no refiner (disabled, or nothing to ask: the command engine without a [refiner] command).
        asks = cfg.defaults.enable_refiner and answering_engine(asking_of("refiner", cfg.refiner), opts.engine)
        self.refining = Refining(cfg.refiner, run_engine=opts.engine, plan=plan, roles=roles, tasks=self.tasks,
                                 run_dir=self.dir, note=self.note) if asks else None
        self.ledger = ParkLedger(self.dir.path)
        self._post: asyncio.Task[None] | None = None  # the adversarial loop, once the tasks are done
        self.fixes: dict[str, tuple[Gate, Path]] = {}  # fix task -> the eval gate and its challenge file
        self.handoffs = Handoffs(self.dir, self.tasks)
        self.briefing = Briefing(self.dir, cfg.memory, plan=plan, roles=roles, handoffs=self.handoffs)
        # Where subtasks run: here (local) or on worker machines (temporal). The scheduler, journal, refiner,
        # memory and twin stay here either way.
        self.executor = make_executor(cfg.executor)
        self.sessions = Sessions(self.dir, opts, cfg, client=self.client, executor=self.executor,
                                 handoffs=self.handoffs, fixes=self.fixes,
                                 # merges to finish on resume, retries asked for
                                 attempts=Attempts(self.dir.reports_dir))
        self.delivery = Delivery(self.dir, cfg, roles, self.sessions, note=self.note,
                                 eval_gate=functools.partial(eval_gate, self))

    @property
    def seat(self) -> Seat:
        return self.sessions.seat

    # --- lifecycle ---------------------------------------------------------------------------------
    async def execute(self) -> RunReport:
        become_subreaper()  # orphans of agents (even ones that dropped their environment) stay ours to stop
        workspace = RunWorkspace.for_directory(Path(self.plan.scope.working_directory), self.run_id,
                                               self.opts.state_dir)
        if workspace is None:
            check_isolation(self.plan)  # isolate outside git is an error, not a silent fallback
        check_lenses(self.plan, self.roles, self.opts.engine)
        check_adversarial(self, workspace)
        # Connect to where subtasks run before anything is recorded: an unreachable Temporal is a clear
        # error, not a run left "running" with nothing to run it.
        await self.executor.start()
        self.dir.create()
        # A resume reads the journal once: orphans to reap, the refiner's edits, statuses, tailer cursors.
        past = self.dir.read_events() if self.opts.resume else []
        if self.opts.resume:
            self.reaped = resume.reap_orphans(self.dir, past)
            self.sessions.agent_key = await self.registration.resume(self.dir, past, self.opts.gateway_url)
        else:
            save_plan(self.plan, self.dir.plan_file)
            try:
                self.sessions.agent_key = await self.registration.create()
            except BaseException:
                self.dir.discard_new()  # a start that fails leaves no half-made run folder behind
                raise
        journaling.record_start(self.dir, self.opts, self.plan, self.cfg, remote=self.executor.name != "local")
        self.reporter.start()
        self.reporter.run_state("started", "resumed" if self.opts.resume else "")
        initial: dict[str, Any] | None = self._replay(past) if self.opts.resume else None
        initial = resume.apply_park_decisions(self.plan, self.ledger, self.dir, initial or {}) or None
        self._refresh_tasks()
        if workspace is not None:
            await self.delivery.open(workspace)
        self.briefing.open(self.opts.state_dir)
        specs = [self._spec(t, i) for i, t in enumerate(self.plan.tasks)]
        caps = {name: r.max_concurrent for name, r in self.roles.items() if r.max_concurrent}
        self.scheduler = Scheduler(specs, max_agents=self.max_agents(), role_caps=caps, run_task=self._run_task,
                                   on_change=self._on_change, after_task=self._after_task, initial=initial)
        self.sessions.unslotted = self.scheduler.unslotted  # an agent waiting for a person frees its slot
        self.sessions.deferred = E.deferred_sessions(past)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.cancel, f"cancelled ({signal.Signals(sig).name})")
        max_s = self.plan.scope.max_duration_minutes * 60
        self.watcher = Watcher(run_dir=self.dir, past=past, client=self.client, run_id=self.run_id,
                               cfg=self.cfg.monitor, task_ids=list(self.tasks), kill_agent=self.sessions.kill,
                               note=self.note, max_duration_s=max_s, unfinished=self._unfinished,
                               activity=self._activity, on_cancelled=self.cancel)
        watching = asyncio.create_task(self.watcher.run())
        try:
            statuses = await self.scheduler.run(deadline=time.monotonic() + max_s)
            if (self.cfg.adversarial.enabled and not self.cancel_reason
                    and all(s in ("done", "skipped") for s in statuses.values())):
                self._post = asyncio.create_task(run_adversarial(self))
                try:
                    await self._post
                except asyncio.CancelledError:
                    if self.cancel_reason is None:
                        raise
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            self.watcher.stop()
            await watching  # the last drain: every decision of this run is in the journal
            await self.executor.close()
            self.briefing.close()
        return await self._finish(dict(statuses))

    def _replay(self, past: list[Any]) -> dict[str, str]:
        """On resume: the plan as the refiner left it, finding ids counted on, the tasks' statuses."""
        resume.replay_refiner(self.plan, past)
        self._refresh_tasks()
        self.briefing.replayed(past)
        statuses = E.task_statuses(past)
        self.sessions.attempts = Attempts.from_journal(past, self.dir.reports_dir)
        self.sessions.attempts.requeue(statuses, self.plan)
        return statuses

    def _refresh_tasks(self) -> None:
        """The task table after the plan's list changed (kept the same object: every part reads this one)."""
        self.tasks.clear()
        self.tasks.update({t.id: t for t in self.plan.tasks})

    def max_agents(self) -> int:
        return min(self.opts.max_agents or self.plan.scope.max_agents, self.plan.scope.max_agents)

    def lens_parallel(self, task: Task) -> int:
        """Members of a lens task running at once: its cap, within the run's max_agents."""
        assert task.lens is not None
        return max(1, min(task.lens.max_parallel, len(task.lens.members), self.max_agents()))

    def _spec(self, task: Task, order: int) -> TaskSpec:
        # Only an isolated task's declared scope keeps others out: a task in a view writes nothing that lands.
        places = self.sessions.places
        scoped = places is not None and places.isolated(task) and bool(task.files_scope)
        decided = self.ledger.decision(task.id) if task.irreversible else None
        parked = (f"{task.park_reason}: waiting for a person (acteon-swarm park approve {self.run_id} {task.id})"
                  if task.irreversible and decided is None else None)
        return TaskSpec(id=task.id, role=task.assigned_role, priority=task.priority,
                        depends_on=tuple(task.depends_on), order=order,
                        write_scope=tuple(task.files_scope) if scoped else (), parked=parked,
                        slots=self.lens_parallel(task) if task.lens is not None else 1)

    def phase(self, text: str) -> None:
        self.dir.write_run(phase=text)
        self.note(text)

    def cancel(self, reason: str) -> None:
        self.cancel_reason = reason
        if self.scheduler is not None:
            self.scheduler.cancel(reason)
        if self._post is not None:
            self._post.cancel()  # the adversarial loop: its agents' groups are killed like any task's

    async def _finish(self, statuses: dict[str, str]) -> RunReport:
        orphans = await asyncio.to_thread(stop_orphans)
        if orphans:
            self.dir.record(E.Note, kind="orphans_stopped", data={"count": orphans})
        status, reason = journaling.final_status(statuses, self.cancel_reason), self.cancel_reason or ""
        if status == "done" and self.cfg.eval_harness.enabled:
            status, reason = await evaluation.evaluate(self.cfg.eval_harness, self.sessions,
                                                       Path(self.plan.scope.working_directory), self.dir, self.note)
        if self.watcher is not None:  # the eval's commands were decided after the watcher's last drain
            await self.watcher.poll_once()
        stats, events = journaling.record_finished(self.dir, status, reason)
        self.reporter.run_ended(status, reason)
        await self.reporter.close()
        journaling.record_end(self.dir, self.plan, status, statuses, stats, events, twin=self.cfg.graph.enabled)
        await self.client.aclose()
        peak = self.scheduler.peak_running if self.scheduler else 0
        return RunReport(self.run_id, status, statuses, stats, peak)

    def _unfinished(self) -> int:
        statuses = self.scheduler.statuses if self.scheduler else {}
        return sum(1 for st in statuses.values() if st in ("pending", "ready", "running"))

    def _activity(self, task_id: str, agent_id: str, outcome: str, detail: str) -> None:
        """A decision on a running task's call: the live view shows the task waiting for a human, throttled,
        or running again (final statuses are never replaced by it)."""
        shown = {"pending_approval": "waiting", "throttled": "throttled", "quota_exceeded": "throttled"}.get(
            outcome, "running")
        if self.progress:
            self.progress.activity(task_id, shown, f"{agent_id}: {detail}" if shown != "running" else "")

    def note(self, text: str) -> None:
        if self.progress:
            self.progress.note(text)

    # --- tasks -------------------------------------------------------------------------------------
    def _on_change(self, task_id: str, status: str, reason: str) -> None:
        self.dir.record(E.TaskStatusChanged, task_id=task_id, status=status, reason=reason)
        self.reporter.task(task_id, status, reason)
        if status == "parked" and task_id not in self.ledger.waiting():
            task = self.tasks[task_id]
            self.ledger.append(task_id, "parked", reason=task.park_reason or "irreversible")
            self.note(f"{task_id} is parked ({task.park_reason}): approve it with "
                      f"`acteon-swarm park approve {self.run_id} {task_id}`, then `run --resume {self.run_id}`")
        if self.scheduler is not None:
            self.dir.write_checkpoint(dict(self.scheduler.statuses))
        if self.progress:
            self.progress(task_id, status, reason)

    async def _run_task(self, spec: TaskSpec) -> TaskOutcome:
        outcome = await self._attempt(spec)
        if self.watcher is not None:  # the task's decisions journaled (and shown) before it reads done
            await self.watcher.poll_once()
        return outcome

    async def _attempt(self, spec: TaskSpec) -> TaskOutcome:
        task, places = self.tasks[spec.id], self.sessions.places
        if places is None:
            return await self.work(task, None, None)
        place = await places.prepare(task, self.sessions.attempts.name(task.id))
        waited: list[str] = []

        def waiting(reason: str) -> None:
            waited.append(reason)
            self._on_change(task.id, "running", f"waiting for scope claim: {reason}")

        def lapsed(reason: str) -> None:
            self.dir.record(E.Note, kind="scope_claim_lapsed", data={"task_id": task.id, "error": reason})

        try:
            async with places.claimed(task, place, owner=f"{self.run_id}/{task.id}", client=self.client,
                                      waiting=waiting, lapsed=lapsed) as held:
                if waited:
                    self._on_change(task.id, "running", "scope claimed")
                return await self.work(task, place, held)
        except ClaimRefused as e:
            return TaskOutcome("failed", f"scope claim refused: {e}", output=str(e))

    async def work(self, task: Task, place: Worktree | None, held: Held | None) -> TaskOutcome:
        attempts = self.sessions.attempts
        if place is not None and task.id in attempts.merge_pending:
            # Resumed after its agents finished and its merge began: the merge is finished, not the work redone.
            attempts.merge_pending.discard(task.id)
            return await self.delivery.land(task, place)
        workdir = place.path if place is not None else Path(self.plan.scope.working_directory)
        if len(task.depends_on) > 1 and self.cfg.synthesis.enabled:
            await self.handoffs.synthesize(self.cfg.synthesis, task, workdir, engine=self.opts.engine, seat=self.seat)
        if task.lens is not None:
            return await run_lens(self, task, place, held, workdir)
        last_output = ""
        for sub in task.subtasks:  # subtasks of a task run in order
            agent_id = f"{task.id}.{sub.id}"
            result = await self.sessions.session(
                task, sub.id, engine="command" if sub.command is not None else self.opts.engine, workdir=workdir,
                place=place, held=held, command=sub.command,
                prompt=self.briefing.prompt(task, sub, agent_id, attempts, place) if sub.prompt is not None else None,
                timeout_s=float(sub.timeout_seconds or self.opts.subtask_timeout_s))
            self.briefing.record_findings(task.id, agent_id, result.output)
            last_output = result.output or result.detail
            if not result.ok:
                return TaskOutcome("failed", f"{sub.id}: {result.detail}"[:500], output=last_output)
        # Saved before the merge: a resume that finishes an interrupted merge still has it for a synthesis.
        self.handoffs.save_output(task.id, last_output)
        outcome = await self.delivery.land(task, place) if place is not None else TaskOutcome("done")
        return dataclasses.replace(outcome, output=last_output)

    async def _after_task(self, spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        """The refiner's turn once a task of the plan is over: the scheduler holds its slot and its dependents
        until this returns. A reason: the refiner retried it, and it runs again at once in the same slot."""
        task = self.tasks.get(spec.id)
        if self.refining is None or self.scheduler is None or self.cancel_reason or task is None:
            return None
        retried = await self.refining.after_task(
            task, outcome, scheduler=self.scheduler, seat=self.seat, attempts=self.sessions.attempts,
            spec=lambda new: self._spec(new, len(self.plan.tasks)),
            added=self.watcher.add_task if self.watcher is not None else lambda _id: None)
        if not retried:
            return None
        # a fresh branch from the integration head, with the report
        return (f"retried by the refiner after {outcome.status}: runs again on the integration head, "
                "with the report")
