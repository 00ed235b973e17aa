"""``acteon-swarm``: the orchestrator CLI (SPEC §5.1).

Heavy modules (httpx, the gateway, rich tables) are imported inside commands, so ``--help``, ``status``
and ``cancel`` start fast (a test checks it). Exit codes: 0 ok, 1 the run or action failed, 2 bad input.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from hook import contract as c
from orchestrator.commands.approvals import app as approvals_app
from orchestrator.commands.common import (
    ConfigOpt,
    JsonOut,
    StateDir,
    fail,
)
from orchestrator.commands.common import admin_key as _admin_key
from orchestrator.commands.common import find_admin_key as _find_admin_key
from orchestrator.commands.common import gateway_call as _gateway_call
from orchestrator.commands.common import print_json as _print_json
from orchestrator.commands.common import run_dir as _run_dir
from orchestrator.commands.common import state_of as _state
from orchestrator.commands.doctor import doctor
from orchestrator.graph.cli import app as graph_app
from orchestrator.memory.cli import app as memory_app
from orchestrator.terminal import plain_flags

app = typer.Typer(
    name="acteon-swarm",
    help="Run AI coding-agent swarms safely: every tool call passes a policy gateway first.",
    no_args_is_help=True,
    add_completion=False,
)
gateway_app = typer.Typer(help="Run the policy gateway.", no_args_is_help=True)
plan_app = typer.Typer(help="Validate, show and approve plans.", no_args_is_help=True)
app.add_typer(gateway_app, name="gateway")
app.add_typer(plan_app, name="plan")
app.add_typer(approvals_app, name="approvals")
app.command("doctor")(doctor)
app.add_typer(memory_app, name="memory", help="The swarm's shared memory: search, add and reindex findings.")
app.add_typer(graph_app, name="graph", help="The RDF twin of runs: SPARQL query, export and endpoint.")
plain_flags()


def _version(value: bool) -> None:
    if value:
        print(f"acteon-swarm {c.VERSION}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the version and exit")] = False,
) -> None:
    """Run AI coding-agent swarms safely: every tool call passes a policy gateway first."""

def _config(path: Path | None) -> Any:
    from orchestrator.config import ConfigError, load_config

    if path is None and Path("swarm.toml").exists():
        path = Path("swarm.toml")
    try:
        return load_config(path)
    except ConfigError as e:
        raise fail("\n  ".join(["invalid configuration:", *e.errors])) from None


def _load_plan(path: Path, cfg: Any) -> Any:
    from orchestrator.plan import PlanError, load_plan
    from orchestrator.roles import roles_from_config

    try:
        return load_plan(path, set(roles_from_config(cfg)))
    except PlanError as e:
        raise fail("\n  ".join([f"{path}: invalid plan:", *e.errors])) from None


# --- run -------------------------------------------------------------------------------------------
@app.command()
def run(
    plan: Annotated[Path | None, typer.Option("--plan", help="plan.json to run")] = None,
    prompt: Annotated[str | None, typer.Option("--prompt", help="gather a plan from this request first "
                                                                "(needs --auto-approve)")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="resume this run after a crash")] = None,
    engine: Annotated[str | None, typer.Option(help="command | claude | gemini (default: swarm.toml)")] = None,
    max_agents: Annotated[int | None, typer.Option("--max-agents", min=1, help="at most this many agents")] = None,
    auto_approve: Annotated[bool, typer.Option("--auto-approve", help="run an unapproved plan")] = False,
    run_id: Annotated[str | None, typer.Option("--run-id", help="the run id (default: generated)")] = None,
    detach: Annotated[bool, typer.Option("--detach", help="run in the background; follow it with "
                                                          "`status --watch`")] = False,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Run a plan: tasks as parallel agent sessions behind the gateway."""
    import asyncio
    import secrets

    from orchestrator.plan import load_plan
    from orchestrator.roles import roles_from_config
    from orchestrator.runner import Run, RunOptions

    cfg = _config(config)
    state = _state(state_dir)
    if resume:
        rd = _run_dir(state, resume)
        previous = rd.read_run()
        from orchestrator.process import is_same_process

        if previous.get("status") == "running" and is_same_process(int(previous.get("pid", 0)),
                                                                   int(previous.get("process_start_time") or 0)):
            raise fail(f"run {resume} is still running (pid {previous['pid']})")
        the_plan = load_plan(rd.plan_file, set(roles_from_config(cfg)))
        the_run_id, engine = resume, engine or previous.get("engine")
    else:
        if (plan is None) == (prompt is None):
            raise fail("give one of --plan PLAN.json or --prompt TEXT (or --resume RUN_ID)")
        if prompt is not None:
            if cfg.safety.require_plan_approval and not auto_approve:
                raise fail("a gathered plan is unapproved: pass --auto-approve to run it at once, or use "
                           "`acteon-swarm plan gather` and approve the plan first")
            chosen = engine or cfg.defaults.engine
            if chosen == "command":
                raise fail("--prompt needs an AI engine to plan with: --engine claude or gemini")
            gathered = _gather_plan(prompt, engine=chosen, model=None, command=None, workdir=None,
                                    timeout=cfg.defaults.subtask_timeout_seconds, cfg=cfg, state=state,
                                    interactive=False)
            from orchestrator.plan import save_plan

            plan = state / "plans" / f"{gathered.plan.id}-{secrets.token_hex(3)}.json"
            plan.parent.mkdir(parents=True, exist_ok=True)
            save_plan(gathered.plan, plan)
            if not as_json:
                print(f"gathered plan: {plan} ({len(gathered.plan.tasks)} tasks)", file=sys.stderr)
        assert plan is not None
        the_plan = _load_plan(plan, cfg)
        _warn(the_plan, cfg)
        if cfg.safety.require_plan_approval and the_plan.status != "approved" and not auto_approve:
            raise fail(f"the plan is not approved: run `acteon-swarm plan approve --plan {plan}` "
                       "or pass --auto-approve")
        the_run_id = run_id or f"run-{secrets.token_hex(4)}"
        if (state / "runs" / the_run_id / "run.json").exists():
            raise fail(f"run {the_run_id} already exists (resume it with --resume {the_run_id})")
    engine = engine or cfg.defaults.engine
    if detach:
        _detach(the_run_id, state, resume=bool(resume), as_json=as_json,
                args=["--engine", str(engine), "--state-dir", str(state)]
                + (["--plan", str(plan.absolute()), "--run-id", the_run_id, "--auto-approve"] if plan else [])
                + (["--resume", the_run_id] if resume else [])
                + (["--max-agents", str(max_agents)] if max_agents else [])
                + (["--config", str(config.absolute())] if config else []))
        return
    url, admin, embedded = _gateway_for(state, cfg)
    opts = RunOptions(engine=str(engine), state_dir=state, gateway_url=url, admin_key=admin, max_agents=max_agents,
                      subtask_timeout_s=float(cfg.defaults.subtask_timeout_seconds), resume=bool(resume))
    try:
        with _progress(the_plan, quiet=as_json) as progress:
            report = asyncio.run(Run(the_plan, cfg, roles_from_config(cfg), opts, the_run_id, progress).execute())
    finally:
        if embedded is not None:
            embedded.stop()
    if as_json:
        _print_json({"run_id": report.run_id, "status": report.status, "tasks": report.tasks,
                     "stats": report.stats, "peak_running": report.peak_running})
    else:
        from orchestrator import status as st
        from orchestrator.rundir import RunDir

        print(st.render(st.collect(RunDir(state, report.run_id), None)))
        print(f"  summary: {RunDir(state, report.run_id).summary_file}")
    raise typer.Exit(0 if report.status == "done" else 1)


def _detach(run_id: str, state: Path, *, resume: bool, as_json: bool, args: list[str]) -> None:
    """Start this same command without --detach in a new session (it survives the terminal closing), its
    output in the run directory, and return once it has registered the run (or report why it could not).
    The plan was validated (and its approval checked) here already, so the child runs it as given."""
    import subprocess
    import time

    from orchestrator.rundir import RunDir

    rd = RunDir(state, run_id)
    rd.create()
    log = rd.path / "orchestrator.log"
    before = rd.read_run().get("pid") if resume else None
    with log.open("ab") as out:
        child = subprocess.Popen([sys.executable, "-m", "orchestrator.cli", "run", *args], stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=out, start_new_session=True, close_fds=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if rd.read_run().get("pid") not in (None, before):
                break
        if child.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:].strip()
            raise fail(f"the run stopped at once (exit {child.returncode}):\n{tail}", 1)
        time.sleep(0.05)  # waiting for another process to write a file: nothing to wait on but the file
    else:
        raise fail(f"the run did not start within 60 s; see {log}", 1)
    if as_json:
        _print_json({"run_id": run_id, "pid": child.pid, "log": str(log), "detached": True})
    else:
        print(f"run {run_id} started in the background (pid {child.pid}); log: {log}\n"
              f"follow it: acteon-swarm status --run {run_id} --watch --state-dir {state}")


@contextlib.contextmanager
def _progress(the_plan: Any, quiet: bool) -> Iterator[Any]:
    """A live task table on a terminal, a line per change otherwise, nothing with --json."""
    if quiet:
        yield None
        return
    from orchestrator import terminal
    from orchestrator.progress import LinePrinter, LiveProgress, TaskBoard

    console = terminal.console(stderr=True)
    if not console.is_terminal:
        yield LinePrinter(console)
        return
    with LiveProgress(TaskBoard.for_tasks([(t.id, t.assigned_role) for t in the_plan.tasks]), console) as live:
        yield live


# --- status / runs / cancel ------------------------------------------------------------------------
@app.command()
def status(
    run_id: Annotated[str, typer.Option("--run", help="run id")],
    watch: Annotated[bool, typer.Option("--watch", help="refresh until the run ends")] = False,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Where a run stands: tasks and the gateway's counters."""
    from orchestrator import status as st

    state = _state(state_dir)
    rd = _run_dir(state, run_id)
    while True:
        info = st.collect(rd, _live_stats(state, rd))
        if as_json:
            _print_json(info)
        else:
            print(st.render(info))
        if not watch or info["status"] != "running":
            return
        import time

        time.sleep(2)  # a display refresh interval, not a synchronisation
        print()


def _live_stats(state: Path, rd: Any) -> dict[str, Any] | None:
    """The gateway's counters while the run goes (else `status` shows the run folder's copy)."""
    run = rd.read_run()
    if run.get("status") != "running" or not run.get("gateway_url"):
        return None
    stats = _gateway_call(state, rd.run_id, lambda cl: cl.stats(rd.run_id), best_effort=True)
    return dict(stats) if stats is not None else None


@app.command()
def runs(state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """The runs in the state directory, newest first."""
    from orchestrator.rundir import list_runs

    rows = []
    for rd in list_runs(_state(state_dir)):
        try:
            info = rd.read_run()
        except ValueError:
            continue
        rows.append({"run_id": rd.run_id, "status": rd.status(), "engine": info.get("engine"),
                     "started_at": info.get("started_at"), "objective": info.get("objective")})
    if as_json:
        _print_json(rows)
        return
    for r in rows:
        print(f"{r['run_id']:<20} {r['status'] or '?':<11} {r['engine'] or '?':<8} {r['started_at'] or '':<30} "
              f"{(r['objective'] or '')[:60]}")
    for r in rows:
        if r["status"] == "interrupted":
            print(f"run {r['run_id']} was interrupted (its orchestrator is gone): resume it with "
                  f"`acteon-swarm run --resume {r['run_id']}`", file=sys.stderr)


@app.command()
def cancel(
    run_id: Annotated[str, typer.Option("--run", help="run id")],
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Cancel a run: the gateway refuses its calls at once, then its agents are stopped."""
    import signal
    import time

    from orchestrator.process import is_same_process

    state = _state(state_dir)
    rd = _run_dir(state, run_id)
    run = rd.read_run()
    result: dict[str, Any] = {"run_id": run_id, "gateway": "unreachable", "orchestrator": "not running"}
    if run.get("gateway_url"):
        _admin_key(state)  # a missing key is the user's to fix, not an unreachable gateway
        answer = _gateway_call(state, run_id, lambda cl: cl.cancel(run_id), best_effort=True)
        if answer is not None:
            result["gateway"] = "cancelled"
    pid, started = int(run.get("pid") or 0), int(run.get("process_start_time") or 0)
    if run.get("status") == "running":
        # pid AND start time: a recycled pid belongs to someone else, and we must not signal it.
        if pid and is_same_process(pid, started):
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and rd.read_run().get("status") == "running":
                time.sleep(0.1)
            result["orchestrator"] = rd.read_run().get("status")
        else:
            result["orchestrator"] = "stale pid: not signalled"
    if as_json:
        _print_json(result)
    else:
        print(f"run {run_id}: gateway {result['gateway']}; orchestrator {result['orchestrator']}")
    if result["gateway"] != "cancelled" and result["orchestrator"] not in ("cancelled", "done", "failed"):
        raise typer.Exit(1)


# --- plan ------------------------------------------------------------------------------------------
@plan_app.command("gather")
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
    from orchestrator.plan import save_plan

    if out.exists() and not force:
        raise fail(f"{out} exists (pass --force to overwrite it)")
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not as_json
    gathered = _gather_plan(prompt, engine=engine, model=model, command=command, workdir=workdir, timeout=timeout,
                            cfg=_config(config), state=_state(state_dir), interactive=interactive)
    save_plan(gathered.plan, out)
    if as_json:
        _print_json({"plan": str(out), "tasks": len(gathered.plan.tasks), "answers": gathered.answers,
                     "questions": [{"question": q, "answer": a} for q, a in gathered.questions]})
        return
    print(f"{out}: {len(gathered.plan.tasks)} tasks for '{gathered.plan.objective}' ({gathered.answers} answer(s))")
    print(f"  review it: acteon-swarm plan show --plan {out}\n  approve it: acteon-swarm plan approve --plan {out}")


def _gather_plan(request: str, *, engine: str | None, model: str | None, command: str | None, workdir: Path | None,
                 timeout: int, cfg: Any, state: Path, interactive: bool) -> Any:
    """Gather a plan through an engine. The engine runs like any agent: behind the gateway (a short-lived
    gateway run of its own, with the planner role's read-only rules), with its own gated settings."""
    import asyncio
    import itertools
    import secrets

    from orchestrator.config import RefinerSection
    from orchestrator.gatewayclient import GatewayClient, GatewayError
    from orchestrator.gather import GatherError, gather
    from orchestrator.refiner.ask import RefinerUnavailable, ask
    from orchestrator.roles import role_rules, roles_from_config

    chosen = engine or cfg.defaults.engine
    if chosen == "command" and not command:
        raise fail("--engine command needs --command PROGRAM (it reads the prompt on stdin, prints the answer)")
    if chosen not in ("claude", "gemini", "command"):
        raise fail(f"unknown engine {chosen!r} (claude, gemini, command)")
    roles = roles_from_config(cfg)
    where = (workdir or Path.cwd()).absolute()
    if not where.is_dir():
        raise fail(f"{where} is not a directory")
    section = RefinerSection.model_validate({"engine": chosen, "model": model, "timeout_seconds": timeout,
                                             "command": command})
    url, admin, embedded = _gateway_for(state, cfg)
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
                return await ask(section, engine=chosen, prompt=prompt, workdir=where,
                                 agent_dir=agent_dir / f"answer-{next(answers)}", env=dict(os.environ),
                                 gateway_url=url, agent_key=key, run_id=run_id, agent_id="planner")

            try:
                return await gather(request, ask=ask_engine, roles=roles, workdir=where,
                                    ask_human=person if interactive else None)
            finally:
                await client.cancel(run_id)  # its key is useless from now on
        finally:
            await client.aclose()

    try:
        return asyncio.run(main())
    except (GatherError, RefinerUnavailable, GatewayError) as e:
        raise fail(f"plan gather failed: {e}", 1) from None
    finally:
        if embedded is not None:
            embedded.stop()


def _gateway_for(state: Path, cfg: Any) -> tuple[str, str, Any]:
    """The gateway to use: $ACTEON_URL or swarm.toml's endpoint, else an embedded one started here (the
    caller stops it). Returns (url, admin key, the embedded gateway or None)."""
    url = os.environ.get(c.ENV_URL) or cfg.acteon.endpoint
    if url:
        return url, _admin_key(state), None
    from orchestrator import embedded as emb

    gw = emb.start(state)
    return gw.url, gw.admin_key, gw


def _warn(the_plan: Any, cfg: Any) -> None:
    from orchestrator.plan import plan_warnings

    for warning in plan_warnings(the_plan, cfg.defaults.quota_max_actions):
        print(f"warning: {warning}", file=sys.stderr)


@plan_app.command("validate")
def plan_validate(plan: Annotated[Path, typer.Option("--plan")], config: ConfigOpt = None) -> None:
    """Check a plan: ids, dependencies, cycles, roles; warn when its quota looks too small."""
    cfg = _config(config)
    p = _load_plan(plan, cfg)
    _warn(p, cfg)
    print(f"{plan}: valid ({len(p.tasks)} tasks, {sum(len(t.subtasks) for t in p.tasks)} subtasks, {p.status})")


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="where to write them")] = Path(),
    force: Annotated[bool, typer.Option("--force", help="overwrite files that exist")] = False,
) -> None:
    """Write a commented example swarm.toml and plan.json to start from."""
    from orchestrator.starter import write_starter

    try:
        written = write_starter(directory, force=force)
    except FileExistsError as e:
        raise fail(f"{e} exists: pass --force to overwrite it") from None
    except OSError as e:
        raise fail(f"cannot write into {directory}: {e.strerror}") from None
    for path in written:
        print(f"wrote {path}")
    print(f"next: acteon-swarm plan validate --plan {written[1]}  (then `plan approve` and `run --plan`)")


@plan_app.command("show")
def plan_show(
    plan: Annotated[Path, typer.Option("--plan")], config: ConfigOpt = None, as_json: JsonOut = False
) -> None:
    """Print a plan's tasks in dependency order."""
    from orchestrator.plan import topological_order

    p = _load_plan(plan, _config(config))
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


@plan_app.command("approve")
def plan_approve(
    plan: Annotated[Path, typer.Option("--plan")],
    by: Annotated[str | None, typer.Option("--by", help="who approves (default: $USER)")] = None,
    config: ConfigOpt = None,
) -> None:
    """Record who approved the plan and when."""
    from datetime import UTC, datetime

    from orchestrator.plan import approve, save_plan

    p = approve(_load_plan(plan, _config(config)), by or os.environ.get("USER", "unknown"), datetime.now(UTC))
    save_plan(p, plan)
    print(f"{plan}: approved by {p.approved_by} at {p.approved_at}")


@plan_app.command("schema")
def plan_schema() -> None:
    """Print the plan's JSON Schema."""
    from orchestrator.plan import plan_json_schema

    _print_json(plan_json_schema())


# --- approvals / audit -----------------------------------------------------------------------------
@app.command()
def audit(
    run_id: Annotated[str, typer.Option("--run")],
    outcome: Annotated[str | None, typer.Option(help="only this outcome")] = None,
    agent: Annotated[str | None, typer.Option(help="only this agent")] = None,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """The gateway's audit trail of a run (from the run folder's copy when its gateway is gone)."""
    from orchestrator.rundir import RunDir

    state = _state(state_dir)
    rd = RunDir(state, run_id)
    rows = None
    if not rd.exists() or _find_admin_key(state) is not None:
        rows = _gateway_call(state, run_id, lambda cl: cl.audit(run_id, outcome=outcome, agent=agent),
                             offline_ok=rd.exists())
    if rows is None:
        rows = _journaled_audit(rd, outcome, agent)
        print(f"acteon-swarm: the gateway of run {run_id} is not running; these are the {len(rows)} decisions "
              f"kept in {rd.journal_file}", file=sys.stderr)
    if as_json:
        _print_json(rows)
        return
    for r in rows:
        print(f"{r.get('agent_id', ''):<16} {r.get('outcome', ''):<16} {r.get('rule', ''):<28} "
              f"{r.get('target', '')[:60]}")


def _journaled_audit(rd: Any, outcome: str | None, agent: str | None) -> list[dict[str, Any]]:
    """The run's decisions as its journal kept them (copied from the gateway's audit while it ran)."""
    from orchestrator.rundir import ToolCall

    rows = []
    for event in rd.read_events():
        if isinstance(event, ToolCall) and (outcome is None or event.outcome == outcome) and (
                agent is None or event.agent_id == agent):
            rows.append({"audit_id": event.audit_id, "agent_id": event.agent_id, "task_id": event.task_id,
                         "tool": event.tool, "action_type": event.action_type, "target": event.target,
                         "outcome": event.outcome, "rule": event.rule or "", "reason": event.reason,
                         "approval_id": event.approval_id, "ts_ms": event.at_ms})
    return rows


# --- demo / gateway --------------------------------------------------------------------------------
@app.command()
def demo(
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the decisions as JSON")] = False,
) -> None:
    """Start a gateway on the embedded store with the default pack and show decisions being made."""
    from orchestrator import demo as demo_mod
    from orchestrator import terminal

    result = demo_mod.run(terminal.console(), state_dir=state_dir, as_json=as_json)
    if as_json:
        _print_json(result)
    raise typer.Exit(0 if result["as_designed"] else 1)


@gateway_app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="address to bind (loopback by default)")] = c.DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="port")] = c.DEFAULT_PORT,
    rules: Annotated[str | None, typer.Option(help="rules directory (default: the bundled rules/)")] = None,
    workers: Annotated[int, typer.Option(help="worker processes (needs ACTEON_REDIS_URL when > 1)")] = 1,
) -> None:
    """Run the gateway server (same as ``acteon-gateway``)."""
    args = [sys.executable, "-m", "gateway.cli", "--host", host, "--port", str(port), "--workers", str(workers)]
    if rules:
        args += ["--rules", rules]
    # A separate program, not an import: the orchestrator and the gateway talk over HTTP only.
    os.execv(sys.executable, args)  # noqa: S606 - fixed argv, no shell


def main() -> None:
    """Run the CLI; a user error is one line and exit code 2 (a traceback only with --debug)."""
    debug = os.environ.get("ACTEON_DEBUG") == "1"
    if "--debug" in sys.argv:
        sys.argv.remove("--debug")
        debug = True
    from orchestrator.errors import UserError

    try:
        app()
    except UserError as e:
        if debug:
            raise
        sys.stderr.write(f"acteon-swarm: {e}\n")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
