"""Checking a parsed refiner decision against the live plan (docs/swarm.md).

A decision is applied whole or not at all: one bad id makes the whole answer invalid (the run then
CONTINUEs), because half of what a model meant can be worse than none of it. The rules mirror what the
scheduler itself accepts, so a validated decision never fails when the runner applies it:

* SKIP and REPRIORITIZE name tasks of the plan that have not started (``pending`` or ``ready``, the
  scheduler's ``_require_editable``); a running, finished, blocked or unknown task is an error.
* ADD is delegation: the new task's role must be one the finished task's role ``can_delegate_to`` (and,
  when the plan lists ``agent_roles``, one of those: a human approved the plan for those roles). The
  task always gets a fresh id (``<finished>-r<N>``) and fresh subtask ids, whatever the model wrote, so
  no id ever means two things; its dependencies must be tasks that can still finish (not failed,
  skipped, blocked or cancelled). A new id cannot be depended on by anything yet, so no cycle can
  form; the whole plan is still re-validated with :func:`validate_plan` as a last check.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from acteon_core.vocabulary import DEAD_ENDS
from orchestrator.plan.model import Plan, PlanError, Task, describe_error, validate_plan
from orchestrator.refiner.answer import MAX_PRIORITY, Action, Directive, RefinerAnswerError
from orchestrator.roles import Role

EDITABLE = frozenset({"pending", "ready"})  # not started: the only tasks SKIP / REPRIORITIZE may touch
RETRYABLE = frozenset({"conflict", "verify_failed"})  # a branch that could not land: RETRY may run it again
_MAX_ID = 64  # plan.ID_PATTERN


@dataclass(frozen=True)
class ValidDecision:
    """A decision the runner can apply as is: ``skip`` to Scheduler.skip, ``priorities`` to
    Scheduler.reprioritize, ``task`` (ADD: fresh ids, validated) to the plan and Scheduler.add_task."""

    action: Action
    skip: tuple[str, ...] = ()
    priorities: tuple[tuple[str, int], ...] = ()
    task: Task | None = None
    retry: str = ""

    def priority_map(self) -> dict[str, int]:
        return dict(self.priorities)


def validate(
    decision: Directive, *, plan: Plan, statuses: Mapping[str, str], finished_task: Task, roles: Mapping[str, Role],
    retried: frozenset[str] = frozenset(),
) -> ValidDecision:
    """``decision`` checked against the plan and the tasks' current ``statuses``; raises
    :class:`RefinerAnswerError` with the reason when any part of it cannot be applied."""
    if decision.action == "continue":
        return ValidDecision("continue")
    if decision.action == "skip":
        for task_id in decision.skip:
            _require_editable(task_id, "skip", plan, statuses)
        return ValidDecision("skip", skip=decision.skip)
    if decision.action == "reprioritize":
        for task_id, _ in decision.priorities:
            _require_editable(task_id, "reprioritize", plan, statuses)
        return ValidDecision("reprioritize", priorities=decision.priorities)
    if decision.action == "retry":
        # Only the task that just ended, once: a model that keeps retrying a conflict would loop forever.
        if decision.retry != finished_task.id:
            raise RefinerAnswerError(f"RETRY may name only the task that just ended ('{finished_task.id}')")
        status = statuses.get(decision.retry)
        if status not in RETRYABLE:
            raise RefinerAnswerError(f"cannot retry task '{decision.retry}': it is {status or 'of unknown status'}; "
                                     "only a task whose branch could not land (conflict, verify_failed) can be retried")
        if decision.retry in retried:
            raise RefinerAnswerError(f"task '{decision.retry}' was retried by the refiner once already")
        return ValidDecision("retry", retry=decision.retry)
    if decision.task is None:
        raise RefinerAnswerError("ADD without a task")
    task = added_task(decision.task, plan=plan, statuses=statuses, finished_task=finished_task, roles=roles)
    return ValidDecision("add", task=task)


def _require_editable(task_id: str, verb: str, plan: Plan, statuses: Mapping[str, str]) -> None:
    if task_id not in {t.id for t in plan.tasks}:
        if any(s.id == task_id for t in plan.tasks for s in t.subtasks):
            raise RefinerAnswerError(f"cannot {verb} '{task_id}': it is a subtask, name its task instead")
        raise RefinerAnswerError(f"cannot {verb} unknown task '{task_id}'")
    status = statuses.get(task_id)
    if status not in EDITABLE:
        raise RefinerAnswerError(f"cannot {verb} task '{task_id}': it is {status or 'of unknown status'}; "
                                 "only tasks that have not started (pending or ready) can be changed")


def added_task(
    data: Mapping[str, Any], *, plan: Plan, statuses: Mapping[str, str], finished_task: Task,
    roles: Mapping[str, Role],
) -> Task:
    """The ADD JSON as a :class:`Task` with fresh ids, checked for delegation and dependencies."""
    taken = {t.id for t in plan.tasks} | {s.id for t in plan.tasks for s in t.subtasks} | set(statuses)
    raw: dict[str, Any] = copy.deepcopy(dict(data))
    if raw.get("kind", "agents") != "agents" or "lens" in raw:
        # The refiner's answer format has subtasks only; a lens swarm is the plan's author's decision.
        raise RefinerAnswerError("ADD: the refiner adds tasks with subtasks only (no kind: lens)")
    raw["id"] = fresh_id(finished_task.id, "r", taken)
    subtasks = raw.get("subtasks")
    if isinstance(subtasks, list):
        for sub in subtasks:
            if isinstance(sub, dict):
                sub["id"] = fresh_id(raw["id"], "s", taken)
    try:
        task = Task.model_validate(raw)
    except ValidationError as e:
        problems = "; ".join(describe_error(err) for err in e.errors()[:5])
        raise RefinerAnswerError(f"ADD: not a valid task: {problems}") from None

    if abs(task.priority) > MAX_PRIORITY:
        raise RefinerAnswerError(f"ADD: priority must be between -{MAX_PRIORITY} and {MAX_PRIORITY}")
    _check_delegation(task.assigned_role, plan, finished_task, roles)
    task = task.model_copy(update={"depends_on": list(dict.fromkeys(task.depends_on))})
    task_ids = {t.id for t in plan.tasks}
    for dep in task.depends_on:
        if dep not in task_ids:
            raise RefinerAnswerError(f"ADD: depends on unknown task '{dep}'")
        status = statuses.get(dep)
        if status is None or status in DEAD_ENDS:
            raise RefinerAnswerError(f"ADD: depends on task '{dep}', which is {status or 'of unknown status'} "
                                     "and will never be done")
    try:  # cannot fail after the checks above; kept so that an added task can never break the plan
        validate_plan(plan.model_copy(update={"tasks": [*plan.tasks, task]}), set(roles))
    except PlanError as e:
        raise RefinerAnswerError(f"ADD: {e}") from None
    return task


def _check_delegation(role: str, plan: Plan, finished_task: Task, roles: Mapping[str, Role]) -> None:
    parent = roles.get(finished_task.assigned_role)
    allowed = parent.can_delegate_to if parent is not None else ()
    if not allowed:
        raise RefinerAnswerError(f"ADD: role '{finished_task.assigned_role}' of task '{finished_task.id}' "
                                 "may not delegate to any role")
    if role not in allowed or role not in roles:
        raise RefinerAnswerError(f"ADD: role '{finished_task.assigned_role}' may not delegate to role '{role}' "
                                 f"(it may delegate to: {', '.join(allowed)})")
    if plan.agent_roles and role not in plan.agent_roles:
        raise RefinerAnswerError(f"ADD: role '{role}' is not among the plan's agent_roles "
                                 f"({', '.join(plan.agent_roles)})")


def fresh_id(base: str, letter: str, taken: set[str]) -> str:
    """``<base>-<letter><N>`` with the smallest N not in ``taken`` (which it joins), ``base`` shortened
    so the id stays within the plan's 64 characters."""
    for n in itertools.count(1):
        suffix = f"-{letter}{n}"
        candidate = base[: _MAX_ID - len(suffix)] + suffix
        if candidate not in taken:
            taken.add(candidate)
            return candidate
    raise AssertionError("unreachable")  # pragma: no cover
