"""Request dependencies shared by the routers: the process state and the caller's identity."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from gateway.auth import Principal
from gateway.state import GatewayState


def state(request: Request) -> GatewayState:
    s: GatewayState = request.app.state.gateway
    return s


async def principal(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> Principal:
    return await state(request).auth.principal(authorization)


async def admin(p: Annotated[Principal, Depends(principal)]) -> Principal:
    p.require_admin()
    return p


State = Annotated[GatewayState, Depends(state)]
Caller = Annotated[Principal, Depends(principal)]
Admin = Annotated[Principal, Depends(admin)]
