"""Tell the gateway what the run's tasks are doing, for the operator console's run page.

State changes are queued and posted in order by one background task: the scheduler never waits for the
gateway, and a gateway that is briefly away costs a few retried posts, never the run. The journal stays the
record; these posts are a live copy for people watching.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from orchestrator.gatewayclient import GatewayClient, GatewayError

QUEUE_MAX = 10_000


class StateReporter:
    def __init__(self, client: GatewayClient, run_id: str) -> None:
        self.client, self.run_id = client, run_id
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_MAX)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._post_all(), name="acteon-state-reporter")

    def task(self, task_id: str, state: str, reason: str = "") -> None:
        self._put({"task_id": task_id, "state": state, "reason": reason or None})

    def run_state(self, state: str, reason: str = "") -> None:
        self._put({"task_id": "", "state": state, "reason": reason or None})

    def run_ended(self, state: str, reason: str = "") -> None:
        self._put({"task_id": "", "state": state, "reason": reason or None, "final": True})

    def _put(self, change: dict[str, Any]) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a console that misses a change still has the journal
            self._queue.put_nowait(change)

    async def _post_all(self) -> None:
        while True:
            change = await self._queue.get()
            for delay in (0.2, 0.5, 1.0, 2.0, None):
                try:
                    await self.client.post_state(self.run_id, change)
                    break
                except GatewayError:
                    if delay is None:
                        break
                    await asyncio.sleep(delay)
            self._queue.task_done()

    async def close(self, timeout_s: float = 3.0) -> None:
        """Post what is queued (bounded: a gone gateway does not hold up the end of the run), then stop."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), timeout_s)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
