"""Runs: creation with a run-scoped agent key, status, cancel, stats, per-run rules."""

from __future__ import annotations

import json
from typing import Any

from acteon_core import contract as c
from gateway.errors import Conflict, NotFound
from gateway.store import keys, packs
from gateway.store.backend import Backend, Command

STAT_FIELDS = ("dispatched", *c.OUTCOMES)


async def create(
    backend: Backend,
    run_id: str,
    *,
    agent_key_hash: str,
    quota: dict[str, Any] | None,
    rules: list[dict[str, Any]] | None,
    rules_version: str,
    exist_ok: bool = False,
    agents: dict[str, Any] | None = None,
) -> None:
    r = backend.redis
    now = await backend.now_ms()
    fields: dict[Any, Any] = {  # redis-py types hash keys invariantly; these are all str
        "run_id": run_id, "status": "active", "created_ms": now,
        "rules_version": rules_version if rules else "0", "agent_key_hash": agent_key_hash,
    }
    if quota:
        fields.update(
            q_max=quota["max_actions"], q_window=max(1, round(quota["window_s"] * 1000)),
            q_overage=quota.get("overage", "block"), q_start=now, q_used=0,
        )
    if agents:
        fields.update(s_max=agents["max_live"], s_depth=agents["max_depth"])
    # Indexed before the pack in force is read: an install that comes after the read copies its pack to
    # every indexed run, this one included (gateway/store/packs.py).
    await backend.call(r.zadd(keys.RUNS_INDEX, {run_id: now}, nx=True))
    pack = await packs.in_force(backend)
    created = await backend.call(r.hsetnx(keys.run(run_id), "status", "active"))
    if not created and not exist_ok:
        raise Conflict(f"run '{run_id}' already exists")
    if not created:
        return
    commands: list[Command] = [("HSET", keys.run(run_id), *(x for kv in fields.items() for x in kv))]
    if pack is not None:
        commands.append(packs.copy_to_run(backend, run_id, *pack))
    if rules:
        commands.append(("SET", keys.run_rules(run_id), json.dumps(rules)))
    if agent_key_hash:
        commands.append(("SET", keys.agent_key(agent_key_hash), run_id))
    await backend.durable(*commands)  # the run's agent key and rules


async def ensure_default(backend: Backend) -> None:
    """The default run always exists (sessions outside any run use it); idempotent."""
    await create(backend, c.DEFAULT_RUN_ID, agent_key_hash="", quota=None, rules=None, rules_version="0",
                 exist_ok=True)


async def get(backend: Backend, run_id: str) -> dict[str, Any]:
    raw = await backend.call(backend.redis.hgetall(keys.run(run_id)))
    if not raw or "status" not in raw:  # a hash with only a pack copy is a run still being created
        raise NotFound(f"run '{run_id}' not found")
    out: dict[str, Any] = {
        "run_id": run_id, "status": raw.get("status"), "created_ms": int(raw.get("created_ms", 0)),
        "rules_version": raw.get("rules_version", "0"),
    }
    if "q_max" in raw:
        out["quota"] = {
            "max_actions": int(raw["q_max"]), "window_s": int(raw["q_window"]) / 1000,
            "overage": raw.get("q_overage", "block"), "used": int(raw.get("q_used", 0)),
            "window_start_ms": int(raw.get("q_start", 0)),
        }
    if "cancelled_ms" in raw:
        out["cancelled_ms"] = int(raw["cancelled_ms"])
    if "s_max" in raw:
        out["agents"] = {"max_live": int(raw["s_max"]), "max_depth": int(raw["s_depth"])}
    return out


async def list_runs(backend: Backend, limit: int = 1000) -> list[str]:
    ids = await backend.call(backend.redis.zrevrange(keys.RUNS_INDEX, 0, limit - 1))
    return [str(i) for i in ids]


async def stats(backend: Backend, run_id: str) -> dict[str, int]:
    await get(backend, run_id)
    raw = await backend.call(backend.redis.hgetall(keys.stats(run_id)))
    out = {f: int(raw.get(f, 0)) for f in STAT_FIELDS}
    out["quota_warned"] = int(raw.get("quota_warned", 0))
    return out


async def cancel(backend: Backend, run_id: str) -> None:
    await get(backend, run_id)
    now = await backend.now_ms()
    await backend.durable(("HSET", keys.run(run_id), "status", "cancelled", "cancelled_ms", now))


async def add_agent_key(backend: Backend, run_id: str, key_hash: str, binding: dict[str, Any] | None = None) -> None:
    """Store an agent key (hashed) for a run; ``binding`` ties it to one agent and its file scope."""
    await get(backend, run_id)
    value = run_id if binding is None else json.dumps({"run": run_id, **binding})
    await backend.durable(("SET", keys.agent_key(key_hash), value))


async def agent_key_owner(backend: Backend, key_hash: str) -> tuple[str, dict[str, Any] | None] | None:
    """(run id, binding or None) of an agent key, or None for an unknown key."""
    v = await backend.call(backend.redis.get(keys.agent_key(key_hash)))
    if not v:
        return None
    text = str(v)
    if not text.startswith("{"):
        return text, None
    data = json.loads(text)
    return str(data.pop("run")), data


async def get_run_rules(backend: Backend, run_id: str) -> tuple[str, list[dict[str, Any]]]:
    """(version, rules) of a run's own rules; version '0' means none."""
    async with backend.redis.pipeline(transaction=False) as p:
        p.hget(keys.run(run_id), "rules_version")
        p.get(keys.run_rules(run_id))
        version, blob = await backend.call(p.execute())
    if version is None:
        raise NotFound(f"run '{run_id}' not found")
    return str(version), (json.loads(blob) if blob else [])


async def put_run_rules(backend: Backend, run_id: str, rules: list[dict[str, Any]], version: str) -> None:
    await get(backend, run_id)
    # One script: a process must never read the new version with the old rules (both keys are the run's).
    await backend.durable(backend.eval_command("put_run_rules.lua", [keys.run_rules(run_id), keys.run(run_id)],
                                               [json.dumps(rules), version if rules else "0"]))
