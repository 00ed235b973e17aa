"""Wake long-polling approval waiters when an approval is resolved, in any gateway process, and tell
the console (and webhooks) about new and resolved approvals.

One pub/sub subscription per process fans messages out to in-process events. If the subscription
drops (Redis restart), waiters still wake on their own short re-check interval, so a lost message
delays an answer by at most that interval, never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from acteon_core import contract as c
from gateway.store import approvals, keys
from gateway.store.backend import Backend

log = logging.getLogger("acteon.gateway.notify")
RECHECK_S = 1.0
PING_AFTER_S = 5.0  # a subscription silent this long is pinged …
PING_ANSWER_S = 3.0  # … and given this long to answer


class Notifier:
    def __init__(self, backend: Backend, on_rules: Callable[[], Awaitable[None]]) -> None:
        self._backend = backend
        self._on_rules = on_rules
        # Called with (approval id, created: True | resolved: False) for every approval message.
        self.on_approval: list[Callable[[str, bool], None]] = []
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._listen(), name="acteon-notify")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def wake(self, approval_id: str) -> None:
        for ev in self._waiters.get(approval_id, ()):
            ev.set()

    async def wait(self, approval_id: str, timeout_s: float) -> None:
        """Return when woken for ``approval_id`` or after ``min(timeout_s, RECHECK_S)``."""
        ev = asyncio.Event()
        self._waiters.setdefault(approval_id, set()).add(ev)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), timeout=max(0.0, min(timeout_s, RECHECK_S)))
        finally:
            group = self._waiters.get(approval_id)
            if group is not None:
                group.discard(ev)
                if not group:
                    del self._waiters[approval_id]

    async def await_resolution(self, approval_id: str, timeout_s: float) -> dict[str, Any]:
        """The approval as soon as it leaves ``pending``, or as it stands after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            view = await approvals.get(self._backend, approval_id, shown=False)
            remaining = deadline - time.monotonic()
            if view["status"] != c.APPROVAL_PENDING or remaining <= 0:
                return approvals.with_shown(view)  # rendered once, for the answer, not on every re-check
            await self.wait(approval_id, remaining)

    async def _listen(self) -> None:
        delay = 0.2
        failed = False
        while True:
            pubsub = None
            try:
                pubsub = await self._backend.pubsub(again=failed)
                async with asyncio.timeout(self._backend.timeout_s + 1):
                    await pubsub.subscribe(keys.NOTIFY_CHANNEL)
                delay = 0.2
                await self._receive(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis gone: retry with backoff, waiters fall back to re-checks
                log.debug("notify subscription lost: %s", e)
                failed = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        async with asyncio.timeout(1.0):
                            await pubsub.aclose()

    async def _receive(self, pubsub: Any) -> None:
        """Handle messages until the subscription fails. A master that hangs (a network cut, a frozen process)
        never closes the connection, and after a failover the subscription would wait on it for good: so when
        nothing has come for a while it is pinged, and a ping with no answer ends it (the next one is made
        through the sentinels, to the master in place now)."""
        heard, pinged = time.monotonic(), 0.0
        while True:
            msg = await pubsub.get_message(timeout=RECHECK_S)
            now = time.monotonic()
            if msg is not None:
                heard, pinged = now, 0.0
                await self._handle(msg)
            elif pinged and now - pinged > PING_ANSWER_S:
                raise ConnectionError("the notification subscription stopped answering")
            elif not pinged and now - heard > PING_AFTER_S:
                await pubsub.ping()
                pinged = now

    async def _handle(self, msg: dict[str, Any]) -> None:
        if msg.get("type") != "message":
            return  # subscribe confirmations, pongs
        data = str(msg.get("data", ""))
        if data == "rules":
            await self._on_rules()
        elif data.startswith("approval:"):
            approval_id = data.split(":", 1)[1]
            self.wake(approval_id)
            for listener in self.on_approval:
                listener(approval_id, False)
        elif data.startswith("approval-new:"):
            for listener in self.on_approval:
                listener(data.split(":", 1)[1], True)
