"""The Redis connection: a real server when ``ACTEON_REDIS_URL`` is set, otherwise an embedded
in-process store (fakeredis with Lua) so a new user needs nothing but Python.

Timeouts are short and bounded on purpose: when Redis is gone the gateway must answer 503 quickly
(the hook's own budget is a few seconds) and recover by itself when Redis is back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import Redis

from gateway.errors import StoreUnavailable

Clock = Callable[[], int]  # milliseconds; tests inject one, production uses Redis TIME


def load_script(name: str) -> str:
    return resources.files("gateway.store").joinpath("lua", name).read_text(encoding="utf-8")


def connect(url: str | None, *, timeout_s: float = 1.0) -> Redis:
    if url:
        return aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            health_check_interval=0,
            retry_on_timeout=False,
            max_connections=256,
        )
    import fakeredis  # only the embedded mode pays for it

    server = fakeredis.FakeServer()
    client: Redis = fakeredis.FakeAsyncRedis(server=server, decode_responses=True, lua_modules=set())
    return client


@dataclass
class Backend:
    """The Redis client plus the time source; every store module goes through it."""

    redis: Redis
    clock: Clock | None = None
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
            return await awaitable
        except (aioredis.ConnectionError, aioredis.TimeoutError, OSError) as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from None
