"""The operator console, served by the gateway itself under ``/console`` (no build step, no CDN).

    pages.py     the routes: sign-in, approvals, runs, audit, exports, live feeds
    sessions.py  sign-in cookies and CSRF tokens
    live.py      Server-Sent Events: one reader per source per process, fanned out to open pages
    views.py     the Jinja2 environment and the fragments the live feeds push
    templates/   the HTML;  static/  the one script and the stylesheet
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from acteon_core import contract as c
from gateway.console.live import Hub
from gateway.console.pages import NotSignedIn, router
from gateway.console.views import render
from gateway.errors import GatewayError

STATIC = Path(__file__).parent / "static"
PREFIX = "/console"

# No inline script or style, nothing from elsewhere, never inside a frame.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
_HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
            (b"cross-origin-opener-policy", b"same-origin")]


class ConsoleHeaders:
    """Security headers on every console response; pages and feeds (data) are never cached."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        static = path.startswith(f"{PREFIX}/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"cache-control"] + _HEADERS
                headers.append((b"cache-control", b"public, max-age=300" if static else b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def wants_page(request: Request) -> bool:
    """A browser navigating (HTML), not the console's script or an event stream."""
    path = request.url.path
    return (path.startswith(PREFIX) and request.method == "GET" and not path.startswith(f"{PREFIX}/live/")
            and "text/html" in request.headers.get("accept", ""))


def error_page(request: Request, exc: GatewayError) -> HTMLResponse:
    return HTMLResponse(render("error.html", request=request, me=None, csrf="", can_decide=False,
                               status=exc.status, message=exc.message), status_code=exc.status)


def install(app: FastAPI, hub: Hub) -> None:
    app.state.console_hub = hub
    app.include_router(router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=STATIC), name="console-static")
    app.add_middleware(ConsoleHeaders)

    # A browser pointed at the gateway's address lands on the console, not on a JSON 404.
    @app.get("/", include_in_schema=False)
    async def _root() -> RedirectResponse:
        return RedirectResponse(PREFIX, status_code=307)

    @app.get("/favicon.ico", include_in_schema=False)
    async def _favicon() -> RedirectResponse:
        return RedirectResponse(f"{PREFIX}/static/favicon.svg", status_code=308)

    @app.exception_handler(NotSignedIn)
    async def _not_signed_in(request: Request, _exc: NotSignedIn) -> Response:
        if wants_page(request):
            return RedirectResponse(f"{PREFIX}/login", status_code=303)
        return JSONResponse({c.ERROR_KEY: {"code": "unauthorized", "message": "sign in to the console first"}},
                            status_code=401)
