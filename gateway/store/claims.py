"""Scope claims: which run's task may write which globs of a repository, exact across runs and processes.

A claim is (repository, owner, mode, globs) with a TTL its holder renews by heartbeat and a fencing token
that increases with every grant. Write claims are exclusive against any overlapping claim of another
owner; read claims are shared with other reads. Overlap is decided glob against glob (``acteon_core/globs.py``)
on a snapshot of the repository's claims, and the grant is a compare-and-swap on the snapshot's version
(``lua/claims_grant.lua``): a grant or release in between makes the claimer look again, so two
overlapping write claims are never both held, however many gateways and claimers race.

The agent working under a claim holds its token in its key (``gateway.scope.Binding``); every decision
of that agent checks the token inside the decision script, so a holder whose claim lapsed is refused at
once, even if nobody else claimed the globs yet. The script reads the run's *copy* of the claim (a decision
stays in its run's slot of a Redis Cluster). The copy never promises more than the claim:

- it is written when the key is minted, after the claim is read;
- a renew extends the claim first, then its copies;
- a release deletes the copies first, then the claim.

A takeover needs the claim to have lapsed, and its copies show the same expiry or an earlier one. On a
cluster, the claim's node and the run's node compare expiries with their own clocks; keep them synchronised
(docs/ha.md).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from acteon_core.globs import scopes_overlap
from gateway.store import keys
from gateway.store.backend import Backend

MAX_ATTEMPTS = 200  # compare-and-swap rounds before a claimer under heavy contention gives up (busy)


def repo_digest(repo: str) -> str:
    return hashlib.sha256(repo.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def claim_key(repo: str, claim_id: str) -> str:
    return keys.claim(repo_digest(repo), claim_id)


@dataclass(frozen=True)
class Granted:
    claim_id: str
    token: int
    expires_ms: int


@dataclass(frozen=True)
class Refused:
    reason: str
    holder: str = ""  # the owner of the claim in the way ('' when busy)
    busy: bool = False


@dataclass(frozen=True)
class Held:
    claim_id: str
    owner: str
    mode: str
    globs: tuple[str, ...]
    expires_ms: int


async def _snapshot(backend: Backend, digest: str) -> tuple[str, int, list[Held]]:
    raw = await backend.call(backend.script("claims_read.lua")(
        keys=[keys.claims_version(digest), keys.claims_index(digest)],
        args=[backend.now_arg(), keys.claim(digest, "")]))
    version, now = str(raw[0]), int(raw[1])
    held = [Held(str(raw[i]), str(raw[i + 1]), str(raw[i + 2]), tuple(json.loads(raw[i + 3])), int(raw[i + 4]))
            for i in range(2, len(raw), 5)]
    return version, now, held


def _in_the_way(held: list[Held], now: int, owner: str, mode: str, globs: tuple[str, ...]) -> Refused | None:
    for h in held:
        if h.expires_ms <= now or h.owner == owner or (mode == "read" and h.mode == "read"):
            continue
        hit = scopes_overlap(globs, h.globs)
        if hit is not None:
            return Refused(f"{hit[0]!r} overlaps {hit[1]!r} claimed ({h.mode}) by {h.owner} (both could write "
                           f"{hit[2]}); claim {h.claim_id} expires in {max(0, h.expires_ms - now) // 1000}s "
                           "unless renewed", holder=h.owner)
    return None


async def acquire(backend: Backend, repo: str, owner: str, globs: tuple[str, ...], mode: str,
                  ttl_ms: int) -> Granted | Refused:
    digest = repo_digest(repo)
    claim_id = secrets.token_hex(8)
    for _ in range(MAX_ATTEMPTS):
        version, now, held = await _snapshot(backend, digest)
        refused = _in_the_way(held, now, owner, mode, globs)
        if refused is not None:
            return refused
        result = await backend.call(backend.script("claims_grant.lua")(
            keys=[keys.claims_version(digest), keys.claims_index(digest), keys.claims_fence(digest),
                  keys.claim(digest, claim_id)],
            args=[backend.now_arg(), version, claim_id, owner, mode, json.dumps(list(globs)), ttl_ms,
                  keys.claim(digest, "")]))
        if result[0] == "granted":
            return Granted(claim_id, int(result[1]), int(result[2]))
    return Refused("too many claimers at once on this repository; try again", busy=True)


async def renew(backend: Backend, repo: str, claim_id: str, token: int, ttl_ms: int) -> int:
    """The new expiry, or 0 when the claim lapsed (its holder must claim again, with a new token)."""
    expires = int(await backend.call(backend.script("claims_renew.lua")(
        keys=[claim_key(repo, claim_id)], args=[backend.now_arg(), str(token), ttl_ms])))
    if expires:
        for run_id in await _copies(backend, repo, claim_id):
            await _write_copy(backend, run_id, repo, claim_id, str(token), expires)
    return expires


async def release(backend: Backend, repo: str, claim_id: str, token: int) -> bool:
    digest = repo_digest(repo)
    if await token_of(backend, repo, claim_id) != str(token):
        return False  # not the holder: its agents' copies stay
    for run_id in await _copies(backend, repo, claim_id):
        await backend.call(backend.redis.delete(keys.claim_copy(run_id, claim_key(repo, claim_id))))
    released = bool(await backend.call(backend.script("claims_release.lua")(
        keys=[keys.claim(digest, claim_id), keys.claims_index(digest), keys.claims_version(digest)],
        args=[str(token), claim_id])))
    if released:
        await backend.call(backend.redis.delete(keys.claim_copies(digest, claim_id)))
    return released


async def copy_to_run(backend: Backend, run_id: str, repo: str, claim_id: str, token: int) -> bool:
    """Give the run a copy of the claim its new agent key works under; False when the claim is not held with
    ``token`` (nothing is copied)."""
    digest = repo_digest(repo)
    # Registered first, read second: a renew in between reaches this copy too.
    await backend.call(backend.redis.sadd(keys.claim_copies(digest, claim_id), run_id))
    held, expires = await backend.call(backend.redis.hmget(claim_key(repo, claim_id), ["token", "expires_ms"]))
    if held != str(token):
        return False
    await _write_copy(backend, run_id, repo, claim_id, str(token), int(expires or 0))
    return True


async def _copies(backend: Backend, repo: str, claim_id: str) -> list[str]:
    return sorted(str(r) for r in await backend.call(
        backend.redis.smembers(keys.claim_copies(repo_digest(repo), claim_id))))


async def _write_copy(backend: Backend, run_id: str, repo: str, claim_id: str, token: str, expires_ms: int) -> None:
    await backend.call(backend.script("claims_copy.lua")(
        keys=[keys.claim_copy(run_id, claim_key(repo, claim_id))], args=[token, expires_ms]))


async def list_claims(backend: Backend, repo: str) -> dict[str, Any]:
    _, now, held = await _snapshot(backend, repo_digest(repo))
    return {"repo": repo, "now_ms": now, "claims": [
        {"claim_id": h.claim_id, "owner": h.owner, "mode": h.mode, "globs": list(h.globs),
         "expires_ms": h.expires_ms, "lapsed": h.expires_ms <= now} for h in held]}


async def token_of(backend: Backend, repo: str, claim_id: str) -> str | None:
    v = await backend.call(backend.redis.hget(claim_key(repo, claim_id), "token"))
    return str(v) if v is not None else None
