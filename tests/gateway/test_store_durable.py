"""Writes that must survive a failover wait for a replica (docs/ha.md); without one in time they are an
error, and a store with no replica at all behaves as before."""

from __future__ import annotations

import asyncio

import pytest
import redis

from gateway.errors import NotReplicated
from gateway.store.backend import Backend, connect
from tests.support import RedisServer, wait_until

pytestmark = pytest.mark.redis


def test_without_replicas_nothing_waits(own_redis: RedisServer) -> None:
    async def main() -> None:
        backend = Backend(connect(own_redis.url), replica_acks=None)
        assert await backend.durable(("SET", "k", "v"), ("HSET", "h", "f", "1")) == [True, 1]  # each reply, in order
        assert backend.replica_acks is None  # still looking: none reported so far
        await backend.redis.aclose()

    asyncio.run(main())


def test_a_required_replica_that_never_confirms_is_an_error(own_redis: RedisServer) -> None:
    async def main() -> None:
        backend = Backend(connect(own_redis.url), replica_acks=1, replica_wait_ms=50)
        with pytest.raises(NotReplicated, match="no replica confirmed the write within 50 ms"):
            await backend.durable(("SET", "k", "v"))
        assert await backend.redis.get("k") == "v"  # on the master, but not claimed done
        await backend.redis.aclose()

    asyncio.run(main())


def test_once_a_replica_shows_every_later_write_waits_for_one(own_redis: RedisServer) -> None:
    replica = RedisServer(password=own_redis.password, extra=("--replicaof", "127.0.0.1", str(own_redis.port),
                                                            "--masterauth", str(own_redis.password)))
    replica.start()
    try:
        def synced() -> bool:
            with redis.Redis.from_url(own_redis.url) as primary:
                return primary.info("replication").get("slave0", {}).get("state") == "online"

        wait_until(synced, what="the replica's first sync")

        async def main() -> None:
            backend = Backend(connect(own_redis.url), replica_acks=None, replica_wait_ms=2000)
            await backend.durable(("SET", "k", "v"))
            assert backend.replica_acks == 1
            replica.stop()
            backend.replica_wait_ms = 50
            with pytest.raises(NotReplicated):  # the replica is gone: never silently back to no wait
                await backend.durable(("SET", "k", "w"))
            await backend.redis.aclose()

        asyncio.run(main())
    finally:
        replica.stop()
