"""The app factory: ``create_app()`` builds one gateway process (docs/gateway.md).

The orchestrator may start a gateway in-process through this factory only (docs/gateway.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from redis.asyncio.client import Redis
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import console
from gateway.analyzer import Analyzer, shared_analyzer
from gateway.api import approvals, claims, dispatch, explain, health, hooks, operators, rules, runs, workers
from gateway.auth import Authenticator, ensure_admin_key, ensure_default_agent_key, hash_key
from gateway.config import Settings
from gateway.console.live import Hub
from gateway.dispatch import Dispatcher
from gateway.errors import GatewayError, StoreUnavailable
from gateway.metrics import Metrics
from gateway.notify import Notifier
from gateway.policy import Policy
from gateway.state import GatewayState
from gateway.store import runs as run_store
from gateway.store.backend import Backend, Clock, connect
from gateway.store.guard import refuse_open_store, store_endpoints
from gateway.webhooks import WebhookConfig, Webhooks
from hook import contract as c

log = logging.getLogger("acteon.gateway")
VERSION_CHECK_S = 2.0


_MAX_MESSAGE = 3500  # every error body stays under 4 KB, whatever a request echoes back


def _error(status: int, code: str, message: str) -> JSONResponse:
    if len(message) > _MAX_MESSAGE:
        message = f"{message[:_MAX_MESSAGE]}… ({len(message) - _MAX_MESSAGE:,} more characters)"
    return JSONResponse({c.ERROR_KEY: {"code": code, "message": message}}, status_code=status)


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
                await _error(413, "too_large", f"request body over {self.limit} bytes")(scope, receive, send)
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
            await _error(413, "too_large", f"request body over {self.limit} bytes")(scope, receive, send)


class _TooLarge(Exception):
    pass


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


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    redis: Redis | None = None,
    analyzer: Analyzer | None = None,
) -> FastAPI:
    """Build a gateway. ``clock`` (ms) replaces Redis TIME — for tests only; ``redis`` injects a client;
    ``analyzer`` replaces the process's shared shell analyzer."""
    settings = settings or Settings.from_env()
    settings.check()
    embedded = not settings.redis_url
    if settings.redis_url and not settings.insecure_redis and redis is None:
        refuse_open_store(settings.redis_url)  # raises OpenStore: never serve on a store anyone can rewrite
    backend = Backend(redis if redis is not None else connect(settings.redis_url, timeout_s=settings.redis_timeout_s),
                      clock=clock, timeout_s=settings.redis_timeout_s)
    admin_key_file: Path | None = None
    admin_key = settings.admin_key
    if not admin_key:
        admin_key, admin_key_file = ensure_admin_key(settings.state_dir)
    default_agent_key, _ = ensure_default_agent_key(settings.state_dir)
    policy = Policy(backend, settings.rules_dir, settings.state_dir)
    metrics = Metrics()
    # What agents may not touch: the state directory (key files) and the store itself, whose address the
    # shell analysis recognises in raw connections (`nc 127.0.0.1 6379`, `/dev/tcp/…`, `curl gopher://…`).
    # The state directory is out of the agents' reach, except the worktrees the orchestrator makes for them
    # there (an embedded gateway shares the orchestrator's state directory).
    state_dir = settings.state_dir.resolve()
    secret_paths = (str(state_dir), f"!{state_dir / 'worktrees'}", *store_endpoints(settings.redis_url))
    if analyzer is None and settings.isolate_analysis:
        analyzer = shared_analyzer()
    if analyzer is not None:
        analyzer.start()  # the children import the parser while the app finishes starting
    webhook_config = None if settings.webhook_url is None else WebhookConfig(
        url=settings.webhook_url, secret=settings.webhook_secret or "", console_url=settings.console_url)
    state = GatewayState(
        settings=settings, backend=backend, policy=policy, auth=Authenticator(backend, admin_key),
        dispatcher=Dispatcher(backend, policy, metrics, settings.home, secret_paths, analyzer),
        metrics=metrics, notifier=Notifier(backend, policy.refresh_global),
        embedded=embedded, admin_key_file=admin_key_file, webhooks=Webhooks(backend, webhook_config),
    )
    hub = Hub(backend, metrics)
    state.notifier.on_approval.append(hub.approval_changed)
    if webhook_config is not None:
        hub.on_new_approval.append(state.webhooks.approval_created)

    state.auth.remember(default_agent_key, c.DEFAULT_RUN_ID)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            await run_store.ensure_default(backend)
            # Other gateway processes on this Redis learn the key from it.
            await run_store.add_agent_key(backend, c.DEFAULT_RUN_ID, hash_key(default_agent_key))
            await policy.start(rules_from_file=settings.rules_from_file)
        except StoreUnavailable as e:  # start anyway; health says so and decisions resume later
            log.warning("state store unavailable at start-up: %s", e)
        state.notifier.start()
        state.webhooks.start()
        checker = asyncio.create_task(_version_checks(policy))
        # Everything allocated so far (modules, the compiled pack, the parser) lives as long as the
        # process: move it out of the collector's sight so full collections stay short (p99).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            checker.cancel()
            await hub.stop()
            await state.webhooks.stop()
            await state.notifier.stop()
            with contextlib.suppress(Exception):
                await backend.redis.aclose()

    app = FastAPI(
        title="acteon-swarm gateway",
        version="0.1.0",
        description="Every agent tool call is sent here before it runs; rules decide.",
        lifespan=lifespan,
    )
    app.state.gateway = state
    for r in (dispatch.router, hooks.router, runs.router, rules.router, rules.vocabulary_router, approvals.router,
              claims.router, health.router, operators.router, workers.router, explain.router):
        app.include_router(r)

    @app.exception_handler(GatewayError)
    async def _gateway_error(request: Request, exc: GatewayError) -> Response:
        if isinstance(exc, StoreUnavailable):
            metrics.store_errors.inc()
            exc = StoreUnavailable("state store unavailable; try again")
        if console.wants_page(request):
            return console.error_page(request, exc)
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_r: Request, exc: RequestValidationError) -> JSONResponse:
        status, message = _validation_message(exc)
        return _error(status, "malformed_json" if status == 400 else "invalid_request", message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_r: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(RecursionError)
    async def _too_deep(_r: Request, _exc: RecursionError) -> JSONResponse:
        # Only input nests this deep (a JSON body a hundred thousand levels down): bad input, not a fault.
        return _error(400, "too_deep", "body: nested too deeply")

    @app.exception_handler(Exception)
    async def _unexpected(_r: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error: %s: %s", type(exc).__name__, exc)
        return _error(500, "internal", "internal error")

    console.install(app, hub)
    # Ours, not FastAPI's max_body_size: that one answers 413 in plain text, and every error here is JSON.
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    return app


async def _version_checks(policy: Policy) -> None:
    """Safety net for lost pub/sub messages: compare the global rules version now and then."""
    while True:
        await asyncio.sleep(VERSION_CHECK_S)
        with contextlib.suppress(Exception):
            await policy.check_global_version()


def app_from_env() -> Any:
    """Factory for ``uvicorn --factory gateway.app:app_from_env``."""
    return create_app()
