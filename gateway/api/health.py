"""Health and Prometheus metrics; no key needed (the server binds to loopback by default)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from acteon_core import contract as c
from gateway.api.deps import State
from gateway.store import topology

router = APIRouter(tags=["health"])


@router.get(c.HEALTH_PATH)
async def health(st: State) -> Response:
    body: dict[str, Any] = {
        "status": "ok",
        "store": "embedded" if st.embedded else "redis",
        # The store's shape, never its addresses (this route needs no key): "embedded", "single" or
        # "sentinel", and how many replicas confirm an approval's decision or a key (null: one as soon as
        # the Redis reports a replica). docs/ha.md.
        "topology": "embedded" if not st.settings.redis_url else topology.parse(st.settings.redis_url).kind,
        "replica_acks": st.backend.replica_acks,
        "rules": {"version": st.policy.global_pack.version, "count": len(st.policy.global_pack.rules),
                  "source": st.policy.global_source},
    }
    if st.policy.lost:
        with contextlib.suppress(Exception):  # an operator may have put a pack in force since
            await st.policy.refresh_global()
    if st.policy.lost:
        body.update(status="unavailable", error={"code": "rules_unavailable", "message": "no rule pack in force"})
        return JSONResponse(body, status_code=503)
    try:
        await asyncio.wait_for(st.backend.redis.ping(), timeout=st.settings.redis_timeout_s)
    except Exception as e:  # any failure to reach the store is "unavailable", never a 500
        st.metrics.store_errors.inc()
        body.update(status="unavailable", error={"code": "store_unavailable", "message": type(e).__name__})
        return JSONResponse(body, status_code=503)
    return JSONResponse(body)


@router.get("/metrics")
async def metrics(st: State) -> Response:
    return Response(generate_latest(st.metrics.registry), media_type=CONTENT_TYPE_LATEST)
