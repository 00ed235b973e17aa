"""The gateway refuses a Redis that answers without a password: an agent with `redis-cli`
approved its own `git push` through one. ``--insecure-redis`` is the operator's explicit way out."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.app import create_app
from gateway.config import Settings
from gateway.store.guard import OpenStore, check_requires_auth
from tests.support import ROOT, RedisServer, free_port, require


@pytest.fixture
def open_redis() -> Iterator[RedisServer]:
    server = RedisServer(password=None)
    require("redis-server on PATH", server.binary is not None)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_the_guard_tells_open_protected_and_unreachable_apart(open_redis: RedisServer, redis_server: str) -> None:
    assert check_requires_auth(open_redis.url) is False
    assert check_requires_auth(redis_server) is True
    # The guard connects without the URL's credentials: a right password does not make an open Redis safe.
    assert check_requires_auth(f"redis://:whatever@127.0.0.1:{open_redis.port}/0") is False
    assert check_requires_auth(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.5) is None


def test_the_app_refuses_an_open_redis_unless_told_otherwise(open_redis: RedisServer, tmp_path: Path) -> None:
    settings = Settings(redis_url=open_redis.url, state_dir=tmp_path, admin_key="k" * 20)
    with pytest.raises(OpenStore, match="accepts commands without a password"):
        create_app(settings)
    settings.insecure_redis = True
    assert create_app(settings) is not None


def test_the_server_exits_2_with_the_fix_and_no_traceback(open_redis: RedisServer, tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "ACTEON_REDIS_URL": open_redis.url,
           "ACTEON_ADMIN_KEY": "k" * 20, "ACTEON_STATE_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "gateway.cli", "--port", str(free_port())], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "accepts commands without a password" in r.stderr and "--requirepass" in r.stderr
    assert "Traceback" not in r.stderr
