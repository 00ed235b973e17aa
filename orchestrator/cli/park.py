"""``acteon-swarm park list | approve | reject | propose``: the irreversible tasks that wait for a person.

Deciding needs the admin key (as approvals do); the gateway also refuses these commands to agents
(``gate_tamper``), so an agent can never let its own parked task run."""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from orchestrator.cli.common import JsonOut, StateDir, admin_key, fail, print_json, run_dir, state_of

app = typer.Typer(help="Irreversible tasks parked until a person decides: list, approve, reject, propose.",
                  no_args_is_help=True)
RunArg = Annotated[str, typer.Argument(help="the run")]
TaskArg = Annotated[str, typer.Argument(help="the parked task")]
ByOpt = Annotated[str | None, typer.Option("--by", help="who decides (default: your user name)")]


def _ledger(state: Path, run_id: str) -> tuple[Any, Any]:
    from orchestrator.run.parking import ParkLedger

    rd = run_dir(state, run_id)
    return rd, ParkLedger(rd.path)


def _task(rd: Any, ledger: Any, task_id: str) -> dict[str, Any]:
    plan = json.loads(rd.plan_file.read_text(encoding="utf-8"))
    tasks = {t["id"]: t for t in plan.get("tasks", [])}
    for ev in rd.read_events():  # tasks the refiner added are in the journal
        added = getattr(ev, "added_task", None)
        if added:
            tasks[added["id"]] = added
    task = tasks.get(task_id)
    if task is None or not task.get("irreversible"):
        raise fail(f"task {task_id!r} of run {rd.run_id} is not an irreversible task")
    return dict(task)


def _who(by: str | None) -> str:
    return (by or getpass.getuser()).strip() or "operator"


@app.command("list")
def list_(run: Annotated[str | None, typer.Option("--run", help="only this run")] = None,
          state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """Parked tasks waiting for a decision, across runs (or one run)."""
    from orchestrator.run.parking import ParkLedger
    from orchestrator.rundir import list_runs

    state = state_of(state_dir)
    rows = []
    for rd in [run_dir(state, run)] if run else list_runs(state):
        ledger = ParkLedger(rd.path)
        for task_id, entry in ledger.waiting().items():
            rows.append({"run_id": rd.run_id, "task_id": task_id, "reason": entry.reason, "parked_at": entry.ts,
                         "proposals": len(ledger.proposals(task_id))})
    if as_json:
        print_json(rows)
        return
    if not rows:
        print("no parked tasks")
    for r in rows:
        extra = f", {r['proposals']} proposal(s)" if r["proposals"] else ""
        print(f"{r['run_id']}  {r['task_id']}  ({r['reason']}, parked {r['parked_at']}{extra})")


@app.command()
def approve(run_id: RunArg, task_id: TaskArg, by: ByOpt = None,
            proposal: Annotated[int | None, typer.Option("--proposal", min=1,
                                                         help="run this proposal (1 = first) instead")] = None,
            state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """Let a parked task run (once): then `acteon-swarm run --resume RUN`."""
    state = state_of(state_dir)
    admin_key(state)
    rd, ledger = _ledger(state, run_id)
    _task(rd, ledger, task_id)
    if proposal is not None and proposal > len(ledger.proposals(task_id)):
        raise fail(f"task {task_id} has {len(ledger.proposals(task_id))} proposal(s), not {proposal}")
    entry = ledger.append(task_id, "approved", by=_who(by), proposal_no=proposal)
    if as_json:
        print_json(entry.model_dump(exclude_none=True))
    else:
        print(f"approved {task_id} of {run_id}; continue the run with `acteon-swarm run --resume {run_id}`")


@app.command()
def reject(run_id: RunArg, task_id: TaskArg,
           reason: Annotated[str, typer.Option("--reason", help="why (kept in the ledger)")],
           by: ByOpt = None, state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """Never run a parked task: it is skipped and its dependents are blocked."""
    state = state_of(state_dir)
    admin_key(state)
    rd, ledger = _ledger(state, run_id)
    _task(rd, ledger, task_id)
    entry = ledger.append(task_id, "rejected", by=_who(by), reason=reason)
    if as_json:
        print_json(entry.model_dump(exclude_none=True))
    else:
        print(f"rejected {task_id} of {run_id}")


@app.command()
def propose(run_id: RunArg, task_id: TaskArg,
            file: Annotated[Path, typer.Option("--file", help="the alternative task as JSON (a plan task)")],
            by: ByOpt = None, state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """Record a safer alternative to a parked task; `park approve --proposal N` runs it instead."""
    from pydantic import ValidationError

    from orchestrator.plan.model import Task, describe_error

    state = state_of(state_dir)
    admin_key(state)
    rd, ledger = _ledger(state, run_id)
    original = _task(rd, ledger, task_id)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        Task.model_validate({**data, "id": task_id, "depends_on": original.get("depends_on", [])})
    except (OSError, ValueError) as e:
        if isinstance(e, ValidationError):
            raise fail(f"{file}: " + "; ".join(describe_error(err) for err in e.errors())) from None
        raise fail(f"{file}: {e}") from None
    entry = ledger.append(task_id, "proposed", by=_who(by), proposal=data)
    n = len(ledger.proposals(task_id))
    if as_json:
        print_json({**entry.model_dump(exclude_none=True), "proposal_no": n})
    else:
        print(f"proposal {n} recorded for {task_id}; run it with `acteon-swarm park approve {run_id} {task_id} "
              f"--proposal {n}`")
