"""Fixtures: the same behaviour tests run on the embedded store (fakeredis), on a real Redis and on a Redis Cluster
(three masters, three replicas: a command that names keys of two slots fails there, as it would for users)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as sync_redis
from fastapi.testclient import TestClient

from tests.support import ROOT, RedisServer, require

ADMIN_KEY = "test-admin-key-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
T0 = 1_800_000_000_000  # an arbitrary fixed start for the injected clock (ms)


# The "slow" mark is a promise to whoever runs ``pytest -m "not slow"`` for a quick pass: a test that takes
# longer than this (setup, body and teardown) must carry it. The summary names every one that does not.
SLOW_S = 5.0
_durations: dict[str, float] = {}
_marked_slow: set[str] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if "slow" in report.keywords:
        _marked_slow.add(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    unmarked = sorted(((d, n) for n, d in _durations.items() if d > SLOW_S and n not in _marked_slow),
                      reverse=True)
    if unmarked:
        terminalreporter.section(f"tests over {SLOW_S:.0f} s without the slow mark")
        for duration, nodeid in unmarked:
            terminalreporter.write_line(f"{duration:6.1f} s  {nodeid}")


class FakeClock:
    """Injected into the gateway instead of Redis TIME, so tests move time without sleeping."""

    def __init__(self, start_ms: int = T0) -> None:
        self.ms = start_ms

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    url = os.environ.get("ACTEON_TEST_REDIS_URL")
    if url:
        yield url
        return
    server = RedisServer()
    require("redis-server on PATH", server.binary is not None)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A password-protected redis-server for this test alone (one it may stop, watch or give replicas)."""
    server = RedisServer()
    require("redis-server on PATH", server.binary is not None)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Any]:
    from tests import redis_cluster

    with redis_cluster.running() as cluster:
        yield cluster


@pytest.fixture(params=["fakeredis", "redis", "cluster"])
def backend_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def store_url(backend_kind: str, request: pytest.FixtureRequest) -> str | None:
    """The Redis URL for a test on ``backend_kind``, emptied first (None: the embedded store)."""
    if backend_kind == "redis":
        url: str = request.getfixturevalue("redis_server")
        sync_redis.Redis.from_url(url).flushdb()
        return url
    if backend_kind == "cluster":
        cluster = request.getfixturevalue("redis_cluster")
        for port, role in cluster.roles().items():
            if role == "master":
                with cluster.client(port) as c:
                    c.flushall()
        return str(cluster.url)
    return None


@pytest.fixture
def private_tmp() -> Iterator[Path]:
    """A temporary directory whose whole ancestor chain only its owner can write (unlike /tmp): Gemini CLI
    ignores settings files anywhere else."""
    import shutil
    import tempfile

    base = Path.home() / ".cache" / "acteon-swarm-tests"
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = Path(tempfile.mkdtemp(dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_client(
    backend_kind: str, request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> Iterator[Callable[..., TestClient]]:
    """Build a gateway app on the selected backend and return a TestClient for it."""
    from gateway.app import create_app
    from gateway.config import Settings

    clients: list[TestClient] = []
    fake_server = None
    url = store_url(backend_kind, request)
    if url is None:
        import fakeredis

        # Several apps on the embedded store share one in-process server, as processes share Redis.
        fake_server = fakeredis.FakeServer()

    def build(rules_dir: Path | None = None, use_clock: bool = True, **overrides: Any) -> TestClient:
        settings = Settings(
            redis_url=url, rules_dir=rules_dir or ROOT / "rules", state_dir=tmp_path / "state",
            admin_key=ADMIN_KEY, home="/home/agent", **overrides,
        )
        redis = None
        if fake_server is not None:
            import fakeredis

            redis = fakeredis.FakeAsyncRedis(server=fake_server, decode_responses=True)
        app = create_app(settings, clock=clock if use_clock else None, redis=redis)
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for c in reversed(clients):
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def call(tool: str = "Bash", run_id: str = "default", agent_id: str = "agent-1", **fields: Any) -> dict[str, Any]:
    """A dispatch body; ``input`` defaults from ``command``/``file_path`` keyword shortcuts."""
    body: dict[str, Any] = {"run_id": run_id, "agent_id": agent_id, "provider": "claude-code", "tool": tool,
                            "cwd": "/work/proj"}
    inp = fields.pop("input", None)
    if inp is None:
        inp = {k: fields.pop(k) for k in ("command", "file_path", "content", "url", "prompt", "query")
               if k in fields}
    body["input"] = inp
    body.update(fields)
    return body
