"""Writes that must survive a failover wait for a replica (docs/ha.md); without one in time they are an
error, and a store with no replica at all behaves as before."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis

from gateway.errors import NotReplicated
from gateway.store.backend import Backend, connect
from tests.support import RedisServer, require, wait_until

pytestmark = pytest.mark.redis


@pytest.fixture
def server() -> Iterator[RedisServer]:
    s = RedisServer()
    require("redis-server on PATH", s.binary is not None)
    s.start()
    yield s
    s.stop()


def test_without_replicas_nothing_waits(server: RedisServer) -> None:
    async def main() -> None:
        backend = Backend(connect(server.url), replica_acks=None)
        assert await backend.durable(backend.redis.set("k", "v")) is True
        assert backend.replica_acks is None  # still looking: none reported so far
        await backend.redis.aclose()

    asyncio.run(main())


def test_a_required_replica_that_never_confirms_is_an_error(server: RedisServer) -> None:
    async def main() -> None:
        backend = Backend(connect(server.url), replica_acks=1, replica_wait_ms=50)
        with pytest.raises(NotReplicated, match="no replica confirmed the write within 50 ms"):
            await backend.durable(backend.redis.set("k", "v"))
        assert await backend.redis.get("k") == "v"  # on the master, but not claimed done
        await backend.redis.aclose()

    asyncio.run(main())


def test_once_a_replica_shows_every_later_write_waits_for_one(server: RedisServer) -> None:
    replica = RedisServer(password=server.password, extra=("--replicaof", "127.0.0.1", str(server.port),
                                                            "--masterauth", str(server.password)))
    replica.start()
    try:
        def synced() -> bool:
            with redis.Redis.from_url(server.url) as primary:
                return primary.info("replication").get("slave0", {}).get("state") == "online"

        wait_until(synced, what="the replica's first sync")

        async def main() -> None:
            backend = Backend(connect(server.url), replica_acks=None, replica_wait_ms=2000)
            await backend.durable(backend.redis.set("k", "v"))
            assert backend.replica_acks == 1
            replica.stop()
            backend.replica_wait_ms = 50
            with pytest.raises(NotReplicated):  # the replica is gone: never silently back to no wait
                await backend.durable(backend.redis.set("k", "w"))
            await backend.redis.aclose()

        asyncio.run(main())
    finally:
        replica.stop()
