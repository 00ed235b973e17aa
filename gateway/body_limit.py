"""Request bodies over a limit are refused with 413 before the app reads them (FastAPI's own limit answers
in plain text; every error here is JSON)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.error_handlers import error_response


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, counting streamed bodies too."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await error_response(413, "too_large", f"request body over {self.limit} bytes")(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return msg

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await error_response(413, "too_large", f"request body over {self.limit} bytes")(scope, receive, send)


class _TooLarge(Exception):
    pass
