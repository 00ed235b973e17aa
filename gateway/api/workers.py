"""Worker keys (admin only) and what they are for: one agent key per attempt of a subtask.

A worker machine of a distributed run holds its worker key; it never holds the admin key, the store's
address or a run's own agent key. For each attempt it runs, it asks here for the agent's key: the gateway
accepts only an attempt newer than the agent's current one (gateway/store/workers.py), and from then on
every call of an older attempt's agent is ``superseded``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from acteon_core import contract as c
from gateway.api.deps import Admin, Caller, State, Viewer
from gateway.api.operators import Name
from gateway.api.runs import RunPath, claim_binding
from gateway.auth import hash_key, new_key
from gateway.errors import Forbidden
from gateway.models import AttemptCreate, WorkerCreate
from gateway.store import operators, runs, workers

router = APIRouter(prefix=c.API_PREFIX, tags=["workers"])


@router.post("/workers", status_code=201)
async def create_worker(body: WorkerCreate, st: State, _: Admin) -> dict[str, Any]:
    """A new worker machine; the answer carries its key, shown only this once (the gateway keeps its hash)."""
    key = new_key("acteon_worker")
    await operators.add(st.backend, body.name, operators.WORKER, hash_key(key))
    return {"name": body.name, "worker_key": key}


@router.get("/workers")
async def list_workers(st: State, _: Admin) -> dict[str, Any]:
    return {"workers": await operators.listing(st.backend, workers=True)}


@router.delete("/workers/{name}")
async def revoke_worker(name: Name, st: State, _: Admin) -> dict[str, Any]:
    """The worker mints nothing more, at once. Agents it started keep their attempt until a newer one is
    minted elsewhere (the coordinator re-runs their subtasks) or the run is cancelled."""
    await operators.revoke(st.backend, name, worker=True)
    return {"name": name, "revoked": True}


@router.post("/runs/{run_id}/attempts", status_code=201)
async def mint_attempt_key(run_id: RunPath, body: AttemptCreate, st: State, who: Caller) -> dict[str, Any]:
    """The key of one agent for one attempt (a worker key, or the admin key of a coordinator). 409 unless the
    attempt is newer than the agent's current one, which it becomes."""
    if not (who.is_worker or who.is_admin):
        raise Forbidden("only a worker key (or the admin key) mints per-attempt agent keys")
    if run_id == c.DEFAULT_RUN_ID:
        raise Forbidden("the default run has no attempts: it is every session outside an orchestrated run")
    await runs.get(st.backend, run_id)
    binding: dict[str, Any] = {"agent_id": body.agent_id, "root": body.root, "scope": body.files_scope,
                               "attempt": body.attempt, "minted_by": who.name}
    if body.claim is not None:
        binding.update(await claim_binding(st, run_id, body))
    # Advance first, then store the key: a key never exists for an attempt that did not become current.
    await workers.advance(st.backend, run_id, body.agent_id, body.attempt)
    key = new_key("acteon_agent")
    await runs.add_agent_key(st.backend, run_id, hash_key(key), binding)
    return {"run_id": run_id, "agent_id": body.agent_id, "attempt": body.attempt, "agent_key": key}


@router.get("/runs/{run_id}/attempts")
async def get_attempts(run_id: RunPath, st: State, _: Viewer) -> dict[str, Any]:
    """Every agent's current attempt."""
    await runs.get(st.backend, run_id)
    return {"run_id": run_id, "attempts": await workers.current(st.backend, run_id)}
