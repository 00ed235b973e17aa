"""Live updates for the console: one reader per source per process, fanned out to every open page.

- **Approvals** come from the gateway's pub/sub channel (a new approval is published by the decision
  script, a resolution by the resolve script). Each change is read and rendered once, then handed to every
  subscriber whose filters it passes.
- **A run's feed** (decisions and task states) comes from the run's two Redis streams, read by one
  ``XREAD BLOCK`` loop per run with subscribers; the SSE event id is the pair of stream ids, so a page
  that reconnects with ``Last-Event-ID`` first gets what it missed, read from the streams, and nothing
  twice.

A subscriber whose queue fills up (a stalled browser) is dropped rather than allowed to hold memory or
slow the others; its browser reconnects and starts from its last event id.

Fan-out is what costs: each event is encoded once and the same bytes go to every page; a run feed
gathers what arrives within ``COALESCE_S`` into one write per page (at 100 decisions a second and fifty
open pages that is the difference between 5,000 writes a second and 200, on the cores that decide); and
the pages are written a few at a time, spread over that interval, so that a decision never waits behind
a whole burst of writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from sse_starlette import ServerSentEvent

from gateway.console import views
from gateway.errors import GatewayError
from gateway.metrics import Metrics
from gateway.store import approvals, audit, keys
from gateway.store.backend import Backend

log = logging.getLogger("acteon.gateway.console")
QUEUE_MAX = 2000
BACKLOG_MAX = 1000  # events replayed to a reconnecting page, per stream
BLOCK_MS = 500
COALESCE_S = 0.25  # a busy run's events reach its pages in batches at most this far apart
FANOUT_GROUP = 1  # pages written to at once; the groups are spread over COALESCE_S
Chunk = bytes  # one or more encoded SSE events


@dataclass(eq=False)
class Subscriber:
    accepts: Callable[[dict[str, Any]], bool] = lambda _a: True  # which approvals this page shows
    can_decide: bool = False  # its approvals are rendered with the decision buttons
    queue: asyncio.Queue[Chunk | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_MAX))
    overflowed: bool = False

    def put(self, event: Chunk) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)  # wakes the stream, which then ends

    async def events(self) -> AsyncIterator[Chunk]:
        """What to send, joined: whatever queued up while the last write went out leaves in one write."""
        while True:
            event = await self.queue.get()
            if event is None:
                return
            parts = [event]
            while not self.queue.empty():
                more = self.queue.get_nowait()
                if more is None:
                    yield b"".join(parts)
                    return
                parts.append(more)
            yield b"".join(parts)


def _split_id(last: str | None) -> tuple[str, str]:
    """The two stream positions in a run feed's event id (``<audit id>|<state id>``)."""
    if not last or "|" not in last:
        return "$", "$"
    a, _, s = last.partition("|")
    ok = all(p == "0" or (p.count("-") == 1 and p.replace("-", "").isdigit()) for p in (a, s))
    return (a, s) if ok else ("$", "$")


class RunFeed:
    """One run's decisions and task states, read once for every page showing the run."""

    def __init__(self, backend: Backend, run_id: str) -> None:
        self.backend, self.run_id = backend, run_id
        self.subscribers: set[Subscriber] = set()
        self.positions = ("$", "$")  # of the last entry handed out
        self.started_at = ("0", "0")  # the streams' ends when the feed started
        self.task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    def start(self) -> None:
        self.task = asyncio.create_task(self._read(), name=f"acteon-console-feed-{self.run_id}")

    async def _latest(self) -> tuple[str, str]:
        r = self.backend.redis
        ids = []
        for stream in (keys.audit(self.run_id), keys.run_state(self.run_id)):
            last = await self.backend.call(r.xrevrange(stream, "+", "-", count=1))
            ids.append(last[0][0] if last else "0")
        return ids[0], ids[1]

    async def _read(self) -> None:
        r = self.backend.redis
        delay = 0.2
        while True:
            try:
                if not self.ready.is_set():
                    self.positions = self.started_at = await self._latest()
                    self.ready.set()
                a, s = self.positions
                found: Any = await r.xread({keys.audit(self.run_id): a, keys.run_state(self.run_id): s},
                                           count=500, block=BLOCK_MS)
                delay = 0.2
                batch = [self._event(stream, entry_id, fields).encode()
                         for stream, entries in found or () for entry_id, fields in entries]
                if batch:
                    await self._fan_out(b"".join(batch))
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis gone: wait and try again; pages keep their connection
                log.debug("console feed %s: %s", self.run_id, e)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _fan_out(self, chunk: Chunk) -> None:
        """Hand ``chunk`` to every page, a few pages at a time spread over ``COALESCE_S``: the writes trickle
        out between decisions instead of stalling the event loop in one burst (what a decision's p99
        would pay), and the next events gather meanwhile (one write per page per batch)."""
        subscribers = list(self.subscribers)
        groups = [subscribers[i:i + FANOUT_GROUP] for i in range(0, len(subscribers), FANOUT_GROUP)] or [[]]
        for group in groups:
            for sub in group:
                sub.put(chunk)
            await asyncio.sleep(COALESCE_S / len(groups))

    def _event(self, stream: str, entry_id: str, fields: dict[str, str]) -> ServerSentEvent:
        event, self.positions = self._render(stream, entry_id, fields, self.positions)
        return event

    def _render(self, stream: str, entry_id: str, fields: dict[str, str],
                positions: tuple[str, str]) -> tuple[ServerSentEvent, tuple[str, str]]:
        """One stream entry as the event a page gets, and the position pair after it (its event id)."""
        a, s = positions
        if stream == keys.audit(self.run_id):
            a = entry_id
            html, kind = views.decision_html(audit.audit_entry(entry_id, fields)), "decision"
        else:
            s = entry_id
            html, kind = views.task_html(audit.state_entry(entry_id, fields)), "task"
        return ServerSentEvent(html, event=kind, id=f"{a}|{s}"), (a, s)

    async def backlog(self, last_event_id: str | None, upto: tuple[str, str]) -> list[ServerSentEvent]:
        """What a reconnecting page missed: entries after its last event id, up to where the live feed is."""
        since = _split_id(last_event_id)
        if since == ("$", "$"):
            return []
        r = self.backend.redis
        missed: list[tuple[str, str, dict[str, str]]] = []
        for stream, start, end in ((keys.audit(self.run_id), since[0], upto[0]),
                                   (keys.run_state(self.run_id), since[1], upto[1])):
            if end == "0":
                continue
            entries = await self.backend.call(r.xrange(stream, f"({start}" if start != "0" else "-", end,
                                                       count=BACKLOG_MAX))
            missed += [(entry_id, stream, fields) for entry_id, fields in entries]
        # In stream-id (time) order across both streams, each with the position pair after it.
        missed.sort(key=lambda m: tuple(int(x) for x in m[0].split("-")))
        events, positions = [], since
        for entry_id, stream, fields in missed:
            event, positions = self._render(stream, entry_id, fields, positions)
            events.append(event)
        return events


class Hub:
    """Every live source of one gateway process."""

    def __init__(self, backend: Backend, metrics: Metrics | None = None) -> None:
        self.backend = backend
        self.metrics = metrics or Metrics()
        self.queue_subscribers: set[Subscriber] = set()
        self.feeds: dict[str, RunFeed] = {}
        self._pending: set[asyncio.Task[None]] = set()
        self.on_new_approval: list[Callable[[dict[str, Any]], None]] = []

    # -- approvals (called by the Notifier for each pub/sub message) ------------------------------------
    def approval_changed(self, approval_id: str, new: bool) -> None:
        if not self.queue_subscribers and not self.feeds and not (new and self.on_new_approval):
            return
        task = asyncio.create_task(self._approval(approval_id, new))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _approval(self, approval_id: str, new: bool) -> None:
        try:
            view = await approvals.get(self.backend, approval_id)
            now = await self.backend.now_ms()
        except GatewayError as e:
            log.debug("approval %s: %s", approval_id, e)
            return
        if new:
            for notify in self.on_new_approval:
                notify(view)
        html = {can: views.approval_html(view, now, can) for can in (False, True)}
        kind = "approval" if view["status"] == "pending" else "resolved"
        targets = [s for s in self.queue_subscribers if s.accepts(view)]
        feed = self.feeds.get(str(view.get("run_id")))
        if feed is not None:
            targets += list(feed.subscribers)
        encoded = {can: ServerSentEvent(html[can] if kind == "approval" else approval_id, event=kind,
                                        id=f"q{now}").encode() for can in (False, True)}
        for sub in targets:
            sub.put(encoded[sub.can_decide])

    def subscribe_queue(self, accepts: Callable[[dict[str, Any]], bool], can_decide: bool) -> Subscriber:
        sub = Subscriber(accepts=accepts, can_decide=can_decide)
        self.queue_subscribers.add(sub)
        self.metrics.console_subscribers.inc()
        return sub

    def unsubscribe_queue(self, sub: Subscriber) -> None:
        if sub in self.queue_subscribers:
            self.queue_subscribers.discard(sub)
            self._left(sub)

    def _left(self, sub: Subscriber) -> None:
        self.metrics.console_subscribers.dec()
        if sub.overflowed:
            self.metrics.console_dropped.inc()

    # -- run feeds -------------------------------------------------------------------------------------
    async def subscribe_run(self, run_id: str, can_decide: bool) -> tuple[RunFeed, Subscriber, tuple[str, str]]:
        """Join a run's feed; also returns the stream positions from which this subscriber gets live events
        (a reconnecting page reads what it missed up to there: nothing lost, nothing twice)."""
        feed = self.feeds.get(run_id)
        if feed is None:
            feed = self.feeds[run_id] = RunFeed(self.backend, run_id)
            feed.start()
        sub = Subscriber(accepts=lambda a: a.get("run_id") == run_id, can_decide=can_decide)
        feed.subscribers.add(sub)
        self.metrics.console_subscribers.inc()
        if feed.ready.is_set():
            return feed, sub, feed.positions  # read in the same step as joining: no event in between
        await asyncio.wait_for(feed.ready.wait(), timeout=5)
        return feed, sub, feed.started_at

    async def unsubscribe_run(self, run_id: str, sub: Subscriber) -> None:
        feed = self.feeds.get(run_id)
        if feed is None or sub not in feed.subscribers:
            return
        feed.subscribers.discard(sub)
        self._left(sub)
        if not feed.subscribers:
            del self.feeds[run_id]
            if feed.task:
                feed.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await feed.task

    async def stop(self) -> None:
        for run_id in list(self.feeds):
            feed = self.feeds.pop(run_id)
            if feed.task:
                feed.task.cancel()
        for task in list(self._pending):
            task.cancel()
