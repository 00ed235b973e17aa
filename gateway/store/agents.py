"""Sub-agents an agent starts itself (Claude's Agent/Task tool, Gemini's invoke_agent), counted per run.

``decide.lua`` admits a spawn only under the run's cap on live sub-agents and its maximum nesting depth,
and records the new sub-agent with a lease. The spawning tool's completion event ends it early (the
sub-agent's work is over when its tool call returns); a sub-agent whose end is never reported stops
counting when its lease ends.
"""

from __future__ import annotations

from gateway.store import keys
from gateway.store.backend import Backend

DEFAULT_MAX_LIVE = 8  # live sub-agents per run, unless the run sets its own
DEFAULT_MAX_DEPTH = 2  # a top-level agent (1) may start sub-agents (2); they may not start more
LEASE_MS = 3600 * 1000


def member(agent_id: str, call_id: str) -> str:
    return f"{agent_id}|{call_id}"


async def ended(backend: Backend, run_id: str, agent_id: str, tool_use_id: str | None) -> None:
    """A spawn tool of ``agent_id`` completed: its sub-agent no longer counts. Without a tool-use id (Gemini
    sends none) the agent's oldest live sub-agent is the one that ended."""
    key = keys.live_agents(run_id)
    r = backend.redis
    if tool_use_id:
        await backend.call(r.zrem(key, member(agent_id, tool_use_id)))
        return
    prefix = member(agent_id, "")
    for name in await backend.call(r.zrange(key, 0, -1)):
        if str(name).startswith(prefix):
            await backend.call(r.zrem(key, name))
            return
