"""The Redis connection: a real server when ``ACTEON_REDIS_URL`` is set, otherwise an embedded
in-process store (fakeredis with Lua) so a new user needs nothing but Python.

Timeouts are short and bounded on purpose: when Redis is gone the gateway must answer 503 quickly
(the hook's own budget is a few seconds) and recover by itself when Redis is back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.client import Redis
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.maint_notifications import MaintNotificationsConfig

from gateway.errors import StoreUnavailable

Clock = Callable[[], int]  # milliseconds; tests inject one, production uses Redis TIME


def load_script(name: str) -> str:
    return resources.files("gateway.store").joinpath("lua", name).read_text(encoding="utf-8")


class _CPackConnection(Connection):
    """redis-py's asyncio connection packs commands in pure Python; a decision carries a few dozen
    script arguments, so hiredis's C packer saves about a tenth of the gateway's CPU per dispatch."""

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        if isinstance(first, str) and " " in first:  # 'SCRIPT LOAD' is two protocol words
            args = (*first.split(), *args[1:])
        return [hiredis.pack_command(args)]


def connect(url: str | None, *, timeout_s: float = 1.0) -> Redis:
    if url:
        pool = aioredis.ConnectionPool.from_url(
            url,
            connection_class=_CPackConnection,
            decode_responses=True,
            # Reads are bounded by Backend.call's asyncio.timeout, not socket_timeout: redis-py
            # implements socket_timeout with asyncio.wait_for, one extra task per read on 3.11.
            socket_connect_timeout=timeout_s,
            health_check_interval=0,
            max_connections=256,
            # No retries: when Redis is gone the caller must hear it within the timeout (503), not
            # after a backoff series; the next request simply tries again.
            retry=Retry(NoBackoff(), 0),
            # Maintenance notifications are a managed-cloud Redis feature. Their default ("auto") is
            # truthy, and while they are on, redis-py's pool skips its check that a pooled connection
            # is still open: after a Redis restart the first command on each stale connection failed
            # (a spurious 503). Off, a connection the server closed is replaced before it is used.
            maint_notifications_config=MaintNotificationsConfig(enabled=False),
        )
        return aioredis.Redis(connection_pool=pool)
    import fakeredis  # only the embedded mode pays for it

    server = fakeredis.FakeServer()
    client: Redis = fakeredis.FakeAsyncRedis(server=server, decode_responses=True, lua_modules=set())
    return client


@dataclass
class Backend:
    """The Redis client plus the time source; every store module goes through it."""

    redis: Redis
    clock: Clock | None = None
    timeout_s: float = 1.0
    _scripts: dict[str, Any] = field(default_factory=dict)

    def script(self, name: str) -> Any:
        """A registered script: EVALSHA, falling back to loading it once after a Redis restart."""
        s = self._scripts.get(name)
        if s is None:
            s = self.redis.register_script(load_script(name))
            self._scripts[name] = s
        return s

    def now_arg(self) -> str:
        """The clock override passed to scripts ('' = the script reads Redis TIME)."""
        return str(self.clock()) if self.clock else ""

    async def now_ms(self) -> int:
        if self.clock:
            return self.clock()
        secs, micros = await self.call(self.redis.time())
        return int(secs) * 1000 + int(micros) // 1000

    async def call(self, awaitable: Any) -> Any:
        """Await a Redis call, turning connection trouble into :class:`StoreUnavailable`."""
        try:
            async with asyncio.timeout(self.timeout_s):
                return await awaitable
        except (aioredis.ConnectionError, aioredis.TimeoutError, OSError, TimeoutError) as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from None
