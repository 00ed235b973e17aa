"""Picking a run up again (``run --resume``) from its journal: agents of the crashed process stopped, the
plan as the refiner and people left it, the tasks' statuses."""

from __future__ import annotations

from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.plan.model import Plan, Task
from orchestrator.process import reap_orphan
from orchestrator.run.parking import ParkLedger


def reap_orphans(run_dir: R.RunDir, past: list[Any]) -> list[str]:
    """Agents the crashed orchestrator started and never saw finish may still run: kill them before
    their tasks run again, so no two copies of an agent work on the same files."""
    started: dict[str, E.AgentStarted] = {}
    for ev in past:
        if isinstance(ev, E.AgentStarted):
            started[ev.agent_id] = ev
        elif isinstance(ev, E.SubtaskFinished):
            started.pop(ev.agent_id, None)
    reaped = [a for a, ev in started.items() if reap_orphan(ev.pgid, ev.start_time)]
    for agent_id in reaped:
        run_dir.record(E.Note, kind="orphan_reaped", data={"agent_id": agent_id, "pgid": started[agent_id].pgid})
    return reaped


def replay_refiner(plan: Plan, past: list[Any]) -> None:
    """The plan as the refiner left it (added tasks, changed priorities): the journal, not plan.json, is the
    record of those edits."""
    for ev in past:
        if isinstance(ev, E.RefinerDecision) and not ev.fallback:
            if ev.added_task is not None:
                plan.tasks.append(Task.model_validate(ev.added_task))
            for task_id, priority in ev.priorities.items():
                plan.tasks = [t.model_copy(update={"priority": priority}) if t.id == task_id else t
                              for t in plan.tasks]


def apply_park_decisions(plan: Plan, ledger: ParkLedger, run_dir: R.RunDir,
                         initial: dict[str, Any]) -> dict[str, Any]:
    """Decisions a person recorded in the park ledger: an approved proposal replaces its task (same id,
    dependencies and park reason; approved, so it runs); a rejected task is skipped (dependents blocked)."""
    for task in list(plan.tasks):
        decided = ledger.decision(task.id) if task.irreversible else None
        if decided is None:
            continue
        if decided.action == "rejected" and initial.get(task.id) not in ("done", "skipped"):
            initial[task.id] = "skipped"
            run_dir.record(E.TaskStatusChanged, task_id=task.id, status="skipped",
                           reason=f"rejected by {decided.by or 'an operator'}: {decided.reason}")
        elif decided.action == "approved" and decided.proposal_no is not None:
            proposal = ledger.proposals(task.id)[decided.proposal_no - 1].proposal or {}
            alternative = Task.model_validate({**proposal, "id": task.id, "depends_on": task.depends_on,
                                               "irreversible": True, "park_reason": task.park_reason})
            plan.tasks = [alternative if t.id == task.id else t for t in plan.tasks]
    return initial
