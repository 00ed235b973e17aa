"""The plan file: read and validated (every problem reported at once, a relative working directory made
absolute against the file's folder), written atomically, approved in place (only the approval fields)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from acteon_core.files import write_atomic
from orchestrator.plan.model import Plan, PlanError, Task, approve, describe_error, validate_plan


def load_plan(path: Path, known_roles: set[str], runnable: Callable[[Plan], list[str]] | None = None) -> Plan:
    """Read, parse and validate a plan file. Raises :class:`PlanError` naming the file. ``runnable``: more
    checks of the plan (what it needs to run here), reported with the others in one list."""
    extra = runnable or (lambda _plan: [])
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PlanError([f"{source}: cannot read: {e}"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise PlanError([f"{source}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"]) from None
    try:
        plan = Plan.model_validate(data)
    except ValidationError as e:
        schema = [f"{source}: {describe_error(err, model=Plan)}" for err in e.errors()]
        raise PlanError(schema + [f"{source}: {m}" for m in _problems_beside(data, known_roles, extra)]) from None
    try:
        validate_plan(plan, known_roles)
        problems = extra(plan)
    except PlanError as e:
        problems = e.errors + extra(plan)
    if problems:
        raise PlanError([f"{source}: {m}" for m in problems])
    return with_absolute_workdir(plan, path)


def _problems_beside(data: Any, known_roles: set[str], extra: Callable[[Plan], list[str]]) -> list[str]:
    """The whole-plan problems of a plan whose schema check failed — duplicate ids, unknown roles,
    dependencies, cycles among the tasks that are well formed — so one `plan validate` reports everything
    rather than one stage at a time."""
    raw_tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(raw_tasks, list):
        return []
    tasks = []
    for raw in raw_tasks[:10_000]:
        try:
            tasks.append(Task.model_validate(raw))
        except ValidationError:
            continue  # its own errors are in the schema list
    if not tasks:
        return []
    raw_ids = {t.get("id") for t in raw_tasks if isinstance(t, dict)}
    partial = Plan.model_construct(tasks=tasks, agent_roles=[r for r in data.get("agent_roles", [])
                                                              if isinstance(r, str)]
                                   if isinstance(data.get("agent_roles"), list) else [])
    try:
        validate_plan(partial, known_roles)
    except PlanError as e:
        # a dependency on a task that is there but malformed is not "unknown": its own error says what is wrong
        return [m for m in e.errors if not any(f"unknown task '{i}'" in m for i in raw_ids
                                               if isinstance(i, str))] + extra(partial)
    return extra(partial)


def with_absolute_workdir(plan: Plan, path: Path) -> Plan:
    """The plan with its working directory made absolute against the plan file's folder (`init` writes
    `"."`): the gateway judges every call in an absolute directory, and a run may start from anywhere."""
    workdir = plan.scope.working_directory
    if Path(workdir).is_absolute():
        return plan
    # normpath, not resolve(): `..` is folded as written, and a symlinked project keeps the path the user knows
    absolute = os.path.normpath(Path.cwd() / path.parent / workdir)
    return plan.model_copy(update={"scope": plan.scope.model_copy(update={"working_directory": absolute})})


def save_plan(plan: Plan, path: Path) -> None:
    """Write the plan atomically: readers see the old file or the new one, never half of one."""
    write_atomic(path, plan.model_dump(mode="json"), new_mode=0o644)


def approve_file(path: Path, plan: Plan, by: str, now: datetime) -> Plan:
    """Mark the plan file approved, changing only the approval fields of the file as written (its working
    directory stays as the author wrote it, keys keep their order); returns the approved plan."""
    approved = approve(plan, by, now)
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(approved.model_dump(mode="json", include={"status", "approved_by", "approved_at", "sequence"}))
    write_atomic(path, data, new_mode=0o644)
    return approved
