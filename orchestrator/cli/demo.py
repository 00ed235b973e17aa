"""``acteon-swarm demo``: a bundled plan on the ``command`` engine behind an embedded gateway with the
default pack — needs nothing but Python. It shows parallel tasks, a dangerous command blocked, an approval
request (approved by a scripted operator, as a human would with ``acteon-swarm approvals approve``), a
throttle the agents wait out, and ends with the run's status figures.

The demo is a run like any other: it lives under the state directory (``runs`` lists it; ``status``,
``audit`` and ``graph query`` work on it after the demo's gateway is gone), and it ends by printing those
commands. Its run ends ``failed`` — the blocked task failed, truthfully — so the headline says whether the
demo behaved as designed instead."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

# What a demo run must show; anything else means the gateway did not decide as designed.
EXPECTED_TASKS = {"scaffold": "done", "docs": "done", "check": "done", "cleanup": "failed", "publish": "done",
                  "fan-out": "done"}


def _task(tid: str, name: str, commands: list[str], deps: list[str] | None = None,
          priority: int = 100) -> dict[str, Any]:
    return {"id": tid, "name": name, "assigned_role": "executor", "priority": priority,
            "depends_on": deps or [],
            "subtasks": [{"id": f"{tid}-{i + 1}", "name": f"{name} {i + 1}", "command": cmd}
                         for i, cmd in enumerate(commands)]}


def demo_plan(workspace: Path) -> dict[str, Any]:
    return {
        "id": "demo-plan", "objective": "Scaffold, check and publish a tiny project", "status": "approved",
        "estimated_actions": 40, "scope": {"working_directory": str(workspace), "max_agents": 3},
        "tasks": [
            _task("scaffold", "scaffold the project", ["mkdir -p src docs",
                                                      "printf 'print(\"hello\")\\n' > src/app.py",
                                                      "echo echo > .publisher"], priority=10),
            _task("docs", "write the docs", ["echo '# Demo' > docs/README.md"], ["scaffold"]),
            _task("check", "check the sources", ["grep -rn 'print' src > check.txt"], ["scaffold"]),
            # The agent gets creative: the gateway parses through the wrapper and blocks it.
            _task("cleanup", "clean up aggressively", ["sudo env X=1 rm -r -f /etc/acteon-demo-nonexistent"]),
            # A command that cannot be known before it runs (its name is read from a file) needs a human.
            _task("publish", "publish", ["$(cat .publisher) published > published.txt"], ["check", "docs"]),
            # Eight quick commands at once: the run's throttle (6 per 2 s in this demo) makes some wait.
            _task("fan-out", "fan out", [f"echo {i} >> fanout.txt" for i in range(8)], ["scaffold"]),
        ],
    }


# The demo tightens the default pack's swarm-wide throttle (30 per minute) so it shows within seconds.
DEMO_RULES = [{"name": "throttle-swarm-actions", "priority": 7, "action": "throttle", "limit": 6, "window_s": 2,
               "per": "run", "when": {"action_type": ["execute_command", "write_file"]}}]


async def _operator(client: Any, run_id: str, console: Console | None, seen: list[str], journaled: Any) -> None:
    """Plays the human at the approvals queue (a UI loop: it looks every 200 ms). Like a person watching the
    run, it decides once the run has shown the call waiting (``journaled``: the approval ids in the journal),
    so the demo's lines read in the order things happened."""
    while True:
        for a in await client.approvals(run_id, "pending"):
            if a["approval_id"] in seen or a["approval_id"] not in journaled():
                continue
            seen.append(a["approval_id"])
            if console:
                console.print(f"[yellow]approval[/]  {a['approval_id']}: `{a['target']}` "
                              f"({a['reason']}) — the operator approves it")
            await client.resolve(a["approval_id"], True, "demo-operator", "looks fine")
        await asyncio.sleep(0.2)


def program() -> str:
    """How to call this CLI again from any folder: ``acteon-swarm`` when the PATH finds this very program,
    else its full path (``scripts/demo`` runs ``.venv/bin/acteon-swarm``, which is not on the PATH)."""
    here = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    found = shutil.which("acteon-swarm")
    if here is not None and here.name == "acteon-swarm" and (found is None or Path(found).resolve() != here):
        return str(here)
    return "acteon-swarm"


def run(console: Console, state_dir: Path | None = None, as_json: bool = False) -> dict[str, Any]:
    from orchestrator import embedded
    from orchestrator.config import parse_config
    from orchestrator.events import ToolCall
    from orchestrator.gatewayclient import GatewayClient
    from orchestrator.plan.model import Plan
    from orchestrator.roles import roles_from_config
    from orchestrator.run.runner import Run, RunOptions
    from orchestrator.rundir import RunDir, default_state_dir
    from orchestrator.show import status as st
    from orchestrator.show.progress import LinePrinter

    state = state_dir or default_state_dir()
    run_id = f"demo-{secrets.token_hex(3)}"
    # The agents' workspace is a scratch folder of its own: never inside the state dir, which the gateway
    # guards as a secret (its keys live there).
    workspace = Path(tempfile.mkdtemp(prefix=f"acteon-{run_id}-"))
    plan = Plan.model_validate(demo_plan(workspace))
    cfg = parse_config({"monitor": {"poll_interval_seconds": 0.25}}, "demo")  # a livelier view than 1 s
    gw = embedded.start(state)  # like `run`: the admin key in the state dir, where the CLI looks for it
    out = None if as_json else console
    if out:
        out.print(f"[bold]acteon-swarm demo[/] — plan '{plan.objective}', {len(plan.tasks)} tasks on the command "
                  f"engine,\ngateway on the embedded store with the default pack at {gw.url}\n")

    progress = LinePrinter(out) if out else None

    opts = RunOptions(engine="command", state_dir=state, gateway_url=gw.url, admin_key=gw.admin_key,
                      subtask_timeout_s=60, extra_rules=DEMO_RULES)
    approved: list[str] = []

    def journaled() -> set[str]:
        return {e.approval_id for e in RunDir(state, run_id).read_events()
                if isinstance(e, ToolCall) and e.approval_id}

    async def main() -> Any:
        client = GatewayClient(gw.url, gw.admin_key)
        operator = asyncio.create_task(_operator(client, run_id, out, approved, journaled))
        try:
            return await Run(plan, cfg, roles_from_config(cfg), opts, run_id, progress).execute()
        finally:
            operator.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await operator
            await client.aclose()

    try:
        report = asyncio.run(main())
    finally:
        gw.stop()
    info = st.collect(RunDir(state, run_id))
    stats = report.stats
    as_designed = (report.tasks == EXPECTED_TASKS and stats.get("suppressed", 0) >= 1 and len(approved) >= 1)
    result = {"run_id": run_id, "status": report.status, "as_designed": as_designed, "tasks": report.tasks,
              "stats": stats, "approvals": approved, "peak_running": report.peak_running, "state_dir": str(state),
              "workspace": str(workspace)}
    if out:
        out.print()
        if as_designed:
            info["outcome"] = "as designed: the gateway blocked the cleanup task"
        out.print(st.render(info))
        if as_designed:
            out.print(f"\n[bold green]The demo behaved as designed[/]: the dangerous cleanup was blocked (so its "
                      f"task failed and the run reads 'failed'), {len(approved)} call waited for a human and ran once "
                      f"approved, {stats.get('throttled', 0)} call(s) waited out the throttle.")
        else:
            out.print("\n[bold red]The demo did not behave as designed[/]: see the tasks above and the journal.")
        # The state folder by its absolute path: the commands work from any folder, not only this one.
        state_opt = f" --state-dir {state.resolve()}"
        me = program()
        out.print(f"\nThe run is kept in {state / 'runs' / run_id} (journal, agents' logs, summary.md); the "
                  f"agents worked in {workspace}. Try:\n"
                  f"  {me} runs{state_opt}\n"
                  f"  {me} status --run {run_id}{state_opt}\n"
                  f"  {me} audit --run {run_id}{state_opt}\n"
                  f"  {me} graph query --run {run_id}{state_opt} --ready blocked-calls-by-rule")
    return result
