"""What the per-CLI dialect tests share: reading a fixture event, and running ``gate --cli CLI`` on an event
against a fake gateway that answers ``result``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import gw_env, run_hook

FIXTURES = Path(__file__).parent / "fixtures"


def recorded(folder: str, name: str) -> dict[str, Any]:
    """The event ``name`` of ``tests/hook/fixtures/<folder>/``."""
    return dict(json.loads((FIXTURES / folder / f"{name}.json").read_text()))


def gate(cli: str, event: Any, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    """(exit code, the answer, stderr, the requests the gateway saw)."""
    stdin = event if isinstance(event, bytes) else json.dumps(event).encode()
    with fake_gateway(lambda m, p, b: (200, result)) as (url, seen, _r):
        code, answer, err, _ = run_hook(stdin, "gate", "--cli", cli, *args, env=gw_env(url))
    return code, answer, err, seen
