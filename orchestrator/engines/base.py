"""What every engine gets and returns."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acteon_core import contract as c
from acteon_core.settings import HookOptions
from orchestrator.engines.environment import agent_environment
from orchestrator.engines.usage import Usage
from orchestrator.gatewayclient import GatewayClient
from orchestrator.process import ProcResult


class EngineError(Exception):
    """The engine cannot start an agent (missing binary, an ungated configuration…)."""


@dataclass(frozen=True)
class Seat:
    """Where an agent session sits: the gateway, the key it calls with, its run, the user's environment and the
    variables passed through to agents. A run's own one-shot askers (the refiner, a synthesis, a lens merger,
    the challenger) all sit in the run's seat; a subtask in a worktree sits in it with a key of its own."""

    gateway_url: str
    agent_key: str
    run_id: str
    env: dict[str, str]
    pass_env: tuple[str, ...] = ()

    def agent_env(self, agent_id: str, role: str) -> dict[str, str]:
        """The environment of an agent sitting here: the allow-listed part of the user's
        (``environment.agent_environment``), plus its identity for the hook (its run-scoped key; never the
        admin key, the store's address or a key file)."""
        env = agent_environment(self.env, self.pass_env)
        env.update({
            c.ENV_URL: self.gateway_url, c.ENV_AGENT_KEY: self.agent_key, c.ENV_RUN_ID: self.run_id,
            c.ENV_AGENT_ID: agent_id, c.ENV_AGENT_ROLE: role,
        })
        return env


@dataclass
class SubtaskContext:
    seat: Seat  # the gateway, the agent's key, its run and the user's environment
    agent_id: str
    role: str
    task_id: str
    subtask_id: str
    prompt: str | None
    command: str | None
    workdir: Path
    agent_dir: Path
    timeout_s: float
    client: GatewayClient
    # Called with the agent's pid (= process group id) once it runs: the runner journals it so that a
    # resume after a crash can reap an orphaned agent, and the monitor can kill a runaway one.
    on_start: Callable[[int], None] | None = None
    extra_env: dict[str, str] = field(default_factory=dict)  # set by the run (the git identity in a worktree)
    model: str | None = None  # None: the CLI's default model (a lens member may name its own)
    # What a key minted for this agent elsewhere must hold it to (a worker mints per attempt): its worktree,
    # file scope and scope claim; empty outside a worktree.
    key_binding: dict[str, Any] = field(default_factory=dict)
    # The task's worktree on this machine ({"top", "branch"}; branch '' for a read-only view): an executor
    # that runs the agent elsewhere carries its head there and the agent's commits back.
    worktree: dict[str, str] = field(default_factory=dict)
    # Claude: a call waiting for a person stops the session (the result says ``deferred``) instead of holding the
    # agent's slot; ``resume_session`` then continues that session, which asks the gateway again.
    defer: bool = False
    resume_session: str | None = None

    def agent_env(self) -> dict[str, str]:
        """The agent's environment: its seat's (``Seat.agent_env``) and what the run set for it."""
        env = self.seat.agent_env(self.agent_id, self.role)
        env.update(self.extra_env)
        return env


@dataclass
class SubtaskResult:
    ok: bool
    returncode: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    detail: str = ""
    output: str = ""  # the agent's final answer (or a command's stdout), bounded: findings are read from it
    usage: dict[str, Any] = field(default_factory=dict)  # tokens and cost the CLI reported (engines/usage.py)
    answer_file: Path | None = None  # where the complete final answer is (``output`` is bounded)
    # The session stopped at a call a person must decide (Claude's ``defer``): {session_id, tool, tool_use_id};
    # None when it ran to its end.
    deferred: dict[str, str] | None = None


class Engine(Protocol):
    name: str

    async def run_subtask(self, ctx: SubtaskContext) -> SubtaskResult: ...


def hook_options(ctx: SubtaskContext, *, http: bool = False) -> HookOptions:
    """How the gate is wired into an agent's own settings file. The hook's budget leaves the subtask most
    of its time for approvals but stays below the CLI's timeout."""
    return gate_options(ctx.seat.gateway_url, ctx.timeout_s, http=http, defer=ctx.defer)


def gate_options(gateway_url: str, timeout_s: float, *, http: bool = False, defer: bool = False) -> HookOptions:
    """:func:`hook_options` for an agent session that is not a subtask (the refiner)."""
    budget = max(5.0, min(c.HOOK_BUDGET_S, timeout_s / 2))
    # authoritative: an orchestrated agent has no human at a prompt; the gateway's allow is the decision
    return HookOptions(http=http, url=gateway_url, key_file=None, budget=budget, authoritative=True, defer=defer)


def read_output(out: Path, max_output_bytes: int) -> dict[str, Any]:
    """The JSON object an agent CLI printed with ``--output-format json`` (``{}`` when there is none). Output
    beyond the cap is not parsed: the caller sees no answer (and may say why from the file's size)."""
    try:
        data = json.loads(out.read_text(encoding="utf-8") or "{}") if out.stat().st_size <= max_output_bytes else {}
    except (OSError, ValueError, RecursionError):
        data = {}
    return data if isinstance(data, dict) else {}


MAX_OUTPUT = 20_000  # characters of an agent's answer kept for findings and the refiner


def read_json_lines(path: Path, limit: int = 8 << 20) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file (Codex's and OpenCode's events); a line that is not one is skipped,
    and a file beyond ``limit`` bytes is read up to it."""
    try:
        with path.open("rb") as f:
            raw = f.read(limit)
    except OSError:
        return []
    events = []
    for line in raw.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


EventSession = Callable[..., Awaitable[tuple[ProcResult, str, list[dict[str, Any]]]]]


async def run_event_cli(ctx: SubtaskContext, run_session: EventSession,
                        failure: Callable[[list[dict[str, Any]]], str | None],
                        usage: Callable[[list[dict[str, Any]]], Usage]) -> SubtaskResult:
    """One subtask on a CLI that prints JSON events (Codex, OpenCode): its engine module's ``run_session``
    gives the final answer and the events, ``failure`` what the CLI said went wrong, ``usage`` its tokens."""
    started = time.monotonic()
    prompt = ctx.prompt or ""
    (ctx.agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")
    result, answer, events = await run_session(
        prompt=prompt, hook=hook_options(ctx), agent_dir=ctx.agent_dir, workdir=ctx.workdir, env=ctx.agent_env(),
        timeout_s=ctx.timeout_s, on_start=ctx.on_start, extra_args=["--model", ctx.model] if ctx.model else ())
    problem = failure(events)
    return session_result(ctx, started, result, ok=problem is None, answer=answer, problem=problem,
                          usage=usage(events).fields())


def session_result(ctx: SubtaskContext, started: float, result: ProcResult, *, ok: bool, answer: str,
                   usage: dict[str, Any], problem: str | None = None) -> SubtaskResult:
    """A finished CLI session as a subtask's result (``answer``: the whole final answer, kept in result.md;
    ``problem``: what the CLI said went wrong, else the end of its stderr)."""
    (ctx.agent_dir / "result.md").write_text(answer, encoding="utf-8")
    ok = ok and result.returncode == 0 and not result.timed_out
    if result.timed_out:
        detail = "timed out"
    elif ok:
        detail = answer[:500]
    else:
        detail = f"exit {result.returncode}: {problem or tail(ctx.agent_dir / 'stderr.log', 300)}"
    return SubtaskResult(ok=ok, returncode=result.returncode, timed_out=result.timed_out,
                         duration_s=time.monotonic() - started, detail=detail, output=answer[:MAX_OUTPUT],
                         usage=usage, answer_file=ctx.agent_dir / "result.md")


def cli_binary(env: dict[str, str], name: str, bin_env: str) -> str:
    """The agent CLI to start: ``bin_env`` when it is set (it must name an executable), else ``name`` on the
    PATH of ``env``."""
    chosen = env.get(bin_env)
    if chosen:
        if shutil.which(chosen) is None:
            raise EngineError(f"{bin_env}={chosen} is not an executable file")
        return chosen
    found = shutil.which(name, path=env.get("PATH"))
    if not found:
        raise EngineError(f"the {name} CLI is not on PATH (or set {bin_env})")
    return found


def tail(path: Path, limit: int = 2000) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-limit:].decode("utf-8", "replace").strip()
