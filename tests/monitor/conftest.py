"""One real gateway process for the monitor's tests (each test uses its own run)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from orchestrator.gatewayclient import GatewayClient
from tests.support import gateway_process

ADMIN_KEY = "monitor-test-admin-key"


@pytest.fixture(scope="module")
def gateway_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    state: Path = tmp_path_factory.mktemp("gw-state")
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(state)}) as url:
        yield url


@pytest.fixture
async def gw(gateway_url: str) -> AsyncIterator[GatewayClient]:
    client = GatewayClient(gateway_url, ADMIN_KEY)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def run_id() -> str:
    return f"mon-{uuid.uuid4().hex[:10]}"
