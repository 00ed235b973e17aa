"""One swarm run, start to finish (docs/swarm.md).

Sets the run up in the gateway (role tool allowlists, blocked commands, quota), schedules the plan's
tasks as agent sessions, journals every change, and on the way out snapshots the gateway's counters and
writes the summary. SIGTERM/SIGINT (what ``acteon-swarm cancel`` sends) cancel the run: every agent's
process group is killed and the run ends ``cancelled``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic, write_text_atomic
from orchestrator import rundir as R
from orchestrator.adversarial.loop import EVAL_GATE, Gate
from orchestrator.adversarial.runs import check_adversarial, eval_gate, run_adversarial
from orchestrator.config import SwarmConfig
from orchestrator.engines import EngineError, SubtaskContext, get_engine
from orchestrator.engines.base import SubtaskResult
from orchestrator.evals import EvalResult, result_of
from orchestrator.executors import make_executor
from orchestrator.gatewayclient import GatewayClient, NotFound
from orchestrator.lenses.runs import run_lens
from orchestrator.lenses.swarm import check_lenses
from orchestrator.memory.findings import FINDING_INSTRUCTIONS, parse_findings
from orchestrator.memory.select import for_prompt
from orchestrator.memory.sources import normalize_workspace
from orchestrator.memory.store import MemoryStore, open_store
from orchestrator.parking import ParkLedger
from orchestrator.plan import Plan, Task, estimated_actions
from orchestrator.planfile import save_plan
from orchestrator.process import become_subreaper, kill_group, process_start_time, reap_orphan, stop_orphans
from orchestrator.progress import Progress
from orchestrator.refiner import RefinerOutcome, refine
from orchestrator.refiner.ask import refiner_engine
from orchestrator.reporter import StateReporter
from orchestrator.roles import Role, blocked_command_rules, quota_for, render_prompt, role_rules
from orchestrator.scheduler import Scheduler, TaskOutcome, TaskSpec
from orchestrator.status import gateway_counters
from orchestrator.summary import summary
from orchestrator.synthesis import synthesize
from orchestrator.watcher import Watcher
from orchestrator.workspace.claims import ClaimRefused, Held
from orchestrator.workspace.merging import VerifyResult, drop_scratch
from orchestrator.workspace.tasks import Attempts, TaskPlaces, check_isolation, retry_note
from orchestrator.workspace.worktrees import RunWorkspace, Worktree
from orchestrator.workspace.worktrees import identity_env as git_identity

# Outcomes that use up the run's quota (a call that passed every gate), when a resume recounts it.
_QUOTA_OUTCOMES = frozenset({"executed", "rerouted"})


@dataclass
class RunOptions:
    engine: str
    state_dir: Path
    gateway_url: str
    admin_key: str
    max_agents: int | None = None
    subtask_timeout_s: float = 900.0
    resume: bool = False
    extra_rules: list[dict[str, Any]] = field(default_factory=list)  # more per-run rules (the demo's)
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)  # config flags given to `run`, kept in run.json


@dataclass
class RunReport:
    run_id: str
    status: str
    tasks: dict[str, str]
    stats: dict[str, Any]
    peak_running: int


class Run:
    def __init__(self, plan: Plan, cfg: SwarmConfig, roles: dict[str, Role], opts: RunOptions, run_id: str,
                 progress: Progress | None = None) -> None:
        self.plan, self.cfg, self.roles, self.opts = plan, cfg, roles, opts
        self.dir = R.RunDir(opts.state_dir, run_id)
        self.run_id = run_id
        self.progress = progress
        # The orchestrator's own commands (verify, eval) run on the command engine whatever the run's engine.
        self.command_engine = get_engine("command")
        self.client = GatewayClient(opts.gateway_url, opts.admin_key)
        self.reporter = StateReporter(self.client, run_id)
        self.cancel_reason: str | None = None
        self.scheduler: Scheduler | None = None
        self.tasks = {t.id: t for t in plan.tasks}
        self.agent_key = ""
        self.agent_groups: dict[str, int] = {}  # live agents: agent id -> process group id
        self.reaped: list[str] = []  # agents of a crashed earlier process killed by this resume
        self.monitor_kills: dict[str, str] = {}  # agent id -> why the monitor killed it
        self.watcher: Watcher | None = None
        self.memory: MemoryStore | None = None
        self._findings = 0  # findings journaled by this run so far (their ids count on from it)
        # None: no refiner (disabled, or nothing to ask: the command engine without a [refiner] command).
        self.refiner = refiner_engine(cfg.refiner, opts.engine) if cfg.defaults.enable_refiner else None
        self.places: TaskPlaces | None = None  # worktrees and merge queue (None: not a git repository)
        self.ledger = ParkLedger(self.dir.path)
        self.attempts = Attempts(self.dir.reports_dir)  # merges to finish on resume, retries asked for
        self._rerun: set[str] = set()  # tasks the refiner retried: their _run_task goes again
        self._synthesis_files: dict[str, Path] = {}  # join tasks -> the synthesis of their parents' work
        self._post: asyncio.Task[None] | None = None  # the adversarial loop, once the tasks are done
        self.fixes: dict[str, tuple[Gate, Path]] = {}  # fix task -> the eval gate and its challenge file
        # Where subtasks run: here (local) or on worker machines (temporal). The scheduler, journal, refiner,
        # memory and twin stay here either way.
        self.executor = make_executor(cfg.executor)

    def _rules(self) -> list[dict[str, Any]]:
        return (role_rules(self.roles, self.run_id) + blocked_command_rules(self.cfg.safety.blocked_commands)
                + self.opts.extra_rules)

    def _quota(self, used: int) -> dict[str, Any]:
        quota = quota_for(estimated_actions(self.plan), self.plan.scope.max_duration_minutes,
                          self.cfg.defaults.quota_max_actions)
        quota["max_actions"] = max(1, quota["max_actions"] - used)
        return quota

    def _agent_limits(self) -> dict[str, int]:
        safety = self.cfg.safety
        live = safety.max_subagents if safety.max_subagents is not None else self.plan.scope.max_agents
        return {"max_live": live, "max_depth": safety.max_subagent_depth}

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
            self.reaped = self._reap_orphans(past)
            try:
                self.agent_key = await self.client.mint_key(self.run_id)
            except NotFound:
                # A fresh (embedded) gateway knows nothing of this run: create it again with the same rules
                # and what is left of its quota. Calls that were waiting for approval are asked again when
                # their tasks run again.
                used = sum(1 for e in past if isinstance(e, R.ToolCall) and e.outcome in _QUOTA_OUTCOMES)
                self.agent_key = await self.client.create_run(self.run_id, self._rules(), self._quota(used),
                                                               self._agent_limits())
                self.dir.record(R.Note, kind="run_recreated", data={"gateway_url": self.opts.gateway_url,
                                                                    "quota_used": used})
        else:
            save_plan(self.plan, self.dir.plan_file)
            try:
                self.agent_key = await self.client.create_run(self.run_id, self._rules(), self._quota(0),
                                                               self._agent_limits())
            except BaseException:
                self.dir.discard_new()  # a start that fails leaves no half-made run folder behind
                raise
        pid = os.getpid()
        self.dir.write_run(pid=pid, process_start_time=process_start_time(pid), status="running",
                           gateway_url=self.opts.gateway_url, engine=self.opts.engine, plan_id=self.plan.id,
                           objective=self.plan.objective, finished_at=None,
                           # a resume keeps the first start: elapsed time is the run's, not this process's
                           started_at=(self.dir.read_run().get("started_at") if self.opts.resume else None)
                           or R.now_iso(),
                           overrides=self.opts.overrides,
                           # where its subtasks run, so that `cancel` finds them when this process is gone
                           executor=self.cfg.executor.model_dump() if self.executor.name != "local" else None)
        self.dir.record(R.RunStarted, run_id=self.run_id, plan_id=self.plan.id, engine=self.opts.engine, pid=pid,
                        resumed=self.opts.resume)
        self.reporter.start()
        self.reporter.run_state("started", "resumed" if self.opts.resume else "")
        initial: dict[str, Any] | None = self._replay(past) if self.opts.resume else None
        initial = self._apply_park_decisions(initial or {}) or None
        if workspace is not None:
            await self._open_workspace(workspace)
        if self.cfg.memory.enabled:
            self.memory = open_store(self.opts.state_dir)
            # Earlier runs' findings become searchable; a damaged journal elsewhere must not stop this run.
            self.memory.sync_all(self.opts.state_dir, on_error=self._memory_error)
        specs = [self._spec(t, i) for i, t in enumerate(self.plan.tasks)]
        caps = {name: r.max_concurrent for name, r in self.roles.items() if r.max_concurrent}
        max_agents = self.max_agents()
        self.scheduler = Scheduler(specs, max_agents=max_agents, role_caps=caps, run_task=self._run_task,
                                   on_change=self._on_change, initial=initial)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.cancel, f"cancelled ({signal.Signals(sig).name})")
        max_s = self.plan.scope.max_duration_minutes * 60
        self.watcher = Watcher(run_dir=self.dir, past=past, client=self.client, run_id=self.run_id,
                               cfg=self.cfg.monitor, task_ids=list(self.tasks), kill_agent=self._kill_agent,
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
            if self.memory is not None:
                self.memory.close()
        return await self._finish(dict(statuses))

    def max_agents(self) -> int:
        return min(self.opts.max_agents or self.plan.scope.max_agents, self.plan.scope.max_agents)

    def lens_parallel(self, task: Task) -> int:
        """Members of a lens task running at once: its cap, within the run's max_agents."""
        assert task.lens is not None
        return max(1, min(task.lens.max_parallel, len(task.lens.members), self.max_agents()))

    def _spec(self, task: Task, order: int) -> TaskSpec:
        # Only an isolated task's declared scope keeps others out: a task in a view writes nothing that lands.
        scoped = self.places is not None and self.places.isolated(task) and bool(task.files_scope)
        decided = self.ledger.decision(task.id) if task.irreversible else None
        parked = (f"{task.park_reason}: waiting for a person (acteon-swarm park approve {self.run_id} {task.id})"
                  if task.irreversible and decided is None else None)
        return TaskSpec(id=task.id, role=task.assigned_role, priority=task.priority,
                        depends_on=tuple(task.depends_on), order=order,
                        write_scope=tuple(task.files_scope) if scoped else (), parked=parked,
                        slots=self.lens_parallel(task) if task.lens is not None else 1)

    def _apply_park_decisions(self, initial: dict[str, Any]) -> dict[str, Any]:
        """Decisions a person recorded in the park ledger: an approved proposal replaces its task (same id,
        dependencies and park reason; approved, so it runs); a rejected task is skipped (dependents blocked)."""
        for task in list(self.plan.tasks):
            decided = self.ledger.decision(task.id) if task.irreversible else None
            if decided is None:
                continue
            if decided.action == "rejected" and initial.get(task.id) not in ("done", "skipped"):
                initial[task.id] = "skipped"
                self.dir.record(R.TaskStatusChanged, task_id=task.id, status="skipped",
                                reason=f"rejected by {decided.by or 'an operator'}: {decided.reason}")
            elif decided.action == "approved" and decided.proposal_no is not None:
                proposal = self.ledger.proposals(task.id)[decided.proposal_no - 1].proposal or {}
                alternative = Task.model_validate({**proposal, "id": task.id, "depends_on": task.depends_on,
                                                   "irreversible": True, "park_reason": task.park_reason})
                self.plan.tasks = [alternative if t.id == task.id else t for t in self.plan.tasks]
                self.tasks[task.id] = alternative
        return initial

    async def _open_workspace(self, workspace: RunWorkspace) -> None:
        base = await asyncio.to_thread(workspace.start)
        self.places = TaskPlaces(workspace, self.roles, settings=self.cfg.worktrees, verifier=self._verify,
                                 reports=self.dir.reports_dir)
        dirty = await asyncio.to_thread(workspace.dirty)
        self.dir.write_run(repository=str(workspace.repo), integration_branch=workspace.integration, base=base)
        self.dir.record(R.Note, kind="workspace", data={"repository": str(workspace.repo), "base": base,
                                                        "integration_branch": workspace.integration,
                                                        "worktrees": str(workspace.root), "dirty": dirty})
        if dirty:
            self.note(f"your checkout has uncommitted changes: the run works from your last commit ({base[:12]}) "
                       "and does not see them; they stay untouched")

    async def _verify(self, task_id: str, commands: list[str], where: Path) -> list[VerifyResult]:
        """A task's verify commands on the merged candidate, each dispatched to the gateway like any command
        of the plan, stopping at the first that fails."""
        results: list[VerifyResult] = []
        for n, command in enumerate(commands, 1):
            if command == EVAL_GATE and task_id in self.fixes:
                results.append(await eval_gate(self, task_id, where))
                if not results[-1].ok:
                    break
                continue
            agent_id = f"{task_id}.verify-{n}"
            result = await self.run_command(command, where, agent_id=agent_id, task_id=task_id,
                                             subtask_id=f"verify-{n}",
                                             timeout_s=self.cfg.worktrees.verify_timeout_seconds,
                                             extra_env=git_identity(agent_id), journaled=True)
            results.append(VerifyResult(command, result.ok, "" if result.ok else result.detail[:1000]))
            if not result.ok:
                break
        return results

    async def run_command(self, command: str, where: Path, *, agent_id: str, task_id: str, subtask_id: str,
                           timeout_s: float, extra_env: dict[str, str] | None = None,
                           journaled: bool = False) -> SubtaskResult:
        """A command of the orchestrator's own (verify, eval) run like a plan command: dispatched to the gateway
        as an executor with the run's key; ``journaled``: its process group is journaled so a resume can reap it."""
        ctx = SubtaskContext(
            run_id=self.run_id, agent_id=agent_id, role="executor", task_id=task_id, subtask_id=subtask_id,
            prompt=None, command=command, workdir=where, agent_dir=self.dir.agent_dir(agent_id),
            gateway_url=self.opts.gateway_url, agent_key=self.agent_key, timeout_s=float(timeout_s),
            client=self.client, base_env=self.opts.env, pass_env=tuple(self.cfg.safety.pass_env),
            on_start=functools.partial(self.agent_started, task_id, subtask_id, agent_id) if journaled else None,
            extra_env=extra_env or {})
        return await self.command_engine.run_subtask(ctx)

    def _on_merge(self, task_id: str, phase: str, data: dict[str, Any]) -> None:
        self.dir.record(R.Merge, task_id=task_id, phase=phase, branch=data.get("branch", ""),
                        result=data.get("result"), before=data.get("before", data.get("integration", "")),
                        after=data.get("after", ""), report=data.get("report", ""),
                        detail=data.get("summary", "")[:2000])
        if phase == "finished" and data.get("result") != "merged":
            self.note(f"{task_id}: {data.get('summary', '')}")

    async def score_head(self, agent_id: str = "eval") -> tuple[str, EvalResult]:
        """The eval harness on the integration head (in a scratch worktree; the working directory outside git):
        the head it scored and the result."""
        harness = self.cfg.eval_harness
        assert harness.command is not None
        head = ""
        if self.places is not None:
            head = await asyncio.to_thread(self.places.ws.head)
            place = await asyncio.to_thread(self.places.ws.worktree, "_eval", isolated=False)
            where = place.path
        else:
            where = Path(self.plan.scope.working_directory)
        try:
            ran = await self.run_command(harness.command, where, agent_id=agent_id, task_id="eval", subtask_id="eval",
                                          timeout_s=harness.timeout_seconds)
            return head, result_of(ran.output, ok=ran.ok, detail=ran.detail)
        finally:
            if self.places is not None:
                await asyncio.to_thread(drop_scratch, self.places.ws, self.places.ws.root / "_eval")

    async def _evaluate(self) -> tuple[str, str]:
        """The eval harness on the finished work: ``done`` when it scores at least ``pass_threshold``, else
        ``eval_failed`` — an eval that gives no score fails too."""
        harness = self.cfg.eval_harness
        head, result = await self.score_head()
        passed = result.passes(harness.pass_threshold)
        self.dir.record(R.EvalScored, score=result.score, error=result.error, threshold=harness.pass_threshold,
                        passed=passed, head=head, report=result.report)
        self.note(f"eval: {result.score:.3f}" if result.ok else f"eval: no score ({result.error})")
        if passed:
            return "done", ""
        if not result.ok:
            return "eval_failed", f"the eval gave no score: {result.error}"
        return "eval_failed", f"eval score {result.score:.3f} is below the pass threshold {harness.pass_threshold}"

    def phase(self, text: str) -> None:
        self.dir.write_run(phase=text)
        self.note(text)

    def _write_twin(self) -> None:
        """The run's RDF twin (graph.nq), projected from the journal now that it is complete. It is a cache
        (``graph query`` rebuilds a missing or stale one), so a failure here is journaled, not fatal."""
        from orchestrator.graph.project import write_run_graph  # rdflib is heavy: only when a run ends

        try:
            write_run_graph(self.dir)
        except Exception as e:
            self.dir.record(R.Note, kind="graph_error", data={"error": f"{type(e).__name__}: {e}"})

    def _replay(self, past: list[Any]) -> dict[str, str]:
        """On resume: the journal's task statuses, and the plan as the refiner left it (added tasks,
        changed priorities): the journal, not plan.json, is the record of those edits."""
        for ev in past:
            if isinstance(ev, R.Finding):
                self._findings += 1
            elif isinstance(ev, R.RefinerDecision) and not ev.fallback:
                if ev.added_task is not None:
                    self.plan.tasks.append(Task.model_validate(ev.added_task))
                for task_id, priority in ev.priorities.items():
                    self.plan.tasks = [t.model_copy(update={"priority": priority}) if t.id == task_id else t
                                       for t in self.plan.tasks]
        self.tasks = {t.id: t for t in self.plan.tasks}
        statuses = R.task_statuses(past)
        self.attempts = Attempts.from_journal(past, self.dir.reports_dir)
        self.attempts.requeue(statuses, self.plan)
        return statuses

    def cancel(self, reason: str) -> None:
        self.cancel_reason = reason
        if self.scheduler is not None:
            self.scheduler.cancel(reason)
        if self._post is not None:
            self._post.cancel()  # the adversarial loop: its agents' groups are killed like any task's

    async def _finish(self, statuses: dict[str, str]) -> RunReport:
        orphans = await asyncio.to_thread(stop_orphans)
        if orphans:
            self.dir.record(R.Note, kind="orphans_stopped", data={"count": orphans})
        if self.cancel_reason:
            status = "cancelled"
        elif all(s in ("done", "skipped") for s in statuses.values()):
            status = "done"
        elif "parked" in statuses.values() and all(s in ("done", "skipped", "parked", "pending")
                                                   for s in statuses.values()):
            status = "parked"  # only work that waits for a person is left: approve it and resume
        else:
            status = "failed"
        reason = self.cancel_reason or ""
        if status == "done" and self.cfg.eval_harness.enabled:
            status, reason = await self._evaluate()
        if self.watcher is not None:  # the eval's commands were decided after the watcher's last drain
            await self.watcher.poll_once()
        events = self.dir.read_events()
        stats = gateway_counters(events)  # every gateway this run had, equal to its audit
        write_atomic(self.dir.stats_file, stats)
        self.dir.record(R.RunFinished, status=status, reason=reason)
        self.reporter.run_ended(status, reason)
        await self.reporter.close()
        self.dir.write_run(status=status, finished_at=R.now_iso())
        self.dir.summary_file.write_text(summary(self.plan, self.run_id, status, statuses, stats, events),
                                         encoding="utf-8")
        if self.cfg.graph.enabled:
            self._write_twin()
        await self.client.aclose()
        peak = self.scheduler.peak_running if self.scheduler else 0
        return RunReport(self.run_id, status, statuses, stats, peak)

    def _reap_orphans(self, past: list[Any]) -> list[str]:
        """Agents the crashed orchestrator started and never saw finish may still run: kill them before
        their tasks run again, so no two copies of an agent work on the same files."""
        started: dict[str, R.AgentStarted] = {}
        for ev in past:
            if isinstance(ev, R.AgentStarted):
                started[ev.agent_id] = ev
            elif isinstance(ev, R.SubtaskFinished):
                started.pop(ev.agent_id, None)
        reaped = [a for a, ev in started.items() if reap_orphan(ev.pgid, ev.start_time)]
        for agent_id in reaped:
            self.dir.record(R.Note, kind="orphan_reaped", data={"agent_id": agent_id, "pgid": started[agent_id].pgid})
        return reaped

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

    async def _kill_agent(self, agent_id: str, why: str) -> bool:
        """The monitor's "kill": the agent's whole process group; its subtask then fails with ``why``."""
        pgid = self.agent_groups.get(agent_id)
        if pgid is None:
            # On a worker machine: its workflow is cancelled, and the worker kills the group.
            self.monitor_kills[agent_id] = why
            if not await self.executor.stop(self.run_id, agent_id):
                del self.monitor_kills[agent_id]
                return False
            return True
        self.monitor_kills[agent_id] = why
        await asyncio.to_thread(kill_group, pgid)
        return True

    def agent_started(self, task_id: str, subtask_id: str, agent_id: str, pid: int) -> None:
        self.agent_groups[agent_id] = pid
        self.dir.record(R.AgentStarted, task_id=task_id, subtask_id=subtask_id, agent_id=agent_id, pid=pid,
                        pgid=pid, start_time=process_start_time(pid))

    # --- tasks -------------------------------------------------------------------------------------
    def _on_change(self, task_id: str, status: str, reason: str) -> None:
        self.dir.record(R.TaskStatusChanged, task_id=task_id, status=status, reason=reason)
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
        while True:
            outcome = await self._attempt(spec)
            if self.watcher is not None:  # the task's decisions journaled (and shown) before it reads done
                await self.watcher.poll_once()
            if spec.id not in self._rerun:
                return outcome
            self._rerun.discard(spec.id)  # the refiner asked for another attempt: same slot, fresh branch
            self._on_change(spec.id, "running", f"retried by the refiner after {outcome.status}: runs again on "
                                                "the integration head, with the report")

    async def _attempt(self, spec: TaskSpec) -> TaskOutcome:
        task = self.tasks[spec.id]
        if self.places is None:
            return await self.work(task, None, None)
        place = await self.places.prepare(task, self.attempts.name(task.id))
        waited: list[str] = []

        def waiting(reason: str) -> None:
            waited.append(reason)
            self._on_change(task.id, "running", f"waiting for scope claim: {reason}")

        def lapsed(reason: str) -> None:
            self.dir.record(R.Note, kind="scope_claim_lapsed", data={"task_id": task.id, "error": reason})

        try:
            async with self.places.claimed(task, place, owner=f"{self.run_id}/{task.id}", client=self.client,
                                           waiting=waiting, lapsed=lapsed) as held:
                if waited:
                    self._on_change(task.id, "running", "scope claimed")
                return await self.work(task, place, held)
        except ClaimRefused as e:
            return await self.after_task(task, TaskOutcome("failed", f"scope claim refused: {e}"), str(e))

    async def agent_key_for(self, task: Task, agent_id: str, place: Worktree | None, held: Held | None) -> str:
        """In a worktree each agent gets a key of its own: the gateway then knows who calls whatever the call
        claims, and holds it to its worktree (and an isolated task to its file scope and claim)."""
        if place is None:
            return self.agent_key
        return await self.client.mint_key(self.run_id, TaskPlaces.binding(task, agent_id, place, held))

    async def work(self, task: Task, place: Worktree | None, held: Held | None) -> TaskOutcome:
        if place is not None and task.id in self.attempts.merge_pending:
            # Resumed after its agents finished and its merge began: the merge is finished, not the work redone.
            self.attempts.merge_pending.discard(task.id)
            return await self.after_task(task, await self._land(task, place), "")
        workdir = place.path if place is not None else Path(self.plan.scope.working_directory)
        if len(task.depends_on) > 1 and self.cfg.synthesis.enabled:
            await self._synthesize(task, workdir)
        if task.lens is not None:
            return await run_lens(self, task, place, held, workdir)
        last_output = ""
        for sub in task.subtasks:  # subtasks of a task run in order
            agent_id = f"{task.id}.{sub.id}"
            result = await self.session(
                task, sub.id, engine="command" if sub.command is not None else self.opts.engine, workdir=workdir,
                place=place, held=held, command=sub.command,
                prompt=self._prompt(task, sub, agent_id, place) if sub.prompt is not None else None,
                timeout_s=float(sub.timeout_seconds or self.opts.subtask_timeout_s))
            self._record_findings(task.id, agent_id, result.output)
            last_output = result.output or result.detail
            if not result.ok:
                return await self.after_task(task, TaskOutcome("failed", f"{sub.id}: {result.detail}"[:500]),
                                             last_output)
        # Saved before the merge: a resume that finishes an interrupted merge still has it for a synthesis.
        self.save_output(task.id, last_output)
        outcome = await self._land(task, place) if place is not None else TaskOutcome("done")
        return await self.after_task(task, outcome, last_output)

    async def session(self, task: Task, sub_id: str, *, engine: str, workdir: Path, place: Worktree | None,
                      held: Held | None, timeout_s: float, prompt: str | None = None, command: str | None = None,
                      model: str | None = None, extra_env: dict[str, str] | None = None) -> SubtaskResult:
        """One agent session (a subtask, a lens member): journaled from start to finish, its process group known
        to the monitor and to a resume, its own key in a worktree. An engine that cannot start it, or the monitor
        killing it, is a failed result, never an exception."""
        agent_id = f"{task.id}.{sub_id}"
        self.dir.record(R.SubtaskStarted, task_id=task.id, subtask_id=sub_id, agent_id=agent_id, engine=engine)
        ctx = SubtaskContext(
            run_id=self.run_id, agent_id=agent_id, role=task.assigned_role, task_id=task.id, subtask_id=sub_id,
            prompt=prompt, command=command, workdir=workdir, agent_dir=self.dir.agent_dir(agent_id),
            gateway_url=self.opts.gateway_url,
            # On worker machines each attempt's key is minted there (by a worker key), never sent from here.
            agent_key=await self.agent_key_for(task, agent_id, place, held) if self.executor.name == "local" else "",
            key_binding=TaskPlaces.binding(task, agent_id, place, held) if place is not None else {},
            worktree={"top": str(place.top), "branch": place.branch or ""} if place is not None else {},
            timeout_s=timeout_s, client=self.client, base_env=self.opts.env, pass_env=tuple(self.cfg.safety.pass_env),
            on_start=functools.partial(self.agent_started, task.id, sub_id, agent_id),
            extra_env={**self.extra_env(task, agent_id, place), **(extra_env or {})}, model=model)
        try:
            if prompt is not None and engine == "command":
                raise EngineError(f"subtask {sub_id} has a prompt but the run's engine is 'command'; "
                                  "use --engine claude or gemini")
            # The task's n-th attempt (a retry by the refiner or a person runs it again; counted from the
            # journal). A resume runs the same attempt: an executor that ran it elsewhere re-attaches to it,
            # or takes its result if it finished while this process was down.
            result = await self.executor.run(ctx, engine, generation=self.attempts.count.get(task.id, 0))
        except EngineError as e:
            result = SubtaskResult(ok=False, detail=str(e))
        finally:
            self.agent_groups.pop(agent_id, None)
        if agent_id in self.monitor_kills:
            result.ok, result.detail = False, self.monitor_kills[agent_id]
        self.dir.record(R.SubtaskFinished, task_id=task.id, subtask_id=sub_id, agent_id=agent_id, ok=result.ok,
                        returncode=result.returncode, timed_out=result.timed_out, duration_s=result.duration_s,
                        detail=result.detail[:2000], **result.usage)
        return result

    # --- what a task receives from its parents ------------------------------------------------
    def inputs(self, task: Task) -> list[str]:
        """What a task receives from its parents: the synthesis where branches meet, else the merged report
        of a lens task it depends on."""
        if task.id in self._synthesis_files:
            return [self._synthesis_files[task.id].read_text(encoding="utf-8", errors="replace")]
        return [self.output_of(d) for d in task.depends_on if d in self.tasks and self.tasks[d].lens is not None]

    # --- synthesis at convergence -----------------------------------------------------------------
    def save_output(self, task_id: str, text: str) -> None:
        """A task's final output once all its subtasks succeeded: what a synthesis where its branch meets
        others reads (only done tasks are ever read: a join starts after its parents are done)."""
        out = self.dir.path / "outputs"
        out.mkdir(mode=0o700, exist_ok=True)
        write_text_atomic(out / f"{task_id}.txt", text)

    def output_of(self, task_id: str) -> str:
        path = self.dir.path / "outputs" / f"{task_id}.txt"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    async def _synthesize(self, task: Task, workdir: Path) -> None:
        """The parents' outputs condensed for ``task`` (kept in ``synthesis/<task>.md``; a resume reuses it)."""
        path = self.dir.path / "synthesis" / f"{task.id}.md"
        if not path.exists():
            parents = [(self.tasks[d], self.output_of(d)) for d in task.depends_on if d in self.tasks]
            made = await synthesize(self.cfg.synthesis, run_engine=self.opts.engine, task=task, parents=parents,
                                    workdir=workdir, agent_dir=self.dir.agent_dir(f"synthesis.{task.id}"),
                                    env=self.opts.env, gateway_url=self.opts.gateway_url, agent_key=self.agent_key,
                                    run_id=self.run_id, pass_env=tuple(self.cfg.safety.pass_env))
            path.parent.mkdir(mode=0o700, exist_ok=True)
            write_text_atomic(path, made.text)
            self.dir.record(R.SynthesisMade, task_id=task.id, parents=[p.id for p, _ in parents], engine=made.engine,
                            fallback=made.fallback, reason=made.reason, chars=len(made.text), file=str(path))
        self._synthesis_files[task.id] = path

    async def _land(self, task: Task, place: Worktree) -> TaskOutcome:
        assert self.places is not None
        return await self.places.finish(task, place, functools.partial(self._on_merge, task.id),
                                        self.attempts.name(task.id))

    def extra_env(self, task: Task, agent_id: str, place: Worktree | None) -> dict[str, str]:
        env = git_identity(agent_id) if place is not None else {}
        report = self.attempts.report(task.id)
        if report is not None:
            env["ACTEON_RETRY_REPORT"] = report  # a retried task's failed attempt, for commands
        if task.id in self._synthesis_files:
            env["ACTEON_SYNTHESIS"] = str(self._synthesis_files[task.id])  # its parents' work, condensed
        if task.id in self.fixes:
            env["ACTEON_CHALLENGE"] = str(self.fixes[task.id][1])  # the challenge a recovery agent fixes
        lenses = [str(self.dir.path / "lens" / d / "merged.json") for d in task.depends_on
                  if d in self.tasks and self.tasks[d].lens is not None]
        if lenses:
            env["ACTEON_LENS_REPORT"] = os.pathsep.join(lenses)  # merged.json of each lens task it depends on
        return env

    # --- memory ------------------------------------------------------------------------------------
    def _prompt(self, task: Task, sub: Any, agent_id: str, place: Worktree | None = None) -> str:
        """The subtask's prompt with the most relevant prior findings (this run's and, if configured,
        earlier runs' of the same workspace) fenced in as data, and how to report new ones."""
        role = self.roles[task.assigned_role]
        findings: list[str] = []
        if self.memory is not None:
            self.memory.sync_run(self.dir)
            hits = for_prompt(self.memory, query=" ".join([task.name, task.description, sub.name, sub.prompt or ""]),
                              workspace=normalize_workspace(self.plan.scope.working_directory),
                              run_id=self.run_id,
                              cross_run=self.cfg.memory.cross_run, max_findings=self.cfg.memory.max_findings,
                              max_chars=self.cfg.memory.max_injected_chars)
            if hits:
                self.dir.record(R.FindingsUsed, task_id=task.id, agent_id=agent_id,
                                finding_ids=[h.memory.id for h in hits])
            findings = [h.memory.text for h in hits]
        report = self.attempts.report(task.id)
        if report is not None:
            findings.insert(0, retry_note(report))
        if task.id in self._synthesis_files:
            findings.insert(0, f"Synthesis of the work this task builds on (tasks {', '.join(task.depends_on)}): "
                               + self._synthesis_files[task.id].read_text(encoding="utf-8", errors="replace"))
        else:
            findings[:0] = [f"Merged report of the lens swarm this task builds on: {text}"
                            for text in self.inputs(task)]
        text = render_prompt(role, task=task, subtask=sub, plan=self.plan, findings=findings,
                             max_findings_chars=self.cfg.memory.max_injected_chars,
                             workdir=str(place.path) if place is not None else None,
                             branch=place.branch if place is not None else None)
        return f"{text.rstrip()}\n\n{FINDING_INSTRUCTIONS}\n"

    def _memory_error(self, error: Exception) -> None:
        self.dir.record(R.Note, kind="memory_index_error", data={"error": str(error)})

    def _record_findings(self, task_id: str, agent_id: str, output: str) -> None:
        for topics, text in parse_findings(output):
            self._findings += 1
            self.dir.record(R.Finding, finding_id=f"{self.run_id}/{self._findings}", agent_id=agent_id,
                            task_id=task_id, topics=list(topics), text=text)
        if self.memory is not None:
            self.memory.sync_run(self.dir)

    # --- refiner -----------------------------------------------------------------------------------
    async def after_task(self, task: Task, outcome: TaskOutcome, result_text: str) -> TaskOutcome:
        """Ask the refiner what to change now that ``task`` is over, before its dependents can start (the
        task counts as running until then), and apply the checked decision to the live schedule."""
        if self.refiner is None or self.scheduler is None or self.cancel_reason or task.id not in self.tasks:
            return outcome  # (a fix of the adversarial loop is not a task of the plan)
        statuses = {**self.scheduler.statuses, task.id: outcome.status}
        decision = await refine(
            self.cfg.refiner, engine=self.opts.engine, plan=self.plan, finished_task=task, result_text=result_text,
            statuses=statuses, roles=self.roles, workdir=Path(self.plan.scope.working_directory),
            agent_dir=self.dir.agent_dir(f"refiner.{task.id}"), env=self.opts.env, gateway_url=self.opts.gateway_url,
            agent_key=self.agent_key, run_id=self.run_id, pass_env=tuple(self.cfg.safety.pass_env),
            retried=frozenset(self.attempts.by_refiner))
        try:
            self._apply(decision)
        except ValueError as e:  # the schedule moved on while the refiner thought (a task started)
            decision = RefinerOutcome(after_task=task.id, action="continue", skipped=(), priorities=(),
                                      added_task=None, reason=f"could not apply {decision.action}: {e}",
                                      fallback=True, answer=decision.answer)
        self.dir.record(R.RefinerDecision, **decision.to_event_fields())
        if decision.action != "continue" or decision.fallback:
            self.note(f"refiner after {task.id}: {decision.action.upper()}"
                       + (f" (fallback: {decision.reason})" if decision.fallback else ""))
        return outcome

    def _apply(self, decision: RefinerOutcome) -> None:
        assert self.scheduler is not None
        if decision.action == "skip":
            self.scheduler.skip(list(decision.skipped), f"skipped by the refiner after {decision.after_task}"
                                + (f": {decision.reason}" if decision.reason else ""))
        elif decision.action == "reprioritize":
            self.scheduler.reprioritize(decision.priority_map())
            for task_id, priority in decision.priority_map().items():
                self.tasks[task_id] = self.tasks[task_id].model_copy(update={"priority": priority})
        elif decision.action == "retry":
            # The task is still running (the refiner is asked before it ends): _run_task runs it again at once.
            for task_id in decision.retried:
                self.attempts.add(task_id, self.attempts.report_path_after(task_id))
                self.attempts.by_refiner.add(task_id)
                self._rerun.add(task_id)
        elif decision.action == "add" and decision.added_task is not None:
            new = decision.added_task
            self.scheduler.add_task(self._spec(new, len(self.plan.tasks)))
            self.plan.tasks.append(new)
            self.tasks[new.id] = new
            if self.watcher is not None:
                self.watcher.add_task(new.id)
