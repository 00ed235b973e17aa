"""``acteon-swarm task retry``: run again a task whose branch could not be merged.

Registered on the main app by ``orchestrator.cli``."""

from __future__ import annotations

import getpass
from typing import Annotated

import typer

from orchestrator.cli.common import JsonOut, StateDir, admin_key, fail, print_json, run_dir, state_of

app = typer.Typer(help="Act on one task of a run.", no_args_is_help=True)


@app.command()
def retry(run_id: Annotated[str, typer.Argument(help="the run")],
          task_id: Annotated[str, typer.Argument(help="a task that ended conflict or verify_failed")],
          by: Annotated[str | None, typer.Option("--by", help="who asks (default: your user name)")] = None,
          state_dir: StateDir = None, as_json: JsonOut = False) -> None:
    """Run a task again on the current integration head, with the report of the attempt that failed in its
    prompt (and in $ACTEON_RETRY_REPORT). The failed attempt's branch is kept. Then `run --resume RUN`."""
    from orchestrator import events as E
    from orchestrator.workspace.tasks import Attempts

    state = state_of(state_dir)
    admin_key(state)
    rd = run_dir(state, run_id)
    if rd.status() == "running":
        raise fail(f"run {run_id} is running: retry a task once the run has ended")
    status = rd.task_statuses().get(task_id)
    if status not in ("conflict", "verify_failed"):
        raise fail(f"task {task_id!r} of run {run_id} is {status or 'unknown'}: only a task that ended conflict or "
                   "verify_failed can be retried")
    # The failed attempt may be the refiner's retry as well as a person's: the journal counts both.
    attempts = Attempts.from_journal(rd.read_events(), rd.reports_dir)
    report = attempts.report_path_after(task_id)
    rd.record(E.RetryRequested, task_id=task_id, by=(by or getpass.getuser()).strip() or "operator", report=report)
    if as_json:
        print_json({"run_id": run_id, "task_id": task_id, "attempt": attempts.count.get(task_id, 0) + 1,
                    "report": report})
    else:
        print(f"{task_id} will run again on the integration head: `acteon-swarm run --resume {run_id}`")
