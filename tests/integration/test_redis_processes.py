"""The throw-away Redis processes the suites start (tests/support.py) survive a port taken under them: between
choosing a free port and binding it, any process's outgoing connection may take it."""

from __future__ import annotations

import socket

import pytest
import redis

from tests.support import RedisServer, require


def _taken(port: int) -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen()
    return s


def test_a_chosen_port_taken_before_start_moves_the_server_to_another() -> None:
    server = RedisServer(cluster=True)
    require("redis-server on PATH", server.binary is not None)
    first, bus = server.port, server.bus_port
    with _taken(first), _taken(bus):
        server.start()
        try:
            assert server.port != first and server.bus_port != bus
            with redis.Redis.from_url(server.url) as c:
                assert c.ping()
                assert c.info("cluster")["cluster_enabled"] == 1
        finally:
            server.stop()


def test_a_given_port_taken_is_a_clear_error_with_redis_own_reason() -> None:
    server = RedisServer(port=None)
    require("redis-server on PATH", server.binary is not None)
    given = RedisServer(port=server.port)
    reason = f"port {server.port} exited at start: .*Failed listening on port"
    with _taken(server.port), pytest.raises(TimeoutError, match=reason):
        given.start()
    assert given.proc is None
