"""Named keys: operators, people who look at and decide on what agents asked for (docs/security.md), and workers,
machines that run agents for a distributed run.

A key is stored as its SHA-256 only, with its name and role. People's roles are ordered: ``viewer`` may
look, ``operator`` may also decide (approve, reject, cancel a run), ``admin`` may also manage rules, runs
and operators. The admin key of the gateway is an ``admin`` with the name ``admin``. ``worker`` is not a
person's role and allows nothing of theirs: a worker key only mints per-attempt agent keys
(gateway/store/workers.py). Operators and workers share one namespace of names, so a name in the audit
(who decided, who minted) is never ambiguous.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import Conflict, NotFound
from gateway.store import keys
from gateway.store.backend import Backend

ROLES = ("viewer", "operator", "admin")  # each may do what the ones before it may
WORKER = "worker"


def role_allows(role: str, needed: str) -> bool:
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


async def add(backend: Backend, name: str, role: str, key_hash: str) -> None:
    """A new operator or worker; its name must be free (revoke first to replace a key)."""
    [taken] = await backend.durable(("HSETNX", keys.OPERATORS, name, key_hash))
    if not taken:
        raise Conflict(f"the name '{name}' is taken (by an operator or a worker); revoke it first to give it "
                       "a new key")
    now = await backend.now_ms()
    await backend.durable(("HSET", keys.operator(key_hash), "name", name, "role", role, "created_ms", now))


async def owner(backend: Backend, key_hash: str) -> tuple[str, str] | None:
    """(name, role) of an operator or worker key, or None."""
    found = await backend.call(backend.redis.hmget(keys.operator(key_hash), ["name", "role"]))
    if not found or not found[0] or (found[1] not in ROLES and found[1] != WORKER):
        return None
    return str(found[0]), str(found[1])


async def listing(backend: Backend, *, workers: bool = False) -> list[dict[str, Any]]:
    """The operators (or, with ``workers``, the workers), never their keys."""
    names: dict[str, str] = await backend.call(backend.redis.hgetall(keys.OPERATORS))
    out = []
    for name, digest in sorted(names.items()):
        info = await backend.call(backend.redis.hgetall(keys.operator(digest)))
        if not info:
            continue  # a name whose key is gone (a revoke cut short): it lets nobody in
        if (info.get("role") == WORKER) == workers:
            out.append({"name": name, "role": info.get("role"), "created_ms": int(info.get("created_ms") or 0)})
    return out


async def revoke(backend: Backend, name: str, *, worker: bool = False) -> None:
    """The key stops working at once. An operator is revoked only as an operator, a worker only as a worker."""
    r = backend.redis
    digest = await backend.call(r.hget(keys.OPERATORS, name))
    role = digest and await backend.call(r.hget(keys.operator(str(digest)), "role"))
    # A name whose key is gone already (a revoke cut short between its two writes) is removed either way.
    if not digest or (role is not None and (role == WORKER) != worker):
        raise NotFound(f"no {'worker' if worker else 'operator'} named '{name}'")
    # The key first, then the name (the two live in different slots of a cluster): cut short in between,
    # the key no longer works and the name is freed by revoking again.
    await backend.durable(("DEL", keys.operator(str(digest))))
    await backend.durable(("HDEL", keys.OPERATORS, name))
