"""A small live plan for the refiner tests: one task in every interesting state."""

from __future__ import annotations

from typing import Any

from orchestrator.plan.model import Plan

STATUSES: dict[str, str] = {
    "design": "done",  # planner: may delegate to coder, researcher, reviewer, executor
    "build": "running",
    "test": "pending",
    "review": "ready",
    "lint": "failed",
    "docs": "blocked",
    "extra": "skipped",
}


def task(task_id: str, role: str, deps: list[str] | None = None, priority: int = 100) -> dict[str, Any]:
    return {"id": task_id, "name": f"{task_id} step", "assigned_role": role, "priority": priority,
            "depends_on": deps or [], "subtasks": [{"id": f"{task_id}-1", "name": "do", "prompt": f"do {task_id}"}]}


def make_plan(*extra: dict[str, Any], agent_roles: list[str] | None = None) -> Plan:
    return Plan.model_validate({
        "id": "p1", "objective": "ship the feature", "scope": {"working_directory": "/tmp/ws"},
        "success_criteria": ["tests pass"], "agent_roles": agent_roles or [],
        "tasks": [
            task("design", "planner"),
            task("build", "coder", ["design"]),
            task("test", "executor", ["build"]),
            task("review", "reviewer", ["design"]),
            task("lint", "coder"),
            task("docs", "coder", ["lint"]),
            task("extra", "researcher"),
            *extra,
        ],
    })
