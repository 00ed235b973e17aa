"""Where each task of a run works, and what happens to its work when it ends.

In a git repository every task works in a worktree of its own under the run's state, never in the
user's checkout: an *isolated* task (``isolate``, by default every role that writes files) on its own
branch, merged through the merge queue when it ends; any other task in a detached view of the integration
head (it sees its parents' merged work; nothing it does is merged). Outside git, tasks work in the
working directory, and asking for ``isolate`` there is an error rather than a silent fallback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic
from acteon_core.vocabulary import FILE_WRITING_TOOLS
from orchestrator import events as E
from orchestrator.config import WorktreesSection
from orchestrator.gatewayclient import GatewayClient
from orchestrator.plan.model import Plan, PlanError, Task
from orchestrator.roles import Role, expand_tools
from orchestrator.run.scheduler import TaskOutcome
from orchestrator.workspace.claims import Held, scope_claim
from orchestrator.workspace.git import repository_root
from orchestrator.workspace.localclaims import LocalClaims
from orchestrator.workspace.merging import MergeQueue, Verifier
from orchestrator.workspace.worktrees import RunWorkspace, Worktree


def writes_files(role: Role) -> bool:
    return bool(FILE_WRITING_TOOLS.intersection(expand_tools(role.allowed_tools)))


def is_isolated(task: Task, role: Role | None, in_repository: bool) -> bool:
    if task.lens is not None:
        return False  # a lens swarm's members share a detached view: nothing of a lens task is merged
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


@dataclass
class Attempts:
    """What a resume learns from the journal about tasks in worktrees: merges that began and did not end (the
    merge is finished, the work not redone), and retries a person asked for (``acteon-swarm task retry``)."""

    reports_dir: Path  # the run folder's reports/ (RunDir.reports_dir)
    merge_pending: set[str] = field(default_factory=set)
    retries: dict[str, tuple[str, str]] = field(default_factory=dict)  # task -> (attempt name, failed report)
    count: dict[str, int] = field(default_factory=dict)  # retries so far, per task
    by_refiner: set[str] = field(default_factory=set)  # tasks the refiner retried (once each at most)

    @classmethod
    def from_journal(cls, past: list[Any], reports_dir: Path) -> Attempts:
        found = cls(reports_dir)
        for ev in past:
            if isinstance(ev, E.Merge):
                (found.merge_pending.add if ev.phase == "started" else found.merge_pending.discard)(ev.task_id)
            elif isinstance(ev, E.RetryRequested):
                found.add(ev.task_id, ev.report)
            elif isinstance(ev, E.RefinerDecision) and ev.action == "retry" and not ev.fallback:
                for task_id in ev.retried:
                    found.add(task_id, found.report_path_after(task_id))
                    found.by_refiner.add(task_id)
            elif isinstance(ev, E.TaskStatusChanged) and ev.status in ("conflict", "verify_failed"):
                found.retries.pop(ev.task_id, None)  # a retry asked for before this attempt is used up
        return found

    def add(self, task_id: str, report: str) -> str:
        """One more attempt of the task; returns its name."""
        self.count[task_id] = self.count.get(task_id, 0) + 1
        name = attempt_name(task_id, self.count[task_id])
        self.retries[task_id] = (name, report)
        return name

    def report_path_after(self, task_id: str) -> str:
        """Where the report of the task's latest attempt is (``reports/<attempt>.json``, as ``finish`` writes
        it), counting retries asked for by people and by the refiner alike."""
        return str(self.reports_dir / f"{attempt_name(task_id, self.count.get(task_id, 0))}.json")

    def requeue(self, statuses: dict[str, str], plan: Plan) -> None:
        """A retried task runs again; its blocked dependents wait for it again instead of staying blocked."""
        for task_id in self.retries:
            statuses[task_id] = "pending"
            for dependent in _dependents(plan, task_id):
                if statuses.get(dependent) == "blocked":
                    statuses[dependent] = "pending"

    def name(self, task_id: str) -> str | None:
        """The branch and worktree name of the task's current attempt (None: the first, named after the task)."""
        return self.retries[task_id][0] if task_id in self.retries else None

    def report(self, task_id: str) -> str | None:
        return self.retries[task_id][1] if task_id in self.retries else None


def attempt_name(task_id: str, n: int) -> str:
    """The branch, worktree and report name of a task's attempt: the task's id, then ``<task>.retry<n>``."""
    return f"{task_id}.retry{n}" if n else task_id


def _dependents(plan: Plan, task_id: str) -> list[str]:
    found: list[str] = []
    frontier = [task_id]
    while frontier:
        current = frontier.pop()
        for t in plan.tasks:
            if current in t.depends_on and t.id not in found:
                found.append(t.id)
                frontier.append(t.id)
    return found


def retry_note(report_path: str, max_chars: int = 3000) -> str:
    """What a retried task is told about the attempt that failed (its conflict or verify report), as data."""
    try:
        report = json.loads(Path(report_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "An earlier attempt of this task could not be merged (its report is unreadable)."
    if report.get("status") == "conflict" and report.get("conflict"):
        conflict = report["conflict"]
        text = (f"An earlier attempt of this task conflicted with work merged since, in "
                f"{', '.join(conflict.get('files', []))}. You start again from the current integration head; "
                f"keep the other side's changes. Conflicting hunks: {json.dumps(conflict.get('hunks', []))}")
    else:
        failed = [v for v in report.get("verify", []) if not v.get("ok")]
        text = ("An earlier attempt of this task failed its verify commands on the merged tree: "
                + json.dumps(failed))
    return text[:max_chars]


class TaskPlaces:
    """The run's worktrees, scope claims and merge queue, as the runner uses them."""

    def __init__(self, ws: RunWorkspace, roles: dict[str, Role], *, settings: WorktreesSection, verifier: Verifier,
                 reports: Path) -> None:
        self.ws = ws
        self.roles = roles
        self.settings = settings
        self.queue = MergeQueue(ws, mode=settings.merge_mode, verifier=verifier)
        self.reports = reports  # run folder directory for conflict and verify reports

    @contextlib.asynccontextmanager
    async def claimed(self, task: Task, place: Worktree, *, owner: str, client: GatewayClient,
                      waiting: Callable[[str], None], lapsed: Callable[[str], None]) -> AsyncIterator[Held | None]:
        """An isolated task's file scope, claimed (locally and in the gateway) while the block runs; None for a
        task without a declared scope or in a view. Raises ``ClaimRefused`` when the run chose to fail."""
        if place.branch is None or not task.files_scope:
            yield None
            return
        repo = await asyncio.to_thread(self.ws.identity)
        async with scope_claim(client, repo=repo, owner=owner, globs=list(task.files_scope),
                               ttl_s=self.settings.claim_ttl_seconds, wait=self.settings.on_claim_conflict == "wait",
                               waiting=waiting, lapsed=lapsed, local=LocalClaims(Path(repo))) as held:
            yield held

    @staticmethod
    def binding(task: Task, agent_id: str, place: Worktree, held: Held | None) -> dict[str, Any]:
        """What an agent's own key holds it to: its worktree, an isolated task's scope, the claim's token."""
        binding: dict[str, Any] = {"agent_id": agent_id, "root": str(place.top),
                                   "files_scope": list(task.files_scope) if place.branch else []}
        if held is not None:
            binding["claim"] = held.ref()
        return binding

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
