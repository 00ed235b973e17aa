"""The in-process executor: the agent runs on this machine, a child of this process (the default)."""

from __future__ import annotations

from orchestrator.engines import get_engine
from orchestrator.engines.base import SubtaskContext, SubtaskResult


class LocalExecutor:
    name = "local"

    async def start(self) -> None:
        return None

    async def run(self, ctx: SubtaskContext, engine: str, *, generation: int = 0) -> SubtaskResult:
        return await get_engine(engine).run_subtask(ctx)

    async def stop(self, run_id: str, agent_id: str) -> bool:
        return False  # the runner kills the groups of local agents itself

    async def close(self) -> None:
        return None
