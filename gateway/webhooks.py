"""Webhook notifications: a new approval waits for a person, a run ended.

A JSON POST signed with HMAC-SHA256 over ``"<timestamp>.<body>"`` (header ``X-Acteon-Signature:
sha256=<hex>``, the timestamp in ``X-Acteon-Timestamp``), so a receiver can check it came from this gateway
and refuse replays. Deliveries run in a background task with a bounded queue: a slow or dead receiver
never delays a decision. A 5xx or a connection error is retried with exponential backoff; a 4xx is the
receiver saying no and is not retried. When several gateway processes share a Redis, each sees the same
new approval (pub/sub); a ``SET NX`` per notification makes exactly one of them send it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from gateway.store import keys
from gateway.store.backend import Backend

log = logging.getLogger("acteon.gateway.webhooks")
SIGNATURE_HEADER = "X-Acteon-Signature"
TIMESTAMP_HEADER = "X-Acteon-Timestamp"
EVENT_HEADER = "X-Acteon-Event"
QUEUE_MAX = 1000
CLAIM_TTL_S = 24 * 3600


def sign(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    """For receivers (and tests): the signature matches, compared in constant time."""
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    url: str
    secret: str
    console_url: str  # the console's public address, for links in the payload
    attempts: int = 6
    first_delay_s: float = 0.5
    timeout_s: float = 5.0


class Webhooks:
    """Queue and deliver notifications; does nothing without a configured URL."""

    def __init__(self, backend: Backend, config: WebhookConfig | None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._backend = backend
        self.config = config
        self._sleep = sleep  # injected in tests: backoff without waiting
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=QUEUE_MAX)
        self._task: asyncio.Task[None] | None = None
        self.delivered = 0
        self.failed = 0

    def start(self) -> None:
        if self.config is not None:
            self._task = asyncio.create_task(self._deliver_all(), name="acteon-webhooks")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def _link(self, path: str) -> str:
        assert self.config is not None
        return self.config.console_url.rstrip("/") + path

    def _put(self, event: dict[str, Any]) -> None:
        if self.config is None:
            return
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:  # never block the caller; the console still shows everything
            self.failed += 1
            log.warning("webhook queue full: %s %s not sent", event["event"], event["id"])

    def approval_created(self, approval: dict[str, Any]) -> None:
        aid = str(approval.get("approval_id"))
        self._put({"event": "approval.created", "id": f"approval-created:{aid}", "approval_id": aid,
                   "run_id": approval.get("run_id"), "agent_id": approval.get("agent_id"),
                   "role": approval.get("role"), "tool": approval.get("tool"), "rule": approval.get("rule"),
                   "target": approval.get("target"), "expires_ms": approval.get("expires_ms"),
                   "link": self._link(f"/console/approvals?focus={quote(aid)}") if self.config else ""})

    def run_ended(self, run_id: str, state: str, reason: str) -> None:
        self._put({"event": "run.ended", "id": f"run-ended:{run_id}", "run_id": run_id, "state": state,
                   "reason": reason, "link": self._link(f"/console/runs/{quote(run_id)}") if self.config else ""})

    async def _deliver_all(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self.deliver(event)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a notification must never take the gateway down
                self.failed += 1
                log.warning("webhook %s failed: %s", event.get("id"), type(e).__name__)

    async def deliver(self, event: dict[str, Any]) -> bool:
        """Send one notification (once across gateway processes); True when the receiver took it."""
        assert self.config is not None
        claimed = await self._backend.call(
            self._backend.redis.set(keys.webhook_sent(event["id"]), "1", nx=True, ex=CLAIM_TTL_S))
        if not claimed:
            return False  # another gateway process sends this one
        body = json.dumps(event, separators=(",", ":"), sort_keys=True).encode()
        delay = self.config.first_delay_s
        async with httpx.AsyncClient(timeout=self.config.timeout_s) as http:
            for attempt in range(1, self.config.attempts + 1):
                timestamp = str(int(time.time()))
                headers = {"Content-Type": "application/json", EVENT_HEADER: event["event"],
                           TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: sign(self.config.secret, timestamp, body)}
                try:
                    r = await http.post(self.config.url, content=body, headers=headers)
                    if r.status_code < 300:
                        self.delivered += 1
                        return True
                    if r.status_code < 500:
                        break  # the receiver refuses it: asking again will not change its mind
                    problem = f"HTTP {r.status_code}"
                except httpx.HTTPError as e:
                    problem = type(e).__name__
                if attempt < self.config.attempts:
                    log.info("webhook %s: %s; retry %d in %.1fs", event["id"], problem, attempt, delay)
                    await self._sleep(delay)
                    delay = min(delay * 2, 60.0)
        self.failed += 1
        log.warning("webhook %s not delivered to %s", event["id"], self.config.url)
        return False
