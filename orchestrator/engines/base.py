"""What every engine gets and returns."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hook import contract as c
from orchestrator.gatewayclient import GatewayClient


class EngineError(Exception):
    """The engine cannot start an agent (missing binary, an ungated configuration…)."""


@dataclass
class SubtaskContext:
    run_id: str
    agent_id: str
    role: str
    task_id: str
    subtask_id: str
    prompt: str | None
    command: str | None
    workdir: Path
    agent_dir: Path
    gateway_url: str
    agent_key: str
    timeout_s: float
    client: GatewayClient
    base_env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    # Called with the agent's pid (= process group id) once it runs: the runner journals it so that a
    # resume after a crash can reap an orphaned agent, and the monitor can kill a runaway one.
    on_start: Callable[[int], None] | None = None

    def agent_env(self) -> dict[str, str]:
        """The agent's environment: the user's, plus its identity for the hook (its run-scoped key,
        never the admin key)."""
        env = {k: v for k, v in self.base_env.items() if k != c.ENV_ADMIN_KEY}
        env.update({
            c.ENV_URL: self.gateway_url, c.ENV_AGENT_KEY: self.agent_key, c.ENV_RUN_ID: self.run_id,
            c.ENV_AGENT_ID: self.agent_id, c.ENV_AGENT_ROLE: self.role,
        })
        return env


@dataclass
class SubtaskResult:
    ok: bool
    returncode: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    detail: str = ""


class Engine(Protocol):
    name: str

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult: ...


def hook_args(ctx: SubtaskContext, *, http: bool = False) -> argparse.Namespace:
    """The options ``acteon-swarm-hook install`` would get, for an agent's own settings file. The hook's
    budget leaves the subtask most of its time for approvals but stays below the CLI's timeout."""
    budget = max(5.0, min(c.HOOK_BUDGET_S, ctx.timeout_s / 2))
    return argparse.Namespace(http=http, url=ctx.gateway_url, key_file=None, budget=budget)


def tail(path: Path, limit: int = 2000) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-limit:].decode("utf-8", "replace").strip()
