"""Named operator keys (admin only): who may look at the console, who may decide, who may manage."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from acteon_core import contract as c
from gateway.api.deps import Admin, State
from gateway.auth import hash_key, new_key
from gateway.models import OperatorCreate
from gateway.store import operators

router = APIRouter(prefix=f"{c.API_PREFIX}/operators", tags=["operators"])
Name = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")]


@router.post("", status_code=201)
async def create_operator(body: OperatorCreate, st: State, _: Admin) -> dict[str, Any]:
    """A new operator; the answer carries its key, shown only this once (the gateway keeps its hash)."""
    key = new_key("acteon_op")
    await operators.add(st.backend, body.name, body.role, hash_key(key))
    return {"name": body.name, "role": body.role, "operator_key": key}


@router.get("")
async def list_operators(st: State, _: Admin) -> dict[str, Any]:
    return {"operators": await operators.listing(st.backend)}


@router.delete("/{name}")
async def revoke_operator(name: Name, st: State, _: Admin) -> dict[str, Any]:
    """The key stops working at once, console sessions signed in with it included."""
    await operators.revoke(st.backend, name)
    return {"name": name, "revoked": True}
