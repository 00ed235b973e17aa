"""Where each task of a run works, and what happens to its work when it ends.

In a git repository every task works in a worktree of its own under the run's state, never in the
user's checkout: an *isolated* task (``isolate``, by default every role that writes files) on its own
branch, merged through the merge queue when it ends; any other task in a detached view of the integration
head (it sees its parents' merged work; nothing it does is merged). Outside git, tasks work in the
working directory, and asking for ``isolate`` there is an error rather than a silent fallback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hook.install import write_atomic
from orchestrator.plan import Plan, PlanError, Task
from orchestrator.roles import Role, expand_tools
from orchestrator.scheduler import TaskOutcome
from orchestrator.workspace.git import repository_root
from orchestrator.workspace.merging import MergeMode, MergeQueue, Verifier
from orchestrator.workspace.worktrees import RunWorkspace, Worktree

# Tools that change files by themselves; a role with one of them "writes" (Bash alone runs builds and tests).
_FILE_WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace"})


def writes_files(role: Role) -> bool:
    return bool(_FILE_WRITING_TOOLS.intersection(expand_tools(role.allowed_tools)))


def is_isolated(task: Task, role: Role | None, in_repository: bool) -> bool:
    if task.isolate is not None:
        return task.isolate
    return in_repository and role is not None and writes_files(role)


def check_isolation(plan: Plan) -> None:
    """``isolate: true`` (or a file scope, or verify commands, which need a branch) outside a git repository is
    an error naming the tasks."""
    if repository_root(Path(plan.scope.working_directory)) is not None:
        return
    errors = [f"task '{t.id}' asks for isolate: true, but {plan.scope.working_directory} is not in a git "
              "repository (worktrees need one: run `git init` and commit, or drop isolate)"
              for t in plan.tasks if t.isolate]
    errors += [f"task '{t.id}' has verify commands, which run on the merged tree of a git repository; "
               f"{plan.scope.working_directory} is not in one" for t in plan.tasks if t.verify and not t.isolate]
    if errors:
        raise PlanError(errors)


Journal = Callable[..., None]  # record(event_type_name, **fields)


class TaskPlaces:
    """The run's worktrees and merge queue, as the runner uses them."""

    def __init__(self, ws: RunWorkspace, roles: dict[str, Role], *, mode: MergeMode, verifier: Verifier,
                 reports: Path) -> None:
        self.ws = ws
        self.roles = roles
        self.queue = MergeQueue(ws, mode=mode, verifier=verifier)
        self.reports = reports  # run folder directory for conflict and verify reports

    def isolated(self, task: Task) -> bool:
        return is_isolated(task, self.roles.get(task.assigned_role), True)

    async def prepare(self, task: Task, attempt: str | None = None) -> Worktree:
        """The task's worktree; ``attempt`` names a retry's own branch and worktree (``<task>.retry<n>``), so
        the attempt that failed stays as it was."""
        return await asyncio.to_thread(self.ws.worktree, attempt or task.id, isolated=self.isolated(task))

    async def finish(self, task: Task, place: Worktree, on_merge: Callable[[str, dict[str, Any]], None],
                     attempt: str | None = None) -> TaskOutcome:
        """An isolated task whose subtasks all succeeded: its commits go through the merge queue."""
        if place.branch is None:
            return TaskOutcome("done")
        key = attempt or task.id
        count = await asyncio.to_thread(self.ws.new_commits, key)
        if count == 0:
            left = await asyncio.to_thread(self.ws.uncommitted, place.top)
            extra = f"; {len(left)} uncommitted change(s) left in {place.top}" if left else ""
            return TaskOutcome("failed", f"exited 0 with nothing committed on {place.branch}{extra}")
        on_merge("started", {"branch": place.branch, "integration": await asyncio.to_thread(self.ws.head)})
        result = await self.queue.land(key, list(task.verify))
        report = self.reports / f"{key}.json"
        if result.status != "merged":
            self.reports.mkdir(parents=True, exist_ok=True)
            write_atomic(report, result.to_json())
        on_merge("finished", {"result": result.status, "before": result.before, "after": result.after,
                              "report": str(report) if result.status != "merged" else "",
                              "conflict": result.conflict, "summary": result.summary()})
        if result.status == "merged":
            return TaskOutcome("done", result.summary())
        return TaskOutcome(result.status, result.summary())
