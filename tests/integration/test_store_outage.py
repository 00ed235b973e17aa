"""Redis stopped while the gateway runs: 503 quickly, health says so, the process stays up; Redis back:
decisions resume without a restart."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support import RedisServer, gateway_process, require, wait_until

pytestmark = pytest.mark.redis
ADMIN = {"Authorization": "Bearer outage-admin-key"}
BODY = {"run_id": "default", "agent_id": "a", "provider": "claude-code", "tool": "Bash",
        "input": {"command": "ls"}, "cwd": "/w"}


def test_gateway_survives_a_redis_outage(tmp_path) -> None:
    server = RedisServer()
    require("redis-server on PATH", server.binary is not None)
    server.start()
    env = {"ACTEON_REDIS_URL": server.url, "ACTEON_ADMIN_KEY": "outage-admin-key",
           "ACTEON_STATE_DIR": str(tmp_path / "state")}
    try:
        with gateway_process(env) as url, httpx.Client(base_url=url, headers=ADMIN, timeout=10) as c:
            assert c.post("/v1/dispatch", json=BODY).json()["outcome"] == "executed"
            server.stop()
            started = time.monotonic()
            r = c.post("/v1/dispatch", json=BODY)
            elapsed = time.monotonic() - started
            assert r.status_code == 503
            assert r.json()["error"]["code"] == "store_unavailable"
            assert elapsed < 3.0, f"503 took {elapsed:.2f}s"  # bounded timeouts, not a hang
            h = c.get("/v1/health")
            assert h.status_code == 503 and h.json()["status"] == "unavailable"
            for _ in range(5):  # stays up and keeps answering
                assert c.post("/v1/dispatch", json=BODY).status_code == 503
            server.start()  # same port, empty data (the default run is recreated on demand)

            def recovered() -> bool:
                return c.post("/v1/dispatch", json=BODY).status_code == 200

            wait_until(recovered, timeout_s=15, what="decisions to resume")
            assert c.get("/v1/health").status_code == 200
            assert c.post("/v1/dispatch", json=BODY).json()["outcome"] == "executed"
    finally:
        server.stop()


def test_the_first_requests_after_a_redis_restart_succeed(tmp_path) -> None:
    """Pooled connections that the old Redis closed are replaced before use: no spurious 503.
    It failed before: redis-py skipped its stale-connection check with maintenance notifications on."""
    import concurrent.futures

    server = RedisServer()
    require("redis-server on PATH", server.binary is not None)
    server.start()
    env = {"ACTEON_REDIS_URL": server.url, "ACTEON_ADMIN_KEY": "outage-admin-key",
           "ACTEON_STATE_DIR": str(tmp_path / "state")}
    try:
        with gateway_process(env) as url, httpx.Client(base_url=url, headers=ADMIN, timeout=10) as c:
            with concurrent.futures.ThreadPoolExecutor(8) as pool:  # several pooled connections in use
                assert set(pool.map(lambda _: c.post("/v1/dispatch", json=BODY).status_code, range(32))) == {200}
            server.stop()
            server.start()  # same port, empty data; every pooled connection is now stale
            statuses = [c.post("/v1/dispatch", json=BODY).status_code for _ in range(8)]
            assert statuses == [200] * 8
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                assert set(pool.map(lambda _: c.post("/v1/dispatch", json=BODY).status_code, range(32))) == {200}
    finally:
        server.stop()
