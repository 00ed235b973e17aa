"""``acteon-swarm worker``: serve a task queue on this machine, at most ``slots`` agents at once.

The worker holds two credentials: its Temporal access (mTLS files or an API key) and its worker key for
the gateway (``ACTEON_WORKER_KEY``, read once at start and removed from the environment its agents
inherit). It never holds the admin key or the store's address. Before taking work it kills the agent
groups a previous life of the worker left running (a worker killed with ``kill -9`` leaves its agents
running in every engine measured; with systemd, ``KillMode=control-group`` does the same).
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import sys
from datetime import timedelta
from pathlib import Path

from temporalio.worker import Worker

from acteon_core import contract as c
from orchestrator.executors.base import ExecutorConfig
from orchestrator.executors.temporal.activity import SubtaskActivity
from orchestrator.executors.temporal.connect import connect
from orchestrator.executors.temporal.workflow import SubtaskWorkflow

POLLERS_MAX = 32


async def serve(cfg: ExecutorConfig, *, queue: str, slots: int, gateway_url: str, worker_key: str,
                state_dir: Path, ready: asyncio.Event | None = None) -> None:
    activity = SubtaskActivity(gateway_url=gateway_url, worker_key=worker_key, state_dir=state_dir,
                               base_env=dict(os.environ))
    reaped = activity.ledger.reap()
    if reaped:
        print(f"acteon-swarm worker: killed {len(reaped)} agent group(s) left by a previous run: {reaped}",
              file=sys.stderr)
    client = await connect(cfg)
    worker = Worker(
        client, task_queue=queue, workflows=[SubtaskWorkflow], activities=[activity.run_subtask],
        max_concurrent_activities=slots,
        # More pollers than the SDK's default five when there are many slots: a burst of subtasks is taken
        # up by as many concurrent polls instead of five at a time (measured: bench/executor.py).
        max_concurrent_activity_task_polls=min(POLLERS_MAX, max(5, slots // 2)),
        max_concurrent_workflow_task_polls=min(POLLERS_MAX, max(5, slots // 2)),
        # The heartbeat is the lease: at least one a second reaches the server (and brings a cancel back).
        max_heartbeat_throttle_interval=timedelta(seconds=1), default_heartbeat_throttle_interval=timedelta(seconds=1),
        # Every activity goes through the queue, so any worker with a free slot takes it.
        disable_eager_activity_execution=True,
        graceful_shutdown_timeout=timedelta(seconds=5),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with worker:
        print(f"acteon-swarm worker: serving {queue!r} with {slots} slot(s) on {cfg.address}", file=sys.stderr,
              flush=True)
        if ready is not None:
            ready.set()
        await stop.wait()
    await activity.client.aclose()


PR_SET_DUMPABLE = 4


def harden() -> bool:
    """Keep this process's memory to itself: with ``PR_SET_DUMPABLE`` 0 no other process of the same user —
    the agents this worker starts run as it does unless the operator gives them a user of their own — can
    read its ``/proc/<pid>/environ`` (where ``ACTEON_WORKER_KEY`` stays after it is removed from
    ``os.environ``) or its memory, or attach to it. Linux only; False where it could not be set."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def take_worker_key(key_file: Path | None) -> str:
    """The worker key, from ``--key-file`` or ``ACTEON_WORKER_KEY`` (then removed from this process's
    environment, which agents would otherwise inherit)."""
    key = os.environ.pop(c.ENV_WORKER_KEY, "")
    if key_file is not None:
        key = key_file.read_text(encoding="utf-8").strip()
    return key
