"""The reference for the dispatch benchmark: a FastAPI endpoint that validates a JSON body and makes
one EVALSHA, served exactly like the gateway (one uvicorn worker, same Redis)."""

from __future__ import annotations

import os
from typing import Any

import redis.asyncio as aioredis
from fastapi import FastAPI
from pydantic import BaseModel

SCRIPT = "redis.call('HINCRBY', KEYS[1], 'n', 1) return 1"


class Body(BaseModel):
    run_id: str
    agent_id: str
    provider: str
    tool: str
    input: dict[str, Any]
    cwd: str | None = None


def create() -> FastAPI:
    app = FastAPI()
    r = aioredis.Redis.from_url(os.environ["ACTEON_REDIS_URL"], decode_responses=True)
    script = r.register_script(SCRIPT)

    @app.post("/ref")
    async def ref(body: Body) -> dict[str, Any]:
        n = await script(keys=["bench:{ref}:n"])
        return {"ok": True, "n": n, "tool": body.tool}

    return app
