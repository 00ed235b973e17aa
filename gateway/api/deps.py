"""Request dependencies shared by the routers: the process state and the caller's identity."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from gateway.auth import Principal
from gateway.state import GatewayState

# Declared as a security scheme so the OpenAPI document (and its clients) know about the bearer key;
# auto_error is off so that every failure answers in our own error format.
bearer = HTTPBearer(auto_error=False, description="the admin key, an operator key or a run's agent key")


async def state(request: Request) -> GatewayState:
    # async on purpose: FastAPI runs plain-def dependencies in a thread pool, a costly hop per request.
    s: GatewayState = request.app.state.gateway
    return s


async def principal(
    request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Principal:
    header = f"Bearer {creds.credentials}" if creds else request.headers.get("authorization")
    st: GatewayState = request.app.state.gateway
    return await st.auth.principal(header)


def _role(needed: str) -> Callable[[Principal], Awaitable[Principal]]:
    async def check(p: Annotated[Principal, Depends(principal)]) -> Principal:
        p.require(needed)
        return p

    return check


State = Annotated[GatewayState, Depends(state)]
Caller = Annotated[Principal, Depends(principal)]  # anyone with a key; the route checks the run
Viewer = Annotated[Principal, Depends(_role("viewer"))]  # a person: looks
Operator = Annotated[Principal, Depends(_role("operator"))]  # a person who decides
Admin = Annotated[Principal, Depends(_role("admin"))]  # a person who also manages rules, runs, operators
