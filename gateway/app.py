"""The app factory: ``create_app()`` builds one gateway process (docs/gateway.md).

The orchestrator may start a gateway in-process through this factory only (docs/gateway.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from redis.asyncio.client import Redis

from acteon_core import contract as c
from gateway import console, error_handlers
from gateway.analyzer import Analyzer, shared_analyzer
from gateway.api import approvals, claims, dispatch, explain, health, hooks, operators, rules, runs, workers
from gateway.auth import Authenticator, ensure_admin_key, ensure_default_agent_key, hash_key
from gateway.body_limit import BodyLimit
from gateway.config import Settings
from gateway.console.live import Hub
from gateway.dispatch import Dispatcher
from gateway.errors import StoreUnavailable
from gateway.metrics import Metrics
from gateway.notify import Notifier
from gateway.policy import Policy
from gateway.state import GatewayState
from gateway.store import runs as run_store
from gateway.store import topology
from gateway.store.backend import Backend, Clock, connect
from gateway.store.guard import refuse_open_store, store_endpoints
from gateway.webhooks import WebhookConfig, Webhooks

log = logging.getLogger("acteon.gateway")
VERSION_CHECK_S = 2.0


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
    state, default_agent_key = _state(settings, clock=clock, redis=redis, analyzer=analyzer)
    hub = Hub(state.backend, state.metrics)
    state.notifier.on_approval.append(hub.approval_changed)
    if state.webhooks.config is not None:
        hub.on_new_approval.append(state.webhooks.approval_created)
    app = _Gateway(
        title="acteon-swarm gateway",
        version=c.VERSION,
        description="Every agent tool call is sent here before it runs; rules decide.",
        lifespan=_lifespan(state, hub, default_agent_key),
    )
    app.state.gateway = state
    for r in (dispatch.router, hooks.router, runs.router, rules.router, rules.vocabulary_router, approvals.router,
              claims.router, health.router, operators.router, workers.router, explain.router):
        app.include_router(r)
    error_handlers.install(app, state.metrics)
    console.install(app, hub)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    return app


class _Gateway(FastAPI):
    """The app, with a fault that was answered kept from closing the connection (error_handlers.KeepConnection)."""

    def build_middleware_stack(self) -> Any:
        return error_handlers.KeepConnection(super().build_middleware_stack())


def _state(settings: Settings, *, clock: Clock | None, redis: Redis | None,
           analyzer: Analyzer | None) -> tuple[GatewayState, str]:
    """Everything a request handler reaches through ``app.state.gateway``, and the default run's agent key."""
    embedded = not settings.redis_url
    if settings.redis_url and not settings.insecure_redis and redis is None:
        refuse_open_store(settings.redis_url)  # raises OpenStore: never serve on a store anyone can rewrite
    store = topology.parse(settings.redis_url) if settings.redis_url else None
    backend = Backend(redis if redis is not None else connect(settings.redis_url, timeout_s=settings.redis_timeout_s),
                      clock=clock, timeout_s=settings.redis_timeout_s,
                      replica_acks=topology.replica_acks(store, settings.replica_acks),
                      replica_wait_ms=settings.replica_wait_ms)
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
    state.auth.remember(default_agent_key, c.DEFAULT_RUN_ID)
    if analyzer is not None:
        metrics.count_from("acteon_shell_analyses", "Shell commands by how the isolated analyzer handled them "
                           "(analysed, cached, failures: a child lost to a timeout or crash, respawns)", "result",
                           lambda: dataclasses.asdict(analyzer.stats))
    webhooks = state.webhooks
    metrics.count_from("acteon_webhook_deliveries", "Approval notifications sent to the webhook, by result",
                       "result", lambda: {"delivered": webhooks.delivered, "failed": webhooks.failed})
    return state, default_agent_key


def _lifespan(state: GatewayState, hub: Hub, default_agent_key: str) -> Callable[[FastAPI], Any]:
    """Start-up (default run, rule packs, listeners) and an orderly stop."""
    backend, policy = state.backend, state.policy

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            await run_store.ensure_default(backend)
            # Other gateway processes on this Redis learn the key from it.
            await run_store.add_agent_key(backend, c.DEFAULT_RUN_ID, hash_key(default_agent_key))
            await policy.start(rules_from_file=state.settings.rules_from_file)
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

    return lifespan


async def _version_checks(policy: Policy) -> None:
    """Safety net for lost pub/sub messages: compare the global rules version now and then."""
    while True:
        await asyncio.sleep(VERSION_CHECK_S)
        with contextlib.suppress(Exception):
            await policy.check_global_version()


def app_from_env() -> Any:
    """Factory for ``uvicorn --factory gateway.app:app_from_env``."""
    return create_app()
