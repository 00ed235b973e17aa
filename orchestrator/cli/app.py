"""``acteon-swarm``: the orchestrator CLI (docs/swarm.md).

Heavy modules (httpx, the gateway, rich tables) are imported inside commands, so ``--help``, ``status``
and ``cancel`` start fast (a test checks it). Exit codes: 0 ok, 1 the run or action failed, 2 bad input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from acteon_core import contract as c
from orchestrator.cli import runs as run_commands
from orchestrator.cli.approvals import app as approvals_app
from orchestrator.cli.common import (
    StateDir,
    fail,
)
from orchestrator.cli.common import print_json as _print_json
from orchestrator.cli.doctor import doctor
from orchestrator.cli.explain import explain
from orchestrator.cli.graph import app as graph_app
from orchestrator.cli.memory import app as memory_app
from orchestrator.cli.park import app as park_app
from orchestrator.cli.plans import app as plan_app
from orchestrator.cli.tasks import app as task_app
from orchestrator.cli.worker import worker
from orchestrator.cli.worktrees import cleanup, merge
from orchestrator.show.terminal import plain_flags

app = typer.Typer(
    name="acteon-swarm",
    help="Run AI coding-agent swarms safely: every tool call passes a policy gateway first.",
    no_args_is_help=True,
    add_completion=False,
)
gateway_app = typer.Typer(help="Run the policy gateway.", no_args_is_help=True)
app.add_typer(gateway_app, name="gateway")
app.add_typer(plan_app, name="plan")
app.add_typer(approvals_app, name="approvals")
app.add_typer(park_app, name="park")
app.add_typer(task_app, name="task")
for command in (run_commands.run, run_commands.status, run_commands.runs, run_commands.cancel,
                run_commands.audit, merge, cleanup, doctor, worker, explain):
    app.command()(command)
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


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="where to write them")] = Path(),
    force: Annotated[bool, typer.Option("--force", help="overwrite files that exist")] = False,
    engine: Annotated[str, typer.Option(help="claude | gemini | command (plain commands: no agent CLI needed)")]
    = "claude",
) -> None:
    """Write a commented example swarm.toml and plan.json to start from."""
    from acteon_core.vocabulary import ENGINES
    from orchestrator.starter import write_starter

    if engine not in ENGINES:
        raise fail(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
    try:
        written = write_starter(directory, force=force, engine=engine)
    except FileExistsError as e:
        raise fail(f"{e} exists: pass --force to overwrite it") from None
    except OSError as e:
        raise fail(f"cannot write into {directory}: {e.strerror}") from None
    for path in written:
        print(f"wrote {path}")
    print(f"next: acteon-swarm plan validate --plan {written[1]}  (then `plan approve` and `run --plan`)")


# --- demo / gateway --------------------------------------------------------------------------------
@app.command()
def demo(
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the decisions as JSON")] = False,
) -> None:
    """Start a gateway on the embedded store with the default pack and show decisions being made."""
    from orchestrator.cli import demo as demo_mod
    from orchestrator.show import terminal

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
    from orchestrator.teardown import exit_process

    try:
        app()
    except UserError as e:
        if debug:
            raise
        sys.stderr.write(f"acteon-swarm: {e}\n")
        exit_process(2)
    except SystemExit as e:  # typer ends every command with one
        exit_process(_exit_code(e))
    exit_process(0)


def _exit_code(e: SystemExit) -> int:
    """The status ``sys.exit`` would give: None is 0, an int is itself, anything else was printed, 1."""
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    sys.stderr.write(f"{e.code}\n")
    return 1


if __name__ == "__main__":
    main()
