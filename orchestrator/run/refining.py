"""The refiner's turn after each task of the plan (docs/swarm.md): asked before the task's dependents can
start, its checked decision applied to the live schedule — skip, reprioritize, add a task, or retry the task
that could not land."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import RefinerSection
from orchestrator.engines.base import Seat
from orchestrator.plan.model import Plan, Task
from orchestrator.refiner import RefinerOutcome, refine
from orchestrator.roles import Role
from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec
from orchestrator.workspace.tasks import Attempts


class Refining:
    def __init__(self, cfg: RefinerSection, *, run_engine: str, plan: Plan, roles: dict[str, Role],
                 tasks: dict[str, Task], run_dir: R.RunDir, note: Callable[[str], None]) -> None:
        self.cfg, self.run_engine, self.plan, self.roles, self.tasks = cfg, run_engine, plan, roles, tasks
        self.dir, self.note = run_dir, note

    async def after_task(self, task: Task, outcome: TaskOutcome, *, scheduler: Scheduler,
                         seat: Seat, attempts: Attempts, spec: Callable[[Task], TaskSpec],
                         added: Callable[[str], None]) -> bool:
        """Ask what to change now that ``task`` is over and apply it. ``spec`` schedules an added task,
        ``added`` tells the watcher about it. True: the refiner retried ``task``, which runs again at once in the
        slot it holds."""
        statuses = {**scheduler.statuses, task.id: outcome.status}
        decision = await refine(
            self.cfg, engine=self.run_engine, plan=self.plan, finished_task=task, result_text=outcome.output,
            statuses=statuses, roles=self.roles, workdir=Path(self.plan.scope.working_directory),
            agent_dir=self.dir.agent_dir(f"refiner.{task.id}"), seat=seat,
            retried=frozenset(attempts.by_refiner))
        try:
            self._apply(decision, scheduler, attempts, spec, added)
        except ValueError as e:  # the schedule moved on while the refiner thought (a task started)
            decision = RefinerOutcome(after_task=task.id, action="continue", skipped=(), priorities=(),
                                      added_task=None, reason=f"could not apply {decision.action}: {e}",
                                      fallback=True, answer=decision.answer)
        self.dir.record(E.RefinerDecision, **decision.to_event_fields())
        if decision.action != "continue" or decision.fallback:
            self.note(f"refiner after {task.id}: {decision.action.upper()}"
                      + (f" (fallback: {decision.reason})" if decision.fallback else ""))
        return decision.action == "retry" and task.id in decision.retried

    def _apply(self, decision: RefinerOutcome, scheduler: Scheduler, attempts: Attempts,
               spec: Callable[[Task], TaskSpec], added: Callable[[str], None]) -> None:
        if decision.action == "skip":
            scheduler.skip(list(decision.skipped), f"skipped by the refiner after {decision.after_task}"
                           + (f": {decision.reason}" if decision.reason else ""))
        elif decision.action == "reprioritize":
            scheduler.reprioritize(decision.priority_map())
            for task_id, priority in decision.priority_map().items():
                self.tasks[task_id] = self.tasks[task_id].model_copy(update={"priority": priority})
        elif decision.action == "retry":
            # The task is still running (the refiner is asked before it ends): it runs again at once.
            for task_id in decision.retried:
                attempts.add(task_id, attempts.report_path_after(task_id))
                attempts.by_refiner.add(task_id)
        elif decision.action == "add" and decision.added_task is not None:
            new = decision.added_task
            scheduler.add_task(spec(new))
            self.plan.tasks.append(new)
            self.tasks[new.id] = new
            added(new.id)
