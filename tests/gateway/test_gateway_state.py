"""The default pack keeps agents away from the gateway's own state (issue 11 A): Redis clients however
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
