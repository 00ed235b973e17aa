"""The Redis connection: a real server (or a Sentinel-watched master) when ``ACTEON_REDIS_URL`` is set,
otherwise an embedded in-process store (fakeredis with Lua) so a new user needs nothing but Python.

Timeouts are short and bounded on purpose: when Redis is gone the gateway must answer 503 quickly
(the hook's own budget is a few seconds) and recover by itself when Redis is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.client import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelManagedConnection, SentinelManagedSSLConnection
from redis.backoff import NoBackoff
from redis.exceptions import AskError, ClusterError, SlotNotCoveredError, TryAgainError
from redis.maint_notifications import MaintNotificationsConfig

from gateway.errors import NotReplicated, StoreUnavailable
from gateway.store import cluster, topology

Clock = Callable[[], int]  # milliseconds; tests inject one, production uses Redis TIME


Command = tuple[Any, ...]  # one Redis command's words, for :meth:`Backend.durable`
# A cluster between two states: a slot moving (ASK, TRYAGAIN past the client's own retries, its redirections
# exhausted) or not served while a replica takes over. The call is answered 503 and the next one looks again.
_CLUSTER_UNSETTLED = (ClusterError, TryAgainError, AskError, SlotNotCoveredError)


def load_script(name: str) -> str:
    return resources.files("gateway.store").joinpath("lua", name).read_text(encoding="utf-8")


@functools.cache
def _script_body(name: str) -> str:
    return load_script(name)


class _CPack:
    """redis-py's asyncio connection packs commands in pure Python; a decision carries a few dozen
    script arguments, so hiredis's C packer saves about a tenth of the gateway's CPU per dispatch."""

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        if isinstance(first, str) and " " in first:  # 'SCRIPT LOAD' is two protocol words
            args = (*first.split(), *args[1:])
        return [hiredis.pack_command(args)]


class _CPackConnection(_CPack, Connection):
    pass


class _CPackSentinelConnection(_CPack, SentinelManagedConnection):
    pass


class _CPackSentinelTLSConnection(_CPack, SentinelManagedSSLConnection):
    pass


def connect(url: str | None, *, timeout_s: float = 1.0) -> Redis:
    """The decision store's client: for ``url`` (any form :mod:`gateway.store.topology` reads), else embedded."""
    if url:
        return _client(topology.parse(url), timeout_s)
    import fakeredis  # only the embedded mode pays for it

    server = fakeredis.FakeServer()
    client: Redis = fakeredis.FakeAsyncRedis(server=server, decode_responses=True, lua_modules=set())
    return client


def _client(t: topology.Topology, timeout_s: float) -> Redis:
    options: dict[str, Any] = dict(
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
    if t.kind == topology.CLUSTER:
        return cluster.client(t, options)  # type: ignore[return-value]  # the same commands, routed by slot
    if t.kind == topology.SINGLE:
        pool = aioredis.ConnectionPool.from_url(t.url, connection_class=_CPackConnection, **options)
        return aioredis.Redis(connection_pool=pool)
    # Sentinel: every new connection asks the sentinels where the master is, so after a failover the
    # connections to the old master fail once (503) and the next ones go to the new master.
    sentinels = Sentinel(list(t.nodes), sentinel_kwargs={  # type: ignore[no-untyped-call]
        **t.sentinel_kwargs(), "socket_connect_timeout": timeout_s, "socket_timeout": timeout_s,
        "retry": Retry(NoBackoff(), 0)})
    data = t.data_kwargs()
    connection_class = _CPackSentinelTLSConnection if data.pop("ssl", False) else _CPackSentinelConnection
    client: Redis = sentinels.master_for(str(t.service), connection_class=connection_class, **data, **options)
    return client


@dataclass
class Backend:
    """The Redis client plus the time source; every store module goes through it."""

    redis: Redis
    clock: Clock | None = None
    timeout_s: float = 1.0
    # How many replicas must confirm a write that may never be lost once acknowledged (:meth:`durable`):
    # None = one as soon as the master reports a replica (and from then on), 0 = none (embedded store).
    replica_acks: int | None = 0
    replica_wait_ms: int = 500
    _scripts: dict[str, Any] = field(default_factory=dict)

    @property
    def cluster(self) -> bool:
        """A Redis Cluster: a decision may touch one slot only (no ``per: global`` throttles)."""
        return isinstance(self.redis, RedisCluster)

    async def pubsub(self, *, again: bool = False) -> Any:
        """A pub/sub client. On a cluster it subscribes on the master of the channel's slot (a message published on
        any node reaches every node), so the slots must be known first, and looked at afresh after a failure
        (``again``): the node it was on may be gone."""
        if isinstance(self.redis, RedisCluster):
            if again:
                await self.call(self.redis.nodes_manager.initialize())
            else:
                await self.call(self.redis.initialize())
        return self.redis.pubsub()

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

    def eval_command(self, name: str, keys_: list[str], args: list[Any]) -> Command:
        """A script as a command for :meth:`durable`: EVAL with the body, so no NOSCRIPT can come back on a
        node that never saw it (these writes are rare; decisions keep to EVALSHA)."""
        return ("EVAL", _script_body(name), len(keys_), *keys_, *args)

    async def durable(self, *commands: Command) -> list[Any]:
        """Run ``commands`` and return their replies only once a replica has them too (docs/ha.md).

        Replication is asynchronous: a write the master acknowledged is lost if the master dies before a
        replica has it. An approval's decision, a rule pack, a key or a run's cancel must not come back
        undone after a failover, so they wait for a replica whenever the store has one; when none confirms
        in time the caller gets :class:`NotReplicated` and claims nothing done.

        ``WAIT`` counts the writes made on its own connection, so the commands and the ``WAIT`` share one
        connection: one pipeline on one Redis (or Sentinel's master), one per node a cluster spreads them
        over. A master replaced in between breaks that connection, which is an error, never a false yes."""
        acks = await self._acks()
        with _store_failures():
            async with asyncio.timeout(self.timeout_s + (self.replica_wait_ms / 1000 if acks else 0)):
                if isinstance(self.redis, RedisCluster):
                    replies = await cluster.pipeline(self.redis, commands, acks, self.replica_wait_ms)
                else:
                    async with self.redis.pipeline(transaction=False) as p:
                        for command in commands:
                            p.execute_command(*command)
                        if acks:
                            p.wait(acks, self.replica_wait_ms)
                        replies = await p.execute()
        if acks:
            confirmed = min(int(n) for n in replies[len(commands):])
            if confirmed < acks:
                raise NotReplicated(
                    f"no replica confirmed the write within {self.replica_wait_ms} ms, so a failover could lose "
                    "it: it is not reported done; try again")
        return list(replies[:len(commands)])

    async def _acks(self) -> int:
        acks = self.replica_acks
        if acks is None:
            info = await self.call(self.redis.info("replication"))
            acks = 1 if int(info.get("connected_slaves", 0) or 0) > 0 else 0
            if acks:
                self.replica_acks = acks  # once seen, a replica is always waited for
        return acks

    async def call(self, awaitable: Any) -> Any:
        """Await a Redis call, turning connection trouble into :class:`StoreUnavailable`."""
        with _store_failures():
            async with asyncio.timeout(self.timeout_s):
                return await awaitable


@contextlib.contextmanager
def _store_failures() -> Iterator[None]:
    """Connection trouble, a timeout or a cluster between two states, as :class:`StoreUnavailable` (a 503)."""
    try:
        yield
    except (aioredis.ConnectionError, aioredis.TimeoutError, OSError, TimeoutError, *_CLUSTER_UNSETTLED) as e:
        raise StoreUnavailable(str(e) or type(e).__name__) from None
    except (AttributeError, RuntimeError) as e:
        raise _closed_under_us(e) from None


def _closed_under_us(e: Exception) -> Exception:
    """A store failure, when ``e`` came out of redis-py's connection code: after a cluster node fails, or a slot
    moves, the client reads the slot map again and may close connections other calls are still using. Such a call
    then fails on the closed connection (its writer gone: AttributeError; its transport closed: RuntimeError)
    instead of with a ConnectionError; it is a 503 like the others. Anything else is a fault of ours and stays one."""
    frames = traceback.extract_tb(e.__traceback__)
    if any(f.filename.replace("\\", "/").endswith("redis/asyncio/connection.py") for f in frames):
        return StoreUnavailable(f"a connection to the store was closed while in use ({e})")
    return e
