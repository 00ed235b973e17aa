"""Refiner decisions against the live plan (docs/swarm.md): only tasks that have not started can be skipped or
reprioritized, an added task is delegation with fresh ids and live dependencies, a decision is applied
whole or not at all — and whatever passes, the scheduler accepts."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from orchestrator.plan.model import ID_PATTERN, validate_plan
from orchestrator.refiner.answer import RefinerAnswerError, parse_answer
from orchestrator.refiner.validate import ValidDecision, fresh_id, validate
from orchestrator.roles import BUILTIN_ROLES, Role
from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec
from tests.refiner.plans import STATUSES, make_plan, task

PLAN = make_plan()


def check(answer: str, *, finished: str = "design", statuses: dict[str, str] = STATUSES,
          roles: dict[str, Role] = BUILTIN_ROLES, plan: Any = PLAN) -> ValidDecision:
    return validate(parse_answer(answer), plan=plan, statuses=statuses, finished_task=plan.task(finished),
                    roles=roles)


def add(body: dict[str, Any], **kw: Any) -> ValidDecision:
    return check("ADD: " + json.dumps(body), **kw)


NEW = {"name": "double-check", "description": "review the design", "assigned_role": "reviewer",
       "depends_on": ["design"], "subtasks": [{"name": "read", "prompt": "read it"},
                                              {"name": "report", "prompt": "report"}]}


# --- CONTINUE, SKIP, REPRIORITIZE -------------------------------------------------------------------

def test_continue_is_always_valid() -> None:
    assert check("CONTINUE") == ValidDecision("continue")


def test_skip_pending_and_ready_tasks() -> None:
    assert check("SKIP: test, review") == ValidDecision("skip", skip=("test", "review"))


@pytest.mark.parametrize(("answer", "reason"), [
    ("SKIP: build", "cannot skip task 'build': it is running"),
    ("SKIP: design", "cannot skip task 'design': it is done"),
    ("SKIP: lint", "it is failed"),
    ("SKIP: docs", "it is blocked"),
    ("SKIP: extra", "it is skipped"),
    ("SKIP: nope", "cannot skip unknown task 'nope'"),
    ("SKIP: test-1", "'test-1': it is a subtask"),
    # One bad id rejects the whole decision: 'test' is not skipped either.
    ("SKIP: test, build", "cannot skip task 'build': it is running"),
])
def test_skip_only_tasks_that_have_not_started(answer: str, reason: str) -> None:
    with pytest.raises(RefinerAnswerError, match=re.escape(reason)):
        check(answer)


def test_a_task_missing_from_the_statuses_is_not_editable() -> None:
    with pytest.raises(RefinerAnswerError, match="of unknown status"):
        check("SKIP: test", statuses={k: v for k, v in STATUSES.items() if k != "test"})


def test_reprioritize() -> None:
    d = check("REPRIORITIZE: test=1, review=-20")
    assert d.action == "reprioritize" and d.priority_map() == {"test": 1, "review": -20}


@pytest.mark.parametrize(("answer", "reason"), [
    ("REPRIORITIZE: build=1", "cannot reprioritize task 'build': it is running"),
    ("REPRIORITIZE: test=1, design=2", "cannot reprioritize task 'design': it is done"),
    ("REPRIORITIZE: ghost=1", "cannot reprioritize unknown task 'ghost'"),
])
def test_reprioritize_only_tasks_that_have_not_started(answer: str, reason: str) -> None:
    with pytest.raises(RefinerAnswerError, match=re.escape(reason)):
        check(answer)


# --- ADD --------------------------------------------------------------------------------------------

def test_add_gets_a_fresh_id_and_fresh_subtask_ids_whatever_the_model_wrote() -> None:
    body = {**NEW, "id": "build", "subtasks": [{"id": "design-1", "name": "read", "prompt": "read it"},
                                               {"id": "design-1", "name": "report", "prompt": "report"}]}
    d = add(body)
    assert d.action == "add" and d.task is not None
    assert d.task.id == "design-r1"
    assert [s.id for s in d.task.subtasks] == ["design-r1-s1", "design-r1-s2"]
    assert d.task.assigned_role == "reviewer" and d.task.depends_on == ["design"] and d.task.priority == 100
    validate_plan(PLAN.model_copy(update={"tasks": [*PLAN.tasks, d.task]}), set(BUILTIN_ROLES))


def test_fresh_ids_never_collide_with_any_task_or_subtask_id() -> None:
    # 'design-r1' is taken by a task and 'design-r2-s1' by a subtask of another task.
    taken = task("design-r1", "coder")
    other = {**task("other", "coder"), "subtasks": [{"id": "design-r2-s1", "name": "x", "prompt": "x"}]}
    plan = make_plan(taken, other)
    statuses = {**STATUSES, "design-r1": "pending", "other": "pending"}
    d = add(NEW, plan=plan, statuses=statuses)
    assert d.task is not None and d.task.id == "design-r2"
    assert [s.id for s in d.task.subtasks] == ["design-r2-s2", "design-r2-s3"]
    ids = [t.id for t in plan.tasks] + [s.id for t in plan.tasks for s in t.subtasks]
    assert not {d.task.id, *(s.id for s in d.task.subtasks)} & set(ids)


def test_a_long_finished_id_still_gives_a_valid_fresh_id() -> None:
    long_id = "t" * 64
    plan = make_plan({**task(long_id, "planner"), "subtasks": [{"id": "long-1", "name": "x", "prompt": "x"}]})
    d = add({**NEW, "depends_on": [long_id]}, plan=plan, finished=long_id, statuses={**STATUSES, long_id: "done"})
    assert d.task is not None
    for new_id in (d.task.id, *(s.id for s in d.task.subtasks)):
        assert re.fullmatch(ID_PATTERN, new_id) and len(new_id) <= 64
    taken: set[str] = set()
    assert [fresh_id("x", "r", taken) for _ in range(3)] == ["x-r1", "x-r2", "x-r3"]


def test_add_only_for_a_role_the_finished_role_may_delegate_to() -> None:
    # review's role (reviewer) may delegate to coder only.
    statuses = {**STATUSES, "review": "done"}
    with pytest.raises(RefinerAnswerError, match=r"role 'reviewer' may not delegate to role 'executor' "
                                                 r"\(it may delegate to: coder\)"):
        add({**NEW, "assigned_role": "executor"}, finished="review", statuses=statuses)
    assert add({**NEW, "assigned_role": "coder"}, finished="review", statuses=statuses).task is not None


def test_a_role_that_may_not_delegate_cannot_add() -> None:
    roles = {**BUILTIN_ROLES, "planner": dataclasses.replace(BUILTIN_ROLES["planner"], can_delegate_to=())}
    with pytest.raises(RefinerAnswerError, match="role 'planner' of task 'design' may not delegate to any role"):
        add(NEW, roles=roles)


def test_add_respects_the_plans_agent_roles() -> None:
    plan = make_plan(agent_roles=["planner", "coder", "executor", "reviewer", "researcher"])
    assert add(NEW, plan=plan).task is not None
    narrow = plan.model_copy(update={"agent_roles": ["planner", "coder", "executor", "researcher"]})
    with pytest.raises(RefinerAnswerError, match="role 'reviewer' is not among the plan's agent_roles"):
        add(NEW, plan=narrow)


@pytest.mark.parametrize(("deps", "reason"), [
    (["ghost"], "depends on unknown task 'ghost'"),
    (["design-1"], "depends on unknown task 'design-1'"),  # a subtask is not a task
    (["lint"], "depends on task 'lint', which is failed"),
    (["docs"], "depends on task 'docs', which is blocked"),
    (["extra"], "depends on task 'extra', which is skipped"),
    (["design", "lint"], "which is failed"),
])
def test_add_dependencies_must_be_able_to_finish(deps: list[str], reason: str) -> None:
    with pytest.raises(RefinerAnswerError, match=re.escape(reason)):
        add({**NEW, "depends_on": deps})


def test_add_may_depend_on_done_running_and_pending_tasks_or_none() -> None:
    d = add({**NEW, "depends_on": ["design", "build", "test", "build"]})
    assert d.task is not None and d.task.depends_on == ["design", "build", "test"]  # duplicates dropped
    d = add({**NEW, "depends_on": []})
    assert d.task is not None and d.task.depends_on == []


def test_a_cycle_cannot_be_expressed() -> None:
    # The model cannot know the fresh id, and nothing existing depends on it: any self-reference is unknown.
    with pytest.raises(RefinerAnswerError, match="unknown task 'mine'"):
        add({**NEW, "id": "mine", "depends_on": ["mine"]})
    with pytest.raises(RefinerAnswerError, match="unknown task 'design-r1'"):
        add({**NEW, "depends_on": ["design-r1"]})


@pytest.mark.parametrize(("body", "reason"), [
    ({k: v for k, v in NEW.items() if k != "subtasks"}, "ADD: not a valid task: a task needs at least one subtask"),
    ({**NEW, "subtasks": []}, "ADD: not a valid task: a task needs at least one subtask"),
    ({**NEW, "kind": "lens", "lens": {"question": "q", "members": [{"id": "m"}]}}, "ADD: the refiner adds tasks with "
     "subtasks only (no kind: lens)"),
    ({**NEW, "subtasks": [{"name": "x"}]}, "subtasks.0: a subtask needs exactly one of 'prompt' or 'command'"),
    ({**NEW, "surprise": 1}, "ADD: not a valid task: surprise: unknown key"),
    ({**NEW, "name": ""}, "ADD: not a valid task: name: String should have at least 1 character"),
    ({**NEW, "priority": "high"}, "ADD: not a valid task: priority: Input should be a valid integer"),
    ({**NEW, "priority": 5_000_000}, "ADD: priority must be between -1000000 and 1000000"),
    ({**NEW, "assigned_role": "wizard"}, "ADD: role 'planner' may not delegate to role 'wizard'"),
])
def test_add_must_be_a_valid_task(body: dict[str, Any], reason: str) -> None:
    with pytest.raises(RefinerAnswerError) as e:
        add(body)
    assert reason in str(e.value)


# --- what passes, the scheduler applies ---------------------------------------------------------------

def _scheduler() -> Scheduler:
    async def never(spec: TaskSpec) -> TaskOutcome:
        raise AssertionError("not started in these tests")

    specs = [TaskSpec(t.id, t.assigned_role, t.priority, tuple(t.depends_on), i) for i, t in enumerate(PLAN.tasks)]
    initial: Any = {k: v for k, v in STATUSES.items() if v != "ready"}  # 'ready' is recomputed by the scheduler
    return Scheduler(specs, max_agents=2, role_caps={}, run_task=never, initial=initial)


@pytest.mark.parametrize("answer", [
    "SKIP: test, review", "REPRIORITIZE: test=3, review=-1", "ADD: " + json.dumps(NEW),
    "ADD: " + json.dumps({**NEW, "depends_on": ["build", "test"]}),
])
def test_a_validated_decision_is_accepted_by_the_scheduler(answer: str) -> None:
    sched = _scheduler()
    d = check(answer, statuses=dict(sched.statuses))
    if d.action == "skip":
        sched.skip(list(d.skip), "refiner")
        assert all(sched.statuses[t] == "skipped" for t in d.skip)
    elif d.action == "reprioritize":
        sched.reprioritize(d.priority_map())
    else:
        assert d.task is not None
        sched.add_task(TaskSpec(d.task.id, d.task.assigned_role, d.task.priority, tuple(d.task.depends_on), 99))
        assert sched.statuses[d.task.id] == "pending"


# --- RETRY --------------------------------------------------------------------------------------------

def test_retry_the_task_whose_branch_could_not_land() -> None:
    for status in ("conflict", "verify_failed"):
        assert check("RETRY: build", finished="build", statuses={**STATUSES, "build": status}) == ValidDecision(
            "retry", retry="build")


@pytest.mark.parametrize(("answer", "finished", "status", "reason"), [
    ("RETRY: build", "design", "conflict", "RETRY may name only the task that just ended ('design')"),
    ("RETRY: build", "build", "done", "cannot retry task 'build': it is done"),
    ("RETRY: build", "build", "failed", "only a task whose branch could not land"),
    ("RETRY: build, test", "build", "conflict", "RETRY names exactly one task"),
    ("RETRY:", "build", "conflict", "RETRY names no task"),
])
def test_retry_is_refused_otherwise(answer: str, finished: str, status: str, reason: str) -> None:
    with pytest.raises(RefinerAnswerError, match=re.escape(reason)):
        check(answer, finished=finished, statuses={**STATUSES, "build": status})


def test_the_refiner_retries_a_task_once() -> None:
    with pytest.raises(RefinerAnswerError, match="retried by the refiner once already"):
        validate(parse_answer("RETRY: build"), plan=PLAN, statuses={**STATUSES, "build": "conflict"},
                 finished_task=PLAN.task("build"), roles=BUILTIN_ROLES, retried=frozenset({"build"}))
