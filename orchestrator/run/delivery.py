"""Where a task's work lands when the run is in a git repository: the run's worktrees and merge queue opened
(the user's checkout left as it is), each verify command run on the merged candidate through the gateway,
and each merge journaled."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.adversarial.loop import EVAL_GATE
from orchestrator.config import SwarmConfig
from orchestrator.plan.model import Task
from orchestrator.roles import Role
from orchestrator.run.scheduler import TaskOutcome
from orchestrator.run.sessions import Sessions
from orchestrator.workspace.merging import VerifyResult
from orchestrator.workspace.tasks import TaskPlaces
from orchestrator.workspace.worktrees import RunWorkspace, Worktree
from orchestrator.workspace.worktrees import identity_env as git_identity


class Delivery:
    def __init__(self, run_dir: R.RunDir, cfg: SwarmConfig, roles: dict[str, Role], sessions: Sessions, *,
                 note: Callable[[str], None], eval_gate: Callable[[str, Path], Awaitable[VerifyResult]]) -> None:
        """``eval_gate``: judges a fix of the adversarial loop on its merged candidate (its verify step)."""
        self.dir, self.cfg, self.roles, self.sessions = run_dir, cfg, roles, sessions
        self.note, self.eval_gate = note, eval_gate

    async def open(self, workspace: RunWorkspace) -> None:
        base = await asyncio.to_thread(workspace.start)
        self.sessions.places = TaskPlaces(workspace, self.roles, settings=self.cfg.worktrees, verifier=self._verify,
                                          reports=self.dir.reports_dir)
        dirty = await asyncio.to_thread(workspace.dirty)
        self.dir.write_run(repository=str(workspace.repo), integration_branch=workspace.integration, base=base)
        self.dir.record(E.Note, kind="workspace", data={"repository": str(workspace.repo), "base": base,
                                                        "integration_branch": workspace.integration,
                                                        "worktrees": str(workspace.root), "dirty": dirty})
        if dirty:
            self.note(f"your checkout has uncommitted changes: the run works from your last commit ({base[:12]}) "
                      "and does not see them; they stay untouched")

    async def land(self, task: Task, place: Worktree) -> TaskOutcome:
        """The task's branch through the merge queue (verify commands on the merged candidate first)."""
        assert self.sessions.places is not None
        return await self.sessions.places.finish(task, place, functools.partial(self._on_merge, task.id),
                                                 self.sessions.attempts.name(task.id))

    async def _verify(self, task_id: str, commands: list[str], where: Path) -> list[VerifyResult]:
        """A task's verify commands on the merged candidate, each dispatched to the gateway like any command
        of the plan, stopping at the first that fails."""
        results: list[VerifyResult] = []
        for n, command in enumerate(commands, 1):
            if command == EVAL_GATE and task_id in self.sessions.fixes:
                results.append(await self.eval_gate(task_id, where))
            else:
                agent_id = f"{task_id}.verify-{n}"
                result = await self.sessions.run_command(
                    command, where, agent_id=agent_id, task_id=task_id, subtask_id=f"verify-{n}",
                    timeout_s=self.cfg.worktrees.verify_timeout_seconds, extra_env=git_identity(agent_id),
                    journaled=True)
                results.append(VerifyResult(command, result.ok, "" if result.ok else result.detail[:1000]))
            if not results[-1].ok:
                break
        return results

    def _on_merge(self, task_id: str, phase: str, data: dict[str, Any]) -> None:
        self.dir.record(E.Merge, task_id=task_id, phase=phase, branch=data.get("branch", ""),
                        result=data.get("result"), before=data.get("before", data.get("integration", "")),
                        after=data.get("after", ""), report=data.get("report", ""),
                        detail=data.get("summary", "")[:2000])
        if phase == "finished" and data.get("result") != "merged":
            self.note(f"{task_id}: {data.get('summary', '')}")
