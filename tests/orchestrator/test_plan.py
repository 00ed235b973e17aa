"""Plan models and whole-plan validation (docs/swarm.md): every problem reported, each naming its offender."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from orchestrator.plan.file import load_plan, save_plan, with_absolute_workdir
from orchestrator.plan.model import (
    Plan,
    PlanError,
    approve,
    critical_path,
    plan_json_schema,
    topological_order,
    validate_plan,
)

ROLES = {"planner", "coder", "researcher", "reviewer", "executor"}


def task(tid: str, *deps: str, role: str = "coder", priority: int = 100, subtasks: int = 1) -> dict[str, Any]:
    return {
        "id": tid,
        "name": f"task {tid}",
        "assigned_role": role,
        "priority": priority,
        "depends_on": list(deps),
        "subtasks": [{"id": f"{tid}-s{i}", "name": "step", "prompt": "do it"} for i in range(subtasks)],
    }


def plan_dict(*tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "plan-1", "objective": "ship it", "scope": {"working_directory": "."}, "tasks": list(tasks), **extra}


def errors_of(data: dict[str, Any], roles: set[str] = ROLES) -> list[str]:
    with pytest.raises(PlanError) as info:
        validate_plan(Plan.model_validate(data), roles)
    return info.value.errors


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def test_a_valid_plan_loads_with_defaults(tmp_path: Path) -> None:
    plan = load_plan(write(tmp_path, plan_dict(task("a"), task("b", "a"))), ROLES)
    assert [t.id for t in plan.tasks] == ["a", "b"]
    assert plan.status == "pending" and plan.sequence == 0 and plan.approved_by is None
    assert plan.scope.max_agents == 8 and plan.scope.max_duration_minutes == 60
    assert plan.tasks[0].priority == 100 and plan.tasks[0].description == ""
    assert plan.task("b").depends_on == ["a"]


def test_empty_plan() -> None:
    assert errors_of(plan_dict()) == ["the plan has no tasks"]


def renamed_subtask(t: dict[str, Any], new_id: str) -> dict[str, Any]:
    t["subtasks"][0]["id"] = new_id
    return t


def test_duplicate_task_ids_are_named() -> None:
    assert errors_of(plan_dict(task("a"), renamed_subtask(task("a"), "x"))) == [
        "duplicate id 'a': used by task 'a' and by task 'a'"
    ]


def test_tasks_and_subtasks_share_one_id_space() -> None:
    (msg,) = errors_of(plan_dict(task("a"), renamed_subtask(task("b"), "a")))
    assert msg == "duplicate id 'a': used by task 'a' and by subtask 'a' of task 'b'"


def test_duplicate_subtask_ids_across_tasks() -> None:
    (msg,) = errors_of(plan_dict(task("a"), renamed_subtask(task("b"), "a-s0")))
    assert "duplicate id 'a-s0'" in msg and "of task 'a'" in msg and "of task 'b'" in msg


def test_unknown_dependency_names_the_task_and_the_missing_id() -> None:
    assert errors_of(plan_dict(task("a"), task("b", "ghost"))) == ["task 'b' depends on unknown task 'ghost'"]


def test_depending_on_a_subtask_is_explained() -> None:
    (msg,) = errors_of(plan_dict(task("a"), task("b", "a-s0")))
    assert "task 'b'" in msg and "'a-s0'" in msg and "subtask" in msg


def test_self_dependency() -> None:
    assert errors_of(plan_dict(task("a", "a"))) == ["task 'a' depends on itself"]


def test_cycle_names_its_path() -> None:
    errors = errors_of(plan_dict(task("a", "b"), task("b", "c"), task("c", "a"), task("d")))
    assert errors == ["dependency cycle: a -> b -> c -> a"]


def test_two_separate_cycles_are_both_reported() -> None:
    errors = errors_of(plan_dict(task("a", "b"), task("b", "a"), task("x", "y"), task("y", "x")))
    assert errors == ["dependency cycle: a -> b -> a", "dependency cycle: x -> y -> x"]


def test_a_long_chain_does_not_hit_the_recursion_limit() -> None:
    n = 5000
    tasks = [task("t0")] + [task(f"t{i}", f"t{i - 1}") for i in range(1, n)]
    plan = Plan.model_validate(plan_dict(*tasks))
    validate_plan(plan, ROLES)
    assert topological_order(plan)[-1] == f"t{n - 1}"
    tasks[0]["depends_on"] = [f"t{n - 1}"]
    (msg,) = errors_of(plan_dict(*tasks))
    assert msg.startswith("dependency cycle: t0 -> t4999 -> t4998")


def test_unknown_role_names_task_role_and_known_roles() -> None:
    (msg,) = errors_of(plan_dict(task("a", role="wizard")))
    assert msg == "task 'a' has unknown role 'wizard' (known roles: coder, executor, planner, researcher, reviewer)"


def test_role_must_be_listed_in_agent_roles_when_given() -> None:
    errors = errors_of(plan_dict(task("a", role="coder"), task("b", role="reviewer"), agent_roles=["coder"]))
    assert errors == ["task 'b' has role 'reviewer', which is not listed in agent_roles (coder)"]
    validate_plan(Plan.model_validate(plan_dict(task("a"), agent_roles=["coder", "reviewer"])), ROLES)


def test_agent_roles_must_be_known() -> None:
    errors = errors_of(plan_dict(task("a"), agent_roles=["coder", "ghost"]))
    assert errors == [
        "agent_roles lists unknown role 'ghost' (known roles: coder, executor, planner, researcher, reviewer)"
    ]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    data = plan_dict(task("a", "ghost", role="wizard"), task("b", "c"), task("c", "b"), renamed_subtask(task("b"), "x"))
    with pytest.raises(PlanError) as info:
        load_plan(write(tmp_path, data), ROLES)
    errors = info.value.errors
    assert len(errors) == 4
    assert all(e.startswith(f"{tmp_path / 'plan.json'}: ") for e in errors)
    text = "\n".join(errors)
    for part in ("duplicate id 'b'", "unknown role 'wizard'", "unknown task 'ghost'", "dependency cycle: b -> c -> b"):
        assert part in text


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "id": "p",\n  "objective": "x",,\n}\n')
    with pytest.raises(PlanError) as info:
        load_plan(path, ROLES)
    (msg,) = info.value.errors
    assert msg.startswith(f"{path}: invalid JSON at line 3")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="cannot read"):
        load_plan(tmp_path / "nope.json", ROLES)


def test_schema_errors_name_file_and_field_path(tmp_path: Path) -> None:
    bad_subtasks = task("c")
    bad_subtasks["subtasks"] = []
    both = task("d")
    both["subtasks"][0]["command"] = "make"
    neither = task("e")
    del neither["subtasks"][0]["prompt"]
    data = plan_dict(task("a") | {"colour": "red"}, task("b id"), bad_subtasks, both, neither)
    del data["objective"]
    path = write(tmp_path, data)
    with pytest.raises(PlanError) as info:
        load_plan(path, ROLES)
    errors = [e.removeprefix(f"{path}: ") for e in info.value.errors]
    assert "objective: missing required key" in errors
    assert any(e.startswith("tasks.0.colour: unknown key (known keys: id, name,") for e in errors)
    assert any(e.startswith("tasks.1.id: String should match pattern") for e in errors)
    assert any(e.startswith("tasks.2: a task needs at least one subtask") for e in errors)
    assert "tasks.3.subtasks.0: a subtask needs exactly one of 'prompt' or 'command'" in errors
    assert "tasks.4.subtasks.0: a subtask needs exactly one of 'prompt' or 'command'" in errors


def test_a_plan_must_be_an_object(tmp_path: Path) -> None:
    with pytest.raises(PlanError) as info:
        load_plan(write(tmp_path, "[1, 2]"), ROLES)
    assert len(info.value.errors) == 1


def test_scope_bounds() -> None:
    with pytest.raises(ValueError, match="max_agents"):
        Plan.model_validate(plan_dict(task("a")) | {"scope": {"working_directory": ".", "max_agents": 0}})
    with pytest.raises(ValueError, match="max_agents"):
        Plan.model_validate(plan_dict(task("a")) | {"scope": {"working_directory": ".", "max_agents": 257}})


def test_json_schema_is_exported() -> None:
    schema = plan_json_schema()
    assert schema["title"] == "Plan"
    assert {"id", "objective", "scope", "tasks"} <= set(schema["required"])
    assert schema["additionalProperties"] is False
    assert "Subtask" in schema["$defs"] and "Task" in schema["$defs"]


def test_save_is_atomic_and_round_trips(tmp_path: Path) -> None:
    plan = Plan.model_validate(plan_dict(task("a"), task("b", "a")))
    path = tmp_path / "out" / "plan.json"
    save_plan(plan, path)
    loaded = load_plan(path, ROLES)
    assert loaded.scope.working_directory == str(path.parent)  # "." is the plan file's folder
    assert loaded == with_absolute_workdir(plan, path)
    assert [p.name for p in path.parent.iterdir()] == ["plan.json"]  # no temp file left behind
    assert path.stat().st_mode & 0o777 == 0o644


def test_approve_records_who_and_when(tmp_path: Path) -> None:
    plan = Plan.model_validate(plan_dict(task("a")))
    now = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    approved = approve(plan, "alice", now)
    assert approved.status == "approved" and approved.sequence == 1
    assert (approved.approved_by, approved.approved_at) == ("alice", now)
    assert plan.status == "pending"  # the original is unchanged
    path = tmp_path / "plan.json"
    save_plan(approved, path)
    assert load_plan(path, ROLES) == with_absolute_workdir(approved, path)
    assert approve(approved, "bob", now).sequence == 2
    with pytest.raises(ValueError):
        approve(plan, " ", now)


def test_topological_order_respects_dependencies_then_priority_then_plan_order() -> None:
    plan = Plan.model_validate(plan_dict(
        task("late", priority=200), task("b"), task("a", priority=5), task("c", "a", "b", priority=1),
    ))
    assert topological_order(plan) == ["a", "b", "c", "late"]


def test_topological_order_refuses_a_cycle() -> None:
    plan = Plan.model_validate(plan_dict(task("a", "b"), task("b", "a")))
    with pytest.raises(PlanError, match="dependency cycle: a -> b -> a"):
        topological_order(plan)


def test_critical_path_is_the_longest_dependent_chain() -> None:
    #   a(2) -> c(5) -> e(1)
    #   b(4) -> d(1) -/
    plan = Plan.model_validate(plan_dict(task("a"), task("b"), task("c", "a"), task("d", "b"), task("e", "c", "d")))
    length, path = critical_path({"a": 2, "b": 4, "c": 5, "d": 1, "e": 1}, plan)
    assert (length, path) == (8.0, ["a", "c", "e"])
    assert critical_path({"x": 1.0}, Plan.model_validate(plan_dict(task("x")))) == (1.0, ["x"])


def test_critical_path_needs_every_duration() -> None:
    plan = Plan.model_validate(plan_dict(task("a"), task("b")))
    with pytest.raises(ValueError, match="no duration for task"):
        critical_path({"a": 1.0}, plan)
    with pytest.raises(ValueError, match="negative"):
        critical_path({"a": 1.0, "b": -1.0}, plan)


def lens_dict(tid: str = "review", **lens: object) -> dict[str, object]:
    t = task(tid)
    del t["subtasks"]
    return {**t, "assigned_role": "reviewer", "kind": "lens",
            "lens": {"question": "what is wrong?", "members": [{"id": "m1"}, {"id": "m2"}], **lens}}


def test_a_lens_task_is_validated_as_a_whole(tmp_path: Path) -> None:
    ok = load_plan(write(tmp_path, plan_dict(lens_dict())), ROLES)
    assert ok.tasks[0].lens is not None and ok.tasks[0].lens.quorum == 2  # a majority of 2
    no_lens = task("a") | {"kind": "lens", "subtasks": []}
    lens_and_subtasks = lens_dict("b") | {"subtasks": task("x")["subtasks"]}
    lens_without_kind = lens_dict("c") | {"kind": "agents"}
    twice = lens_dict("d", members=[{"id": "m9"}, {"id": "m9"}])
    too_many = lens_dict("e", min_quorum=5)
    scoped = lens_dict("f") | {"files_scope": ["src/**"]}
    typo = lens_dict("g", merge_mod="faithful")
    path = write(tmp_path, plan_dict(no_lens, lens_and_subtasks, lens_without_kind, twice, too_many, scoped, typo))
    with pytest.raises(PlanError) as info:
        load_plan(path, ROLES)
    errors = [e.removeprefix(f"{path}: ") for e in info.value.errors]
    assert "tasks.0: kind: lens needs a 'lens' object (question and members)" in errors
    assert "tasks.1: a lens task has members, not subtasks" in errors
    assert any(e.startswith("tasks.2: ") and e.endswith("'lens' needs kind: lens") for e in errors)
    assert "tasks.3.lens: lens member id(s) used twice: m9" in errors
    assert "tasks.4.lens: min_quorum 5 is more than the 2 member(s)" in errors
    assert "tasks.5: a lens task writes nothing to merge: no isolate, files_scope or verify" in errors
    assert "tasks.6.lens.merge_mod: unknown key (did you mean 'merge_mode'?)" in errors


def test_lens_members_share_the_id_space_of_tasks_and_subtasks(tmp_path: Path) -> None:
    path = write(tmp_path, plan_dict(task("a"), lens_dict("review", members=[{"id": "a-s0"}, {"id": "m2"}])))
    with pytest.raises(PlanError, match="duplicate id 'a-s0': used by subtask 'a-s0' of task 'a' and by lens member"):
        load_plan(path, ROLES)
