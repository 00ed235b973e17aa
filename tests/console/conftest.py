"""Console fixtures: a real gateway process on a real Redis (with a password), operator keys, and Debian's
chromium driven by Playwright (no browser download: the system binary)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import claude_bin, sandbox  # noqa: F401 - fixtures of the real-CLI scenario
from tests.support import ROOT, RedisServer, gateway_process, require

ADMIN_KEY = "console-admin-key-0123456789"
ARTIFACTS = Path(os.environ.get("ACTEON_TEST_ARTIFACTS", ROOT / "test-artifacts"))


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Gateway:
    url: str
    operators: dict[str, str] = field(default_factory=dict)  # name -> key
    agent_keys: dict[str, str] = field(default_factory=dict)  # run -> key

    def api(self, method: str, path: str, key: str = ADMIN_KEY, **kw: Any) -> httpx.Response:
        return httpx.request(method, f"{self.url}/v1{path}", headers={"Authorization": f"Bearer {key}"},
                             timeout=10, **kw)

    def operator(self, name: str, role: str) -> str:
        r = self.api("POST", "/operators", json={"name": name, "role": role})
        assert r.status_code == 201, r.text
        self.operators[name] = r.json()["operator_key"]
        return self.operators[name]

    def run(self, run_id: str) -> str:
        r = self.api("POST", "/runs", json={"run_id": run_id})
        assert r.status_code == 201, r.text
        self.agent_keys[run_id] = r.json()["agent_key"]
        return self.agent_keys[run_id]

    def dispatch(self, run_id: str, command: str, agent: str = "agent-1", **extra: Any) -> dict[str, Any]:
        body = {"run_id": run_id, "agent_id": agent, "provider": "claude", "tool": "Bash",
                "input": {"command": command}, **extra}
        r = self.api("POST", "/dispatch", key=self.agent_keys[run_id], json=body)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def approval(self, approval_id: str) -> dict[str, Any]:
        return dict(self.api("GET", f"/approvals/{approval_id}").json())


@contextmanager
def gateway_on(redis_url: str, tmp_path: Path) -> Iterator[Gateway]:
    env = {"ACTEON_REDIS_URL": redis_url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "state")}
    with gateway_process(env) as url:
        yield Gateway(url)


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    """A gateway process of its own on a Redis of its own: the queue shows only this test's approvals."""
    redis = RedisServer()
    require("redis-server on PATH", redis.binary is not None)
    redis.start()
    try:
        with gateway_on(redis.url, tmp_path) as gw:
            yield gw
    finally:
        redis.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Per module, not per session: Playwright's sync API keeps an event loop running in this thread while it
    is open, and tests elsewhere call ``asyncio.run``."""
    binary = chromium_binary()
    require("Debian's chromium (scripts/test installs it with apt-get)", binary is not None)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require("the playwright Python package (the test extra)", False)
        raise
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=binary, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(10_000)
    try:
        yield ctx
    finally:
        ctx.close()


def sign_in(context: Any, gateway: Gateway, key: str) -> Any:
    page = context.new_page()
    page.goto(f"{gateway.url}/console/login")
    page.fill("#key", key)
    page.click("#sign-in")
    page.wait_for_url(f"{gateway.url}/console/approvals")
    page.wait_for_selector("#live-state.on")  # the live feed is connected
    page.wait_for_selector("#queue[data-synced]", state="attached")  # and its first snapshot applied
    return page


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name
