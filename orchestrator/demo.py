"""``acteon-swarm demo``: a bundled plan on the ``command`` engine behind an embedded gateway with the
default pack — needs nothing but Python. It shows parallel tasks, a dangerous command blocked, an approval
request (approved by a scripted operator, as a human would with ``acteon-swarm approvals approve``), a
throttle the agents wait out, and ends with the run's status figures."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

RUN_ID = "demo"


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


async def _operator(client: Any, console: Console | None, seen: list[str]) -> None:
    """Plays the human at the approvals queue (a UI loop: it looks every 200 ms)."""
    while True:
        for a in await client.approvals(RUN_ID, "pending"):
            if a["approval_id"] in seen:
                continue
            seen.append(a["approval_id"])
            if console:
                console.print(f"[yellow]approval[/]  {a['approval_id']}: `{a['target']}` "
                              f"({a['reason']}) — the operator approves it")
            await client.resolve(a["approval_id"], True, "demo-operator", "looks fine")
        await asyncio.sleep(0.2)


def run(console: Console, state_dir: Path | None = None, as_json: bool = False) -> dict[str, Any]:
    from orchestrator import embedded
    from orchestrator import status as st
    from orchestrator.config import parse_config
    from orchestrator.gatewayclient import GatewayClient
    from orchestrator.plan import Plan
    from orchestrator.progress import LinePrinter
    from orchestrator.roles import roles_from_config
    from orchestrator.runner import Run, RunOptions

    state = state_dir or Path(tempfile.mkdtemp(prefix="acteon-demo-"))
    workspace = state / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    plan = Plan.model_validate(demo_plan(workspace))
    cfg = parse_config({}, "demo")
    gw = embedded.start(state / "gateway")
    out = None if as_json else console
    if out:
        out.print(f"[bold]acteon-swarm demo[/] — plan '{plan.objective}', {len(plan.tasks)} tasks on the command "
                  f"engine,\ngateway on the embedded store with the default pack at {gw.url}\n")

    progress = LinePrinter(out) if out else None

    opts = RunOptions(engine="command", state_dir=state, gateway_url=gw.url, admin_key=gw.admin_key,
                      subtask_timeout_s=60, extra_rules=DEMO_RULES)
    approved: list[str] = []

    async def main() -> Any:
        client = GatewayClient(gw.url, gw.admin_key)
        operator = asyncio.create_task(_operator(client, out, approved))
        try:
            return await Run(plan, cfg, roles_from_config(cfg), opts, RUN_ID, progress).execute()
        finally:
            operator.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await operator
            await client.aclose()

    try:
        report = asyncio.run(main())
    finally:
        gw.stop()
    from orchestrator.rundir import RunDir

    info = st.collect(RunDir(state, RUN_ID), None)
    result = {"run_id": RUN_ID, "status": report.status, "tasks": report.tasks, "stats": report.stats,
              "approvals": approved, "peak_running": report.peak_running, "state_dir": str(state)}
    if out:
        out.print()
        out.print(st.render(info))
        out.print(f"\nEverything is in {state / 'runs' / RUN_ID}: the journal, each agent's logs, summary.md."
                  f"\nThe gateway's audit trail has one record per decision ({report.stats.get('dispatched', 0)}).")
    return result

