"""How every failure becomes an answer: each error is JSON with a code and a message (docs/gateway.md), never a
stack trace, never a 500 for bad input. The exceptions themselves are in ``gateway.errors``.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from acteon_core import contract as c
from gateway import console
from gateway.errors import GatewayError, NotReplicated, StoreUnavailable
from gateway.metrics import Metrics

log = logging.getLogger("acteon.gateway")

_MAX_MESSAGE = 3500  # every error body stays under 4 KB, whatever a request echoes back


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """The one shape of every error answer: ``{"error": {"code", "message"}}``, never a stack trace."""
    if len(message) > _MAX_MESSAGE:
        message = f"{message[:_MAX_MESSAGE]}… ({len(message) - _MAX_MESSAGE:,} more characters)"
    return JSONResponse({c.ERROR_KEY: {"code": code, "message": message}}, status_code=status)



def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return 400, "body: malformed JSON"
    parts = []
    for e in errors[:5]:
        loc = [str(x) for x in e.get("loc", ()) if x not in ("body",)]
        where = ".".join(loc) or "body"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return 422, "; ".join(parts)




def install(app: FastAPI, metrics: Metrics) -> None:
    """Answer every exception the app can raise in the error shape (pages get an error page)."""

    @app.exception_handler(GatewayError)
    async def _gateway_error(request: Request, exc: GatewayError) -> Response:
        if isinstance(exc, StoreUnavailable):
            metrics.store_errors.inc()
            if not isinstance(exc, NotReplicated):  # redis-py's text may name the store's address
                exc = StoreUnavailable("state store unavailable; try again")
        if console.wants_page(request):
            return console.error_page(request, exc)
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_r: Request, exc: RequestValidationError) -> JSONResponse:
        status, message = _validation_message(exc)
        return error_response(status, "malformed_json" if status == 400 else "invalid_request", message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_r: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(RecursionError)
    async def _too_deep(_r: Request, _exc: RecursionError) -> JSONResponse:
        # Only input nests this deep (a JSON body a hundred thousand levels down): bad input, not a fault.
        return error_response(400, "too_deep", "body: nested too deeply")

    @app.exception_handler(Exception)
    async def _unexpected(_r: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error: %s: %s", type(exc).__name__, exc)
        return error_response(500, "internal", "internal error")


class KeepConnection:
    """Outermost layer: a fault already answered (the 500 above) ends here.

    Starlette's last-resort layer sends the 500 and then raises the fault again, for the server to log; uvicorn
    then closes the connection, and a client that sends its next request on that pooled connection gets no
    answer at all. The fault was logged when it was answered, so once the whole answer is out there is nothing
    left to do with it. A fault before or during the answer still reaches the server, which closes the
    connection: half an answer must not look like a whole one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        answered = False

        async def watched(message: Message) -> None:
            nonlocal answered
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True

        try:
            await self.app(scope, receive, watched)
        except Exception:
            if not answered:
                raise
