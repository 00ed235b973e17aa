"""``acteon-swarm run | status | runs | cancel | audit``: a run from its start to its audit trail.

The functions are registered on the main app by ``orchestrator.cli``."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from acteon_core import contract as c
from acteon_core.vocabulary import AGENT_ENGINES, ENGINES
from orchestrator.cli.common import (
    ConfigOpt,
    JsonOut,
    StateDir,
    fail,
)
from orchestrator.cli.common import admin_key as _admin_key
from orchestrator.cli.common import find_admin_key as _find_admin_key
from orchestrator.cli.common import gateway_call as _gateway_call
from orchestrator.cli.common import print_json as _print_json
from orchestrator.cli.common import run_dir as _run_dir
from orchestrator.cli.common import state_of as _state
from orchestrator.cli.plans import config_of, gateway_for, gather_plan, load_plan_checked, warn_quota

if TYPE_CHECKING:  # the modules behind a run load when one starts, not for --help
    from orchestrator.config import SwarmConfig
    from orchestrator.plan.model import Plan
    from orchestrator.run.options import RunReport


def run(
    plan: Annotated[Path | None, typer.Option("--plan", help="plan.json to run")] = None,
    prompt: Annotated[str | None, typer.Option("--prompt", help="gather a plan from this request first "
                                                                "(needs --auto-approve)")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="resume this run after a crash")] = None,
    engine: Annotated[str | None, typer.Option(help=" | ".join(ENGINES) + " (default: swarm.toml)")] = None,
    max_agents: Annotated[int | None, typer.Option("--max-agents", min=1, help="at most this many agents")] = None,
    auto_approve: Annotated[bool, typer.Option("--auto-approve", help="run an unapproved plan")] = False,
    run_id: Annotated[str | None, typer.Option("--run-id", help="the run id (default: generated)")] = None,
    detach: Annotated[bool, typer.Option("--detach", help="run in the background; follow it with "
                                                          "`status --watch`")] = False,
    adversarial: Annotated[bool | None, typer.Option(
        "--adversarial/--no-adversarial", help="after the tasks, challenge and fix the work under the eval "
                                                "(default: swarm.toml [adversarial] enabled)")] = None,
    max_rounds: Annotated[int | None, typer.Option("--max-rounds", min=1, max=20,
                                                   help="adversarial rounds at most")] = None,
    eval_command: Annotated[str | None, typer.Option("--eval", help="the eval command: prints a score in [0, 1] "
                                                                    "(switches the eval harness on)")] = None,
    pass_threshold: Annotated[float | None, typer.Option("--pass-threshold", min=0, max=1,
                                                         help="below this eval score the run ends eval_failed")] = None,
    executor: Annotated[str | None, typer.Option(
        "--executor", help="where subtasks run: local (this machine) or temporal (worker machines; "
                           "default: swarm.toml [executor])")] = None,
    temporal: Annotated[str | None, typer.Option("--temporal", metavar="HOST:PORT",
                                                 help="the Temporal service (implies --executor temporal)")] = None,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Run a plan: tasks as parallel agent sessions behind the gateway."""
    from orchestrator.config import with_overrides

    cfg = config_of(config)
    state = _state(state_dir)
    overrides = _flag_overrides(executor=executor, temporal=temporal, adversarial=adversarial,
                                max_rounds=max_rounds, eval_command=eval_command, pass_threshold=pass_threshold)
    previous = _run_dir(state, resume).read_run() if resume else {}
    # A resume keeps the flags the run started with (a flag given again wins).
    for section, values in dict(previous.get("overrides") or {}).items():
        overrides[section] = {**values, **overrides.get(section, {})}
    overrides = {k: v for k, v in overrides.items() if v}
    if overrides:
        cfg = with_overrides(cfg, overrides)
    if resume:
        the_plan = _plan_to_resume(state, resume, previous, cfg)
        the_run_id, engine = resume, engine or previous.get("engine")
    else:
        if (plan is None) == (prompt is None):
            raise fail("give one of --plan PLAN.json or --prompt TEXT (or --resume RUN_ID)")
        if plan is None:
            plan = _gathered_plan_file(str(prompt), cfg, state, engine=engine, auto_approve=auto_approve,
                                       quiet=as_json)
        the_plan = load_plan_checked(plan, cfg, engine or cfg.defaults.engine)
        warn_quota(the_plan, cfg)
        if cfg.safety.require_plan_approval and the_plan.status != "approved" and not auto_approve:
            raise fail(f"the plan is not approved: run `acteon-swarm plan approve --plan {plan}` "
                       "or pass --auto-approve")
        the_run_id = _new_run_id(state, run_id)
    engine = engine or cfg.defaults.engine
    if detach:
        _detach(the_run_id, state, resume=bool(resume), as_json=as_json,
                args=["--engine", str(engine), "--state-dir", str(state)]
                + (["--plan", str(plan.absolute()), "--run-id", the_run_id, "--auto-approve"] if plan else [])
                + (["--resume", the_run_id] if resume else [])
                + (["--max-agents", str(max_agents)] if max_agents else [])
                + _override_args(overrides)
                + (["--config", str(config.absolute())] if config else []))
        return
    report = _execute(the_plan, cfg, state, the_run_id, engine=str(engine), max_agents=max_agents,
                      resume=bool(resume), overrides=overrides, quiet=as_json)
    if as_json:
        _print_json({"run_id": report.run_id, "status": report.status, "tasks": report.tasks,
                     "stats": report.stats, "peak_running": report.peak_running})
    else:
        from orchestrator.rundir import RunDir
        from orchestrator.show import status as st

        print(st.render(st.collect(RunDir(state, report.run_id))))
        print(f"  summary: {RunDir(state, report.run_id).summary_file}")
    # 3: nothing failed, but parked tasks wait for a person (`acteon-swarm park list`)
    raise typer.Exit({"done": 0, "parked": 3}.get(report.status, 1))  # eval_failed, failed, cancelled: 1


def _flag_overrides(*, executor: str | None, temporal: str | None, adversarial: bool | None,
                    max_rounds: int | None, eval_command: str | None,
                    pass_threshold: float | None) -> dict[str, dict[str, object]]:
    """The swarm.toml sections the run's flags override (journaled, so a resume keeps them)."""
    overrides: dict[str, dict[str, object]] = {"adversarial": {}, "eval_harness": {}, "executor": {}}
    if executor is not None:
        if executor not in ("local", "temporal"):
            raise fail(f"--executor: local or temporal, not {executor!r}")
        overrides["executor"]["kind"] = executor
    if temporal is not None:
        if executor == "local":
            raise fail("--temporal names a Temporal service: it goes with --executor temporal, not local")
        overrides["executor"].update(kind="temporal", address=temporal)
    if adversarial is not None:
        overrides["adversarial"]["enabled"] = adversarial
    if max_rounds is not None:
        overrides["adversarial"]["max_rounds"] = max_rounds
    if eval_command is not None:
        overrides["eval_harness"].update(enabled=True, command=eval_command)
    if pass_threshold is not None:
        overrides["eval_harness"]["pass_threshold"] = pass_threshold
    return overrides


def _plan_to_resume(state: Path, run_id: str, previous: dict[str, Any], cfg: SwarmConfig) -> Plan:
    """The plan of a run that stopped (crashed, killed, cancelled or parked); refused while it still runs."""
    from orchestrator.plan.file import load_plan
    from orchestrator.process import is_same_process
    from orchestrator.roles import roles_from_config

    if previous.get("status") == "running" and is_same_process(int(previous.get("pid", 0)),
                                                               int(previous.get("process_start_time") or 0)):
        raise fail(f"run {run_id} is still running (pid {previous['pid']})")
    if previous.get("status") == "done":
        raise fail(f"run {run_id} is already done: nothing to resume (start a new run with --plan)")
    return load_plan(_run_dir(state, run_id).plan_file, set(roles_from_config(cfg)))


def _gathered_plan_file(prompt: str, cfg: SwarmConfig, state: Path, *, engine: str | None, auto_approve: bool,
                        quiet: bool) -> Path:
    """``--prompt``: a plan gathered from the request, saved under the state folder (run unapproved only with
    --auto-approve)."""
    import secrets

    from orchestrator.plan.file import save_plan

    if cfg.safety.require_plan_approval and not auto_approve:
        raise fail("a gathered plan is unapproved: pass --auto-approve to run it at once, or use "
                   "`acteon-swarm plan gather` and approve the plan first")
    chosen = engine or cfg.defaults.engine
    if chosen == "command":
        raise fail(f"--prompt needs an AI engine to plan with: --engine {'|'.join(AGENT_ENGINES)}")
    gathered = gather_plan(prompt, engine=chosen, model=None, command=None, workdir=None,
                           timeout=cfg.defaults.subtask_timeout_seconds, cfg=cfg, state=state, interactive=False)
    plan = state / "plans" / f"{gathered.plan.id}-{secrets.token_hex(3)}.json"
    plan.parent.mkdir(parents=True, exist_ok=True)
    save_plan(gathered.plan, plan)
    if not quiet:
        print(f"gathered plan: {plan} ({len(gathered.plan.tasks)} tasks)", file=sys.stderr)
    return plan


def _new_run_id(state: Path, run_id: str | None) -> str:
    import secrets

    the_run_id = run_id or f"run-{secrets.token_hex(4)}"
    if (state / "runs" / the_run_id / "run.json").exists():
        raise fail(f"run {the_run_id} already exists (resume it with --resume {the_run_id})")
    return the_run_id


def _execute(the_plan: Plan, cfg: SwarmConfig, state: Path, run_id: str, *, engine: str, max_agents: int | None,
             resume: bool, overrides: dict[str, dict[str, object]], quiet: bool) -> RunReport:
    """The run in this process, behind the configured gateway (or one started for it and stopped after)."""
    import asyncio

    from orchestrator.roles import roles_from_config
    from orchestrator.run.runner import Run, RunOptions

    if cfg.executor.kind == "temporal" and not os.environ.get(c.ENV_URL):
        raise fail(f"a distributed run needs a gateway its workers reach: set {c.ENV_URL} (and start "
                   "`acteon-gateway` on an address the worker machines reach, with TLS off loopback)")
    url, admin, embedded = gateway_for(state, cfg)
    opts = RunOptions(engine=engine, state_dir=state, gateway_url=url, admin_key=admin, max_agents=max_agents,
                      subtask_timeout_s=float(cfg.defaults.subtask_timeout_seconds), resume=resume,
                      overrides=overrides)
    try:
        with _progress(the_plan, quiet=quiet) as progress:
            return asyncio.run(Run(the_plan, cfg, roles_from_config(cfg), opts, run_id, progress).execute())
    finally:
        if embedded is not None:
            embedded.stop()


def _override_args(overrides: dict[str, dict[str, object]]) -> list[str]:
    """The run's flags again, for the detached child."""
    adv, ev = overrides.get("adversarial", {}), overrides.get("eval_harness", {})
    args: list[str] = []
    if "enabled" in adv:
        args.append("--adversarial" if adv["enabled"] else "--no-adversarial")
    if "max_rounds" in adv:
        args += ["--max-rounds", str(adv["max_rounds"])]
    if "command" in ev:
        args += ["--eval", str(ev["command"])]
    if "pass_threshold" in ev:
        args += ["--pass-threshold", str(ev["pass_threshold"])]
    ex = overrides.get("executor", {})
    if "kind" in ex:
        args += ["--executor", str(ex["kind"])]
    if "address" in ex:
        args += ["--temporal", str(ex["address"])]
    return args


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
    from orchestrator.show import terminal
    from orchestrator.show.progress import LinePrinter, LiveProgress, TaskBoard

    console = terminal.console(stderr=True)
    if not console.is_terminal:
        yield LinePrinter(console)
        return
    with LiveProgress(TaskBoard.for_tasks([(t.id, t.assigned_role) for t in the_plan.tasks]), console) as live:
        yield live


def status(
    run_id: Annotated[str, typer.Option("--run", help="run id")],
    watch: Annotated[bool, typer.Option("--watch", help="refresh until the run ends")] = False,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Where a run stands: tasks and the gateway's counters."""
    from orchestrator.show import status as st

    state = _state(state_dir)
    rd = _run_dir(state, run_id)
    while True:
        info = st.collect(rd)
        if as_json:
            _print_json(info)
        else:
            print(st.render(info))
        if not watch or info["status"] != "running":
            return
        import time

        time.sleep(2)  # a display refresh interval, not a synchronisation
        print()


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
    executor = dict(run.get("executor") or {})
    if executor.get("kind") == "temporal" and result["orchestrator"] not in ("cancelled", "done", "failed"):
        # The coordinator is gone: its subtasks still run on worker machines. Find them on Temporal itself.
        result["workflows"] = _cancel_workflows(executor, run_id)
    if as_json:
        _print_json(result)
    else:
        extra = f"; {result['workflows']}" if "workflows" in result else ""
        print(f"run {run_id}: gateway {result['gateway']}; orchestrator {result['orchestrator']}{extra}")
    if result["gateway"] != "cancelled" and result["orchestrator"] not in ("cancelled", "done", "failed"):
        raise typer.Exit(1)


def _cancel_workflows(executor: dict[str, Any], run_id: str) -> str:
    import asyncio

    from orchestrator.config import ExecutorSection
    from orchestrator.errors import UserError

    try:
        from orchestrator.executors.temporal.executor import cancel_run
    except ImportError:
        return "its workflows were not cancelled: the distributed extra is not installed here"
    try:
        n = asyncio.run(cancel_run(ExecutorSection.model_validate(executor), run_id))
    except UserError as e:
        return f"its workflows were not cancelled: {e}"
    return f"{n} workflow(s) cancelled on Temporal, their agents stopped"


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
    has_key = _find_admin_key(state) is not None
    if not rd.exists() and not has_key:
        raise fail(f"no run {run_id!r} in {state / 'runs'} (and no admin key to ask a gateway about it)")
    if not rd.exists() or has_key:
        rows = _gateway_call(state, run_id, lambda cl: cl.audit(run_id, outcome=outcome, agent=agent),
                             offline_ok=rd.exists())
    kept = _journaled_audit(rd, outcome, agent) if rd.exists() else []
    if rows is None:
        rows = kept
        print(f"acteon-swarm: the gateway of run {run_id} is not running; these are the {len(rows)} decisions "
              f"kept in {rd.journal_file}", file=sys.stderr)
    else:
        # A resumed run's earlier gateways are gone (an embedded one lives as long as its orchestrator):
        # their decisions are in the journal only, so the trail is the journal's plus the live gateway's.
        live = {r.get("cursor") for r in rows}
        rows = sorted(rows + [r for r in kept if r["cursor"] not in live], key=lambda r: int(r.get("ts") or 0))
    if as_json:
        _print_json(rows)
        return
    print(f"{'AGENT':<16} {'OUTCOME':<16} {'RULE':<28} TARGET")
    for r in rows:
        print(f"{_cut(r.get('agent_id', ''), 16):<16} {_cut(r.get('outcome', ''), 16):<16} "
              f"{_cut(r.get('rule', '') or '', 28):<28} {_cut(r.get('target', ''), 60)}")


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` characters, an ellipsis where it was cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _journaled_audit(rd: Any, outcome: str | None, agent: str | None) -> list[dict[str, Any]]:
    """The run's decisions as its journal kept them (copied from the gateway's audit while it ran), in the
    gateway's record shape (``cursor`` is the audit stream entry id)."""
    from orchestrator.events import ToolCall

    rows = []
    for event in rd.read_events():
        if isinstance(event, ToolCall) and (outcome is None or event.outcome == outcome) and (
                agent is None or event.agent_id == agent):
            rows.append({"cursor": event.audit_id, "agent_id": event.agent_id, "task_id": event.task_id,
                         "tool": event.tool, "action_type": event.action_type, "target": event.target,
                         "outcome": event.outcome, "rule": event.rule or "", "reason": event.reason,
                         "approval_id": event.approval_id, "decided_by": event.decided_by or "",
                         "decision_reason": event.decision_reason or "", "shown_sha256": event.shown_sha256 or "",
                         "quota_warned": int(event.quota_warned), "ts": event.at_ms})
    return rows
