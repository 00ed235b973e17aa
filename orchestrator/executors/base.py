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
        """Run one subtask to its end. ``generation`` counts earlier runs of the same agent id in this run
        (a refiner's retry runs it again): each is its own unit of work."""

    async def stop(self, run_id: str, agent_id: str) -> bool:
        """Stop one agent that runs elsewhere (the monitor's kill); False when this executor runs none such."""

    async def cancel(self, run_id: str) -> None:
        """Stop every subtask of the run this executor runs, returning once their agents are gone."""

    async def close(self) -> None: ...
