"""Property-based run over the OpenAPI schema (schemathesis): no input ever gets a 5xx."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from gateway.app import create_app
from gateway.config import Settings
from tests.conftest import ADMIN_KEY, FakeClock
from tests.support import ROOT

app = create_app(
    Settings(rules_dir=ROOT / "rules", state_dir=Path(tempfile.mkdtemp(prefix="acteon-fuzz-")),
             admin_key=ADMIN_KEY, home="/home/agent"),
    clock=FakeClock(),
)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors_as_admin(case) -> None:  # type: ignore[no-untyped-def]
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {ADMIN_KEY}"}
    response = case.call()
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:500]}"
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors_without_a_key(case) -> None:  # type: ignore[no-untyped-def]
    response = case.call()
    assert response.status_code < 500
