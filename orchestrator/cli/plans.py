"""``acteon-swarm plan …``: gather, validate, show, approve plans — and what ``run`` shares with them (the
configuration, a checked plan, the gateway to run behind)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from acteon_core import contract as c
from acteon_core.vocabulary import ENGINES
from orchestrator.cli.common import (
    ConfigOpt,
    JsonOut,
    StateDir,
    fail,
)
from orchestrator.cli.common import admin_key as _admin_key
from orchestrator.cli.common import print_json as _print_json
from orchestrator.cli.common import state_of as _state

app = typer.Typer(help="Validate, show and approve plans.", no_args_is_help=True)


def config_of(path: Path | None) -> Any:
    from orchestrator.config import ConfigError, load_config

    if path is None and Path("swarm.toml").exists():
        path = Path("swarm.toml")
    try:
        return load_config(path)
    except ConfigError as e:
        raise fail("\n  ".join(["invalid configuration:", *e.errors])) from None


def load_plan_checked(path: Path, cfg: Any, engine: str | None = None) -> Any:
    """The plan, well formed; with ``engine``, also able to run on it here (orchestrator/plan/readiness.py)."""
    from orchestrator.plan.file import load_plan
    from orchestrator.plan.model import PlanError
    from orchestrator.plan.readiness import run_problems
    from orchestrator.roles import roles_from_config
    from orchestrator.workspace.tasks import check_isolation

    roles = roles_from_config(cfg)
    local = cfg.executor.kind != "temporal"
    try:
        plan = load_plan(path, set(roles), runnable=None if engine is None else (
            lambda p: run_problems(p, roles, engine, os.environ, local=local)))
        check_isolation(plan)  # isolate outside a git repository: an error, not a silent fallback
        return plan
    except PlanError as e:
        raise fail("\n  ".join([f"{path}: invalid plan:", *e.errors])) from None


@app.command("gather")
def plan_gather(
    prompt: Annotated[str, typer.Option("--prompt", help="what the swarm should do, in plain words")],
    engine: Annotated[str | None, typer.Option(help="claude | gemini | command (default: swarm.toml)")] = None,
    model: Annotated[str | None, typer.Option(help="the model (default: the CLI's own)")] = None,
    command: Annotated[str | None, typer.Option(help="with --engine command: a program reading the prompt on "
                                                     "stdin and printing the JSON answer")] = None,
    out: Annotated[Path, typer.Option("--out", help="where to write the plan")] = Path("plan.json"),
    workdir: Annotated[Path | None, typer.Option("--workdir", help="the plan's working directory "
                                                                   "(default: the current one)")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite --out")] = False,
    timeout: Annotated[int, typer.Option("--timeout", min=1, help="seconds per engine answer")] = 300,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Ask an engine to turn a request into a plan (clarifying questions on a terminal); writes it unapproved."""
    from orchestrator.plan.file import save_plan

    if out.exists() and not force:
        raise fail(f"{out} exists (pass --force to overwrite it)")
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not as_json
    gathered = gather_plan(prompt, engine=engine, model=model, command=command, workdir=workdir, timeout=timeout,
                            cfg=config_of(config), state=_state(state_dir), interactive=interactive)
    save_plan(gathered.plan, out)
    if as_json:
        _print_json({"plan": str(out), "tasks": len(gathered.plan.tasks), "answers": gathered.answers,
                     "questions": [{"question": q, "answer": a} for q, a in gathered.questions]})
        return
    print(f"{out}: {len(gathered.plan.tasks)} tasks for '{gathered.plan.objective}' ({gathered.answers} answer(s))")
    print(f"  review it: acteon-swarm plan show --plan {out}\n  approve it: acteon-swarm plan approve --plan {out}")


def gather_plan(request: str, *, engine: str | None, model: str | None, command: str | None, workdir: Path | None,
                 timeout: int, cfg: Any, state: Path, interactive: bool) -> Any:
    """Gather a plan through an engine. The engine runs like any agent: behind the gateway (a short-lived
    gateway run of its own, with the planner role's read-only rules), with its own gated settings."""
    import asyncio
    import itertools
    import secrets

    from orchestrator.config import RefinerSection
    from orchestrator.engines.ask import NoAnswer, ask, asking_of
    from orchestrator.engines.base import Seat
    from orchestrator.gatewayclient import GatewayClient, GatewayError
    from orchestrator.plan.gather import GatherError, gather
    from orchestrator.roles import role_rules, roles_from_config

    chosen = engine or cfg.defaults.engine
    if chosen == "command" and not command:
        raise fail("--engine command needs --command PROGRAM (it reads the prompt on stdin, prints the answer)")
    if chosen not in ENGINES:
        raise fail(f"unknown engine {chosen!r} ({', '.join(ENGINES)})")
    roles = roles_from_config(cfg)
    where = (workdir or Path.cwd()).absolute()
    if not where.is_dir():
        raise fail(f"{where} is not a directory")
    section = RefinerSection.model_validate({"engine": chosen, "model": model, "timeout_seconds": timeout,
                                             "command": command})
    url, admin, embedded = gateway_for(state, cfg)
    run_id = f"gather-{secrets.token_hex(4)}"
    agent_dir = state / "gather" / run_id
    answers = itertools.count(1)  # each engine answer gets its own agent directory

    def person(question: str) -> str:
        return str(typer.prompt(f"? {question}"))

    async def main() -> Any:
        client = GatewayClient(url, admin)
        try:
            key = await client.create_run(run_id, role_rules({"planner": roles["planner"]}, run_id), None)

            async def ask_engine(prompt: str) -> str:
                return await ask(asking_of("planner", section), engine=chosen, prompt=prompt, workdir=where,
                                 agent_dir=agent_dir / f"answer-{next(answers)}",
                                 seat=Seat(gateway_url=url, agent_key=key, run_id=run_id, env=dict(os.environ)),
                                 agent_id="planner")

            try:
                return await gather(request, ask=ask_engine, roles=roles, workdir=where,
                                    ask_human=person if interactive else None)
            finally:
                await client.cancel(run_id)  # its key is useless from now on
        finally:
            await client.aclose()

    try:
        return asyncio.run(main())
    except (GatherError, NoAnswer, GatewayError) as e:
        raise fail(f"plan gather failed: {e}", 1) from None
    finally:
        if embedded is not None:
            embedded.stop()


def gateway_for(state: Path, cfg: Any) -> tuple[str, str, Any]:
    """The gateway to use: $ACTEON_URL or swarm.toml's endpoint, else an embedded one started here (the
    caller stops it). Returns (url, admin key, the embedded gateway or None)."""
    url = os.environ.get(c.ENV_URL) or cfg.acteon.endpoint
    if url:
        return url, _admin_key(state), None
    from orchestrator import embedded as emb

    gw = emb.start(state)
    return gw.url, gw.admin_key, gw


def warn_quota(the_plan: Any, cfg: Any) -> None:
    from orchestrator.plan.model import plan_warnings

    for warning in plan_warnings(the_plan, cfg.defaults.quota_max_actions):
        print(f"warning: {warning}", file=sys.stderr)


@app.command("validate")
def plan_validate(
    plan: Annotated[Path, typer.Option("--plan")],
    engine: Annotated[str | None, typer.Option(help=" | ".join(ENGINES) + " (default: swarm.toml)")] = None,
    config: ConfigOpt = None,
) -> None:
    """Check a plan: ids, dependencies, cycles, roles, and what it needs to run on the engine (each role's
    tools, the agent CLI); warn when its quota looks too small."""
    cfg = config_of(config)
    p = load_plan_checked(plan, cfg, engine or cfg.defaults.engine)
    warn_quota(p, cfg)
    print(f"{plan}: valid ({len(p.tasks)} tasks, {sum(len(t.subtasks) for t in p.tasks)} subtasks, {p.status})")


@app.command("show")
def plan_show(
    plan: Annotated[Path, typer.Option("--plan")], config: ConfigOpt = None, as_json: JsonOut = False
) -> None:
    """Print a plan's tasks in dependency order."""
    from orchestrator.plan.model import topological_order

    p = load_plan_checked(plan, config_of(config))
    if as_json:
        _print_json(p.model_dump(mode="json"))
        return
    by_id = {t.id: t for t in p.tasks}
    print(f"{p.id}: {p.objective}  [{p.status}]")
    for tid in topological_order(p):
        t = by_id[tid]
        deps = f" after {', '.join(t.depends_on)}" if t.depends_on else ""
        print(f"  {t.id} ({t.assigned_role}, priority {t.priority}){deps}: {t.name}")
        for s in t.subtasks:
            print(f"      - {s.id}: {s.command if s.command is not None else (s.prompt or '')[:80]}")


@app.command("approve")
def plan_approve(
    plan: Annotated[Path, typer.Option("--plan")],
    by: Annotated[str | None, typer.Option("--by", help="who approves (default: $USER)")] = None,
    config: ConfigOpt = None,
) -> None:
    """Record who approved the plan and when."""
    from datetime import UTC, datetime

    from orchestrator.plan.file import approve_file

    who = by or os.environ.get("USER", "")
    if not who.strip():
        raise fail("who approves? give --by NAME ($USER is not set)")
    p = approve_file(plan, load_plan_checked(plan, config_of(config)), who, datetime.now(UTC))
    print(f"{plan}: approved by {p.approved_by} at {p.approved_at}")


@app.command("schema")
def plan_schema() -> None:
    """Print the plan's JSON Schema."""
    from orchestrator.plan.model import plan_json_schema

    _print_json(plan_json_schema())
