"""The store client's failures are 503s (StoreUnavailable), never faults of the gateway's own."""

from __future__ import annotations

import asyncio

import fakeredis
import pytest
from redis.asyncio.connection import Connection
from redis.exceptions import ClusterDownError, ClusterError, SlotNotCoveredError, TryAgainError

from gateway.errors import StoreUnavailable
from gateway.store.backend import Backend


def _backend() -> Backend:
    return Backend(fakeredis.FakeAsyncRedis(decode_responses=True))


def test_a_connection_closed_while_in_use_is_a_store_failure() -> None:
    """After a cluster node fails, redis-py closes that node's connections, ones in use included: a call on one
    fails inside redis-py with an AttributeError (its writer is gone). That call was bound for the failed node."""
    closed = Connection()  # never connected: no writer, as after the client closed it under a call

    async def main() -> None:
        with pytest.raises(StoreUnavailable, match="closed while in use"):
            await _backend().call(closed._send_packed_command([b"PING\r\n"]))

    asyncio.run(main())


def test_a_transport_closed_under_a_call_is_a_store_failure() -> None:
    """A slot moved or a node failed and the client closed the connection's transport while a call was sending."""

    class ClosedTransport:
        def writelines(self, _data: object) -> None:
            raise RuntimeError("unable to perform operation on <TCPTransport closed=True>; the handler is closed")

    closing = Connection()
    closing._writer = ClosedTransport()  # type: ignore[assignment]

    async def main() -> None:
        with pytest.raises(StoreUnavailable, match="closed while in use"):
            await _backend().call(closing._send_packed_command([b"PING\r\n"]))

    asyncio.run(main())


@pytest.mark.parametrize("error", [ClusterError("TTL exhausted."), TryAgainError("TRYAGAIN"),
                                   SlotNotCoveredError('Slot "7" is not covered by the cluster.'),
                                   ClusterDownError("CLUSTERDOWN The cluster is down")])
def test_a_cluster_between_two_states_is_a_store_failure(error: Exception) -> None:
    """A slot moving (redirections or TRYAGAIN past the client's own retries) or a master being replaced: 503."""
    async def unsettled() -> None:
        raise error

    async def main() -> None:
        with pytest.raises(StoreUnavailable):
            await _backend().call(unsettled())

    asyncio.run(main())


def test_an_attribute_error_of_our_own_stays_a_fault() -> None:
    async def ours() -> None:
        raise AttributeError("a bug of ours")

    async def also_ours() -> None:
        raise RuntimeError("another bug of ours")

    async def main() -> None:
        with pytest.raises(AttributeError, match="a bug of ours"):
            await _backend().call(ours())
        with pytest.raises(RuntimeError, match="another bug of ours"):
            await _backend().call(also_ours())

    asyncio.run(main())
