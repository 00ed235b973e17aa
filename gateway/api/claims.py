"""Scope claims across runs (gateway/store/claims.py): claim, renew by heartbeat, release, list."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from acteon_core import contract as c
from gateway.api.deps import Admin, State
from gateway.errors import Conflict, StoreUnavailable
from gateway.models import ClaimCreate, ClaimRenew, RepoId
from gateway.store import claims

router = APIRouter(prefix=f"{c.API_PREFIX}/claims", tags=["claims"])
ClaimId = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="claim id")]


@router.post("", status_code=201)
async def claim(body: ClaimCreate, st: State, _: Admin) -> dict[str, Any]:
    """Claim globs of a repository. 409 names the claim in the way (overlapping globs, holder, a path both
    could write); the caller decides whether to wait and ask again or to give up."""
    got = await claims.acquire(st.backend, body.repo, body.owner, tuple(body.globs), body.mode,
                               max(1, round(body.ttl_s * 1000)))
    if isinstance(got, claims.Refused):
        if got.busy:
            raise StoreUnavailable(got.reason)
        raise Conflict(f"scope claim refused: {got.reason}")
    return {"claim_id": got.claim_id, "token": got.token, "expires_ms": got.expires_ms}


@router.post("/{claim_id}/renew")
async def renew(claim_id: ClaimId, body: ClaimRenew, st: State, _: Admin) -> dict[str, Any]:
    """The holder's heartbeat; 409 once the claim lapsed (claim again: a new token)."""
    expires = await claims.renew(st.backend, body.repo, claim_id, body.token, max(1, round(body.ttl_s * 1000)))
    if not expires:
        raise Conflict(f"claim {claim_id} lapsed or is not held with token {body.token}: claim again")
    return {"claim_id": claim_id, "expires_ms": expires}


@router.delete("/{claim_id}")
async def release(claim_id: ClaimId, st: State, _: Admin, repo: Annotated[RepoId, Query()],
                  token: Annotated[int, Query(ge=1)]) -> dict[str, Any]:
    return {"claim_id": claim_id, "released": await claims.release(st.backend, repo, claim_id, token)}


@router.get("")
async def list_claims(st: State, _: Admin, repo: Annotated[RepoId, Query()]) -> dict[str, Any]:
    return await claims.list_claims(st.backend, repo)
