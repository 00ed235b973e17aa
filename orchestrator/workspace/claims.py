"""A task's file scope, claimed in the gateway for as long as the task runs (gateway/store/claims.py).

Claims are what keep two runs (or two orchestrators) on one repository from writing the same files at
once: the scheduler only sees its own run. The claim is renewed every third of its TTL; the agents of the
task hold its fencing token in their keys, so if the heartbeat stops (this process frozen or killed) the
claim lapses and the gateway refuses their calls by token, before anyone else can be granted the globs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from orchestrator.gatewayclient import Conflict, GatewayClient
from orchestrator.workspace.localclaims import LocalClaims

MAX_BACKOFF_S = 5.0


class ClaimRefused(Exception):
    """Another claim overlaps and the run chose to fail rather than wait."""


@dataclass(frozen=True)
class Held:
    repo: str
    claim_id: str
    token: int

    def ref(self) -> dict[str, object]:
        return {"repo": self.repo, "claim_id": self.claim_id, "token": self.token}


@contextlib.asynccontextmanager
async def scope_claim(client: GatewayClient, *, repo: str, owner: str, globs: list[str], ttl_s: float, wait: bool,
                      waiting: Callable[[str], None], lapsed: Callable[[str], None],
                      local: LocalClaims | None = None) -> AsyncIterator[Held]:
    """Hold a write claim on ``globs`` while the block runs: in ``local`` (orchestrators of this machine that
    do not share a gateway) and in the gateway. ``waiting(reason)`` is called when another claim is in the
    way (with ``wait``; else :class:`ClaimRefused`), ``lapsed(reason)`` if a renewal fails."""
    backoff = 0.2
    shown = ""
    while True:
        reason = await asyncio.to_thread(local.acquire, owner, globs) if local is not None else None
        if reason is None:
            try:
                got = await client.claim(repo, owner, globs, ttl_s)
                break
            except Conflict as e:
                reason = str(e).split(": ", 2)[-1]
                if local is not None:
                    await asyncio.to_thread(local.release, owner)
        if not wait:
            raise ClaimRefused(reason)
        if reason != shown:
            waiting(reason)
            shown = reason
        await asyncio.sleep(backoff)
        backoff = min(MAX_BACKOFF_S, backoff * 2)
    held = Held(repo, str(got["claim_id"]), int(got["token"]))

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(ttl_s / 3)
            try:
                await client.renew_claim(repo, held.claim_id, held.token, ttl_s)
            except Conflict as e:
                lapsed(str(e))
                return

    beating = asyncio.create_task(heartbeat())
    try:
        yield held
    finally:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating
        with contextlib.suppress(Exception):  # a lapsed claim is gone already; the gateway may be gone
            await client.release_claim(repo, held.claim_id, held.token)
        if local is not None:
            await asyncio.to_thread(local.release, owner)
