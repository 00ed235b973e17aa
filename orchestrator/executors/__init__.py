"""Where a subtask's agent runs.

    base.py      the Executor interface and the subtask's description that crosses machines
    local.py     LocalExecutor: in this process, on this machine (the default; nothing but Python)
    temporal/    TemporalExecutor and the worker: each subtask attempt a Temporal workflow whose one
                 heartbeating activity owns the agent's process group on a worker machine

The scheduler, journal, refiner, memory and twin stay in the orchestrator whatever the executor: only
the execution of one subtask moves. Temporal is imported only when that executor is chosen (it is an
optional extra, ``acteon-swarm[distributed]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # nothing imported at module level: Temporal's workflow sandbox imports this package
    from orchestrator.executors.base import Executor, ExecutorConfig


def make_executor(cfg: ExecutorConfig) -> Executor:
    if cfg.kind == "temporal":
        from orchestrator.executors.temporal.executor import TemporalExecutor

        return TemporalExecutor(cfg)
    from orchestrator.executors.local import LocalExecutor

    return LocalExecutor()
