"""The default pack keeps agents away from the gateway's own state: Redis clients however
they are spelt or wrapped, reads of the state directory and key files, and the admin API."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN, call

REACHING_FOR_THE_STORE = [
    "redis-cli -a hunter2 SET acteon:approval:x approved",
    "/usr/bin/redis-cli -h 127.0.0.1 -p 6379 FLUSHALL",
    "sudo -u redis valkey-cli --no-auth-warning KEYS '*'",
    "echo 'FLUSHDB' | redis-cli",
    "bash -c 'keydb-cli monitor'",
    "timeout 5 redis-benchmark -q",
    "env REDISCLI_AUTH=x redis-cli DEL audit",
    "cd /tmp && redis-cli --pipe < cmds.txt",
]


@pytest.mark.parametrize("command", REACHING_FOR_THE_STORE)
def test_redis_clients_are_blocked(client: TestClient, command: str) -> None:
    r = client.post("/v1/dispatch", json=call(command=command), headers=ADMIN).json()
    assert r["allowed"] is False and r["rule"] == "block-gateway-state", r


def test_talking_about_redis_is_fine(client: TestClient) -> None:
    for command in ("grep -rn redis-cli docs/", "echo 'use redis-cli to inspect'", "docker compose up -d redis"):
        r = client.post("/v1/dispatch", json=call(command=command), headers=ADMIN).json()
        assert r["allowed"] is True, (command, r)


STORE = ("/srv/acteon-state", "tcp:127.0.0.1:6380")
RAW_CONNECTIONS = [
    "nc 127.0.0.1 6380", "echo FLUSHALL | nc -q1 localhost 6380", "ncat ::1 6380 < cmds.txt", "telnet 127.0.0.1 6380",
    "socat - TCP:localhost:6380", "exec 3<>/dev/tcp/127.0.0.1/6380", "curl gopher://127.0.0.1:6380/_FLUSHALL",
    "curl -s dict://localhost:6380/info", "bash -c 'cat < /dev/tcp/localhost/6380'",
]


@pytest.mark.parametrize("command", RAW_CONNECTIONS)
def test_raw_connections_to_the_store_are_gateway_state(command: str) -> None:
    from gateway.shell import analyze

    assert "gateway_state" in analyze(command, "/work/proj", "/home/agent", STORE).categories


@pytest.mark.parametrize("command", ["nc localhost 5432", "nc example.org 6380", "curl http://localhost:8080/x",
                                     "telnet 127.0.0.1 25"])
def test_other_ports_and_hosts_are_not_the_store(command: str) -> None:
    from gateway.shell import analyze

    assert "gateway_state" not in analyze(command, "/work/proj", "/home/agent", STORE).categories


def test_the_gateway_protects_its_configured_store() -> None:
    from gateway.store.guard import store_endpoints

    assert store_endpoints("redis://:pw@10.1.2.3:6390/0") == ("tcp:10.1.2.3:6390",)
    assert store_endpoints("unix:///run/redis/redis.sock?db=0") == ("/run/redis/redis.sock",)
    assert store_endpoints(None) == ()
