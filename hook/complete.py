"""``acteon-swarm-hook complete``: report a finished tool call (PostToolUse / AfterTool) to the gateway.

The tool has already run, so nothing here can block anything: failures are reported on stderr and the
hook still answers ``{}`` with exit code 0.
"""

from __future__ import annotations

import time

from acteon_core import contract as c
from acteon_core import dialects, shapes, wire
from hook import client, gate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def event_body(event: Mapping[str, Any], dialect: str, env: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    ev = dict(event)
    agent_id = env.get(c.ENV_AGENT_ID) or dialects.default_agent_id(ev, dialect)
    return env.get(c.ENV_RUN_ID) or c.DEFAULT_RUN_ID, dialects.completion(ev, agent_id)


def run(raw: bytes, flag: str | None, env: Mapping[str, str], *, url: str | None, key_file: str | None,
        budget_s: float) -> str:
    """Post the event; returns a problem description for stderr ('' when all went well)."""
    try:
        event = wire.loads(raw.removeprefix(gate.BOM))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "acteon-swarm: the hook input is not JSON; no event recorded"
    if not isinstance(event, dict):
        return "acteon-swarm: the hook input is not a JSON object; no event recorded"
    dialect = dialects.detect(event.get("hook_event_name"), flag) or dialects.CLAUDE
    event = shapes.claude_shaped(event, dialect, shapes.POST)
    try:
        key = gate.agent_key(env, key_file)
        run_id, body = event_body(event, dialect, env)
        reply = client.request(
            "POST", url or env.get(c.ENV_URL) or c.DEFAULT_URL, f"{c.API_PREFIX}/runs/{run_id}/events",
            wire.dumps(body).encode(), {"Authorization": f"Bearer {key}"},
            time.monotonic() + min(budget_s, c.DISPATCH_TIMEOUT_S),
        )
    except (gate.Denied, client.HttpError) as e:
        return f"acteon-swarm: event not recorded: {e}"
    if reply.status != 202:
        return f"acteon-swarm: event not recorded: the gateway answered {reply.status}"
    return ""
