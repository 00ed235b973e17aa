"""The Executor interface: run one subtask's agent session somewhere, and say how it went."""

from __future__ import annotations

from typing import Protocol

from orchestrator.config import ExecutorSection as ExecutorConfig
from orchestrator.engines.base import SubtaskContext, SubtaskResult

__all__ = ["Executor", "ExecutorConfig"]


class Executor(Protocol):
    name: str

    async def start(self) -> None:
        """Connect (a no-op for the local executor)."""

    async def run(self, ctx: SubtaskContext, engine: str, *, generation: int = 0) -> SubtaskResult:
        """Run one subtask to its end; when cancelled (the run's cancel), return only once its agent is gone.
        ``generation`` is the task's attempt (a retry by the refiner or a person): each is its own unit of work,
        and a resume asks for the same one again."""

    async def stop(self, run_id: str, agent_id: str) -> bool:
        """Stop one agent that runs elsewhere (the monitor's kill); False when this executor runs none such."""

    async def close(self) -> None: ...
