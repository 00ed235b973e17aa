"""What a lens task and the adversarial loop use of the run they are part of: its parts, and the steps of its
flow they take part in. ``runner.Run`` is one; the protocol keeps them from importing it (no import circle)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from orchestrator import rundir as R
from orchestrator.adversarial.loop import Gate
from orchestrator.config import SwarmConfig
from orchestrator.engines.base import Seat
from orchestrator.plan.model import Plan, Task
from orchestrator.roles import Role
from orchestrator.run.handoffs import Handoffs
from orchestrator.run.options import RunOptions
from orchestrator.run.scheduler import TaskOutcome
from orchestrator.run.sessions import Sessions
from orchestrator.watch.watcher import Watcher
from orchestrator.workspace.claims import Held
from orchestrator.workspace.worktrees import Worktree


class RunHost(Protocol):
    plan: Plan
    cfg: SwarmConfig
    opts: RunOptions
    roles: dict[str, Role]
    tasks: dict[str, Task]
    dir: R.RunDir
    sessions: Sessions
    handoffs: Handoffs
    watcher: Watcher | None
    fixes: dict[str, tuple[Gate, Path]]  # fix task of the adversarial loop -> its eval gate and challenge file

    @property
    def seat(self) -> Seat: ...

    def note(self, text: str) -> None: ...

    def phase(self, text: str) -> None: ...

    def max_agents(self) -> int: ...

    def lens_parallel(self, task: Task) -> int: ...

    async def work(self, task: Task, place: Worktree | None, held: Held | None) -> TaskOutcome:
        """A task's agents, then its merge (as for any task of the plan)."""
