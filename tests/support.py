"""Helpers shared by the test suites: a real redis-server per session, free ports, gateway processes."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import ssl
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


def _redis_up(port: int, password: str | None, ca: str | None = None) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as raw:
            s = ssl.create_default_context(cafile=ca).wrap_socket(raw, server_hostname="127.0.0.1") if ca else raw
            s.sendall((f"AUTH {password}\r\n" if password else "").encode() + b"PING\r\n")
            return b"+PONG" in s.recv(64)
    except OSError:
        return False


def tls_files(where: Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (it is its own CA) and its key, as paths."""
    require("openssl", shutil.which("openssl") is not None)
    cert, key = where / "selfsigned.pem", where / "selfsigned.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


def tls_options(cert: str, key: str) -> tuple[str, ...]:
    """redis-server (or sentinel) options: TLS only, for clients and replication alike."""
    return ("--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", cert, "--tls-auth-clients", "no",
            "--tls-replication", "yes")


class _Exited(Exception):
    """redis-server stopped before it answered (its port was taken, most often)."""


class RedisServer:
    """A throw-away redis-server on a free loopback port; can be stopped and started again.

    It requires a password, as users must run it (the gateway refuses an open Redis); ``password=None``
    starts an open one, for the test that proves that refusal."""

    def __init__(self, port: int | None = None, password: str | None = "", extra: tuple[str, ...] = (),
                 tls: tuple[str, str] | None = None, cluster: bool = False) -> None:
        self.binary = shutil.which("redis-server")
        self.port = port or free_port()
        # A port we chose may be taken between free_port() and the bind (by any process's outgoing connection:
        # both come from the ephemeral range); then the first start moves to new ports. A port given, or one
        # a server already served on, is kept: tests restart a server where clients expect it.
        self.movable = port is None
        # A cluster node's bus port is chosen too: by default it is the port + 10000, which may be taken or
        # past 65535.
        self.bus_port = free_port() if cluster else 0
        self.password = secrets.token_hex(12) if password == "" else password
        self.extra = extra  # more redis-server options (a replica's --replicaof and --masterauth)
        self.tls = tls  # (certificate, key): TLS only, on the same port
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir = ""

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        for attempt in range(3):
            try:
                self._start_once()
                self.movable = False
                return self
            except _Exited as exited:
                if not self.movable or attempt == 2:
                    raise TimeoutError(f"redis-server on port {self.port} exited at start: {exited}") from None
                self.port = free_port()
                self.bus_port = free_port() if self.bus_port else 0
        raise AssertionError("unreachable")

    def _start_once(self) -> None:
        assert self.binary
        # Its own empty directory each start: a replica's full sync writes dump.rdb there, and a Redis loads
        # any dump.rdb it finds at start (in the working directory, it would reach the next test's server).
        self.dir = tempfile.mkdtemp(prefix="acteon-redis-")
        log = Path(self.dir) / "redis.log"
        bus = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-port", str(self.bus_port)) if self.bus_port else ()
        self.proc = subprocess.Popen(
            [self.binary, *(("--port", "0", "--tls-port", str(self.port), *tls_options(*self.tls)) if self.tls
                            else ("--port", str(self.port))),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--repl-diskless-sync-delay", "0",  # a replica's first sync at once
             "--protected-mode", "yes", "--loglevel", "warning", "--logfile", str(log),
             *(["--requirepass", self.password] if self.password else []), *bus, *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        ca = self.tls[0] if self.tls else None
        proc = self.proc

        def up() -> bool:
            if proc.poll() is not None:  # it will never answer: say why now, not after the timeout
                why = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
                self.proc = None
                shutil.rmtree(self.dir, ignore_errors=True)
                raise _Exited(why[0] if why else f"exit status {proc.returncode}")
            return _redis_up(self.port, self.password, ca)

        wait_until(up, what="redis-server")

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
    # Its errors go to a file, never to a pipe nobody reads: a full pipe would stall the gateway mid-test.
    log = tempfile.NamedTemporaryFile(prefix="acteon-gateway-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "gateway.cli", "--port", str(port), "--log-level", "error"],
        env=full_env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=log,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"gateway exited: {Path(log.name).read_text(errors='replace')}")
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
        log.close()
        if os.environ.get("ACTEON_TEST_GATEWAY_LOGS"):  # kept, and named, for a look after a failure
            print(f"gateway log: {log.name}", file=sys.stderr)
        else:
            Path(log.name).unlink(missing_ok=True)
