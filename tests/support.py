"""Helpers shared by the test suites: a real redis-server per session, free ports, gateway processes."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def require(what: str, ok: bool) -> None:
    """A missing prerequisite is a failure in CI and a skip on a developer's machine."""
    if ok:
        return
    if IN_CI:
        pytest.fail(f"prerequisite missing in CI: {what}")
    pytest.skip(f"prerequisite missing: {what}")


def wait_until(predicate, timeout_s: float = 10.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    """Poll for a process to come up (readiness, not timing: the test asserts nothing about speed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise TimeoutError(f"timed out waiting for {what}")


def _redis_up(port: int, password: str | None) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall((f"AUTH {password}\r\n" if password else "").encode() + b"PING\r\n")
            return b"+PONG" in s.recv(64)
    except OSError:
        return False


class RedisServer:
    """A throw-away redis-server on a free loopback port; can be stopped and started again.

    It requires a password, as users must run it (the gateway refuses an open Redis); ``password=None``
    starts an open one, for the test that proves that refusal."""

    def __init__(self, port: int | None = None, password: str | None = "", extra: tuple[str, ...] = ()) -> None:
        self.binary = shutil.which("redis-server")
        self.port = port or free_port()
        self.password = secrets.token_hex(12) if password == "" else password
        self.extra = extra  # more redis-server options (a replica's --replicaof and --masterauth)
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir = ""

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        assert self.binary
        # Its own empty directory each start: a replica's full sync writes dump.rdb there, and a Redis loads
        # any dump.rdb it finds at start (in the working directory, it would reach the next test's server).
        self.dir = tempfile.mkdtemp(prefix="acteon-redis-")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--repl-diskless-sync-delay", "0",  # a replica's first sync at once
             "--protected-mode", "yes", "--loglevel", "warning",
             *(["--requirepass", self.password] if self.password else []), *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: _redis_up(self.port, self.password), what="redis-server")
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""


@contextmanager
def gateway_process(env: dict[str, str], port: int | None = None) -> Iterator[str]:
    """Run ``acteon-gateway`` (one uvicorn worker) as a real process; yields its base URL."""
    port = port or free_port()
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gateway.cli", "--port", str(port), "--log-level", "error"],
        env=full_env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"gateway exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    try:
        wait_until(up, timeout_s=30, what="gateway process")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
