"""Per-attempt agent keys: the fence of a distributed run (a subtask may run on another machine).

A worker machine holds a worker key (a named key with the role ``worker``, gateway/store/operators.py).
For each attempt of a subtask it mints the agent's key here: the attempt must be newer than the agent's
current one, and becomes it, in one script (``advance_attempt.lua``). The key carries its attempt, and
every decision compares it with the current one inside the decision script (``decide.lua``): once the
subtask was given to another machine (a newer attempt was minted), each call of the old attempt's agent
is ``superseded`` and audited — it is cut off at once, whatever its worker still believes.
"""

from __future__ import annotations

from gateway.errors import Conflict, NotFound
from gateway.store import keys
from gateway.store.backend import Backend


async def advance(backend: Backend, run_id: str, agent_id: str, attempt: int) -> None:
    """Make ``attempt`` the agent's current one; Conflict when it is not newer or the run was cancelled."""
    [(verdict, current)] = await backend.durable(backend.eval_command(
        "advance_attempt.lua", [keys.run(run_id), keys.attempts(run_id)], [agent_id, str(attempt)]))
    if verdict == "unknown_run":
        raise NotFound(f"run '{run_id}' not found")
    if verdict == "cancelled":
        raise Conflict(f"run '{run_id}' was cancelled: no new attempts")
    if verdict == "not_newer":
        raise Conflict(f"agent '{agent_id}' of run '{run_id}' is at attempt {current} already: only a newer "
                       "attempt gets a key")


async def current(backend: Backend, run_id: str) -> dict[str, int]:
    """Every agent's current attempt in the run."""
    raw = await backend.call(backend.redis.hgetall(keys.attempts(run_id)))
    return {str(agent): int(n) for agent, n in raw.items()}
