"""``acteon-swarm approvals``: the human side of the approval gate, for every run.

A run started without ``ACTEON_URL`` has its own embedded gateway on a port of its own, recorded in its run
folder; the admin key is the state directory's 0600 ``admin.key``. So ``list`` asks every gateway a live
run of this state directory uses (plus ``$ACTEON_URL`` or the default address), and ``approve``/``reject``
find the gateway from the run named inside the approval id (``apr-<hex>-<run>``). What is listed is what a
human must judge: the full command (never cut), the agent and its role, the rule, how long it has waited.
With ``$ACTEON_OPERATOR_KEY`` (a named operator key) the gateway records that operator as the decider.
The command is printed as the gateway renders it for the console (hidden characters written out as
``⟦U+…⟧``), and a decision carries the SHA-256 of exactly that text: the gateway refuses it if the
approval is not what was printed.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from acteon_core import contract as c
from orchestrator.cli.common import JsonOut, StateDir, fail, gateway_call, gateway_url, print_json, state_of

app = typer.Typer(help="Human approvals of agent tool calls, across every live run.", no_args_is_help=True)


def _gateways(state: Path, run_id: str | None) -> list[str]:
    """The gateways to ask: the run's own, or those of every live run here plus the shared one."""
    if run_id is not None:
        return [gateway_url(state, run_id)]
    from orchestrator.rundir import list_runs

    urls = [os.environ.get(c.ENV_URL) or c.DEFAULT_URL]
    for rd in list_runs(state):
        try:
            if rd.status() == "running":
                urls.append(rd.read_run().get("gateway_url") or "")
        except ValueError:
            continue
    return list(dict.fromkeys(u for u in urls if u))


def _age(created_ms: int) -> str:
    seconds = max(0, int(time.time() - created_ms / 1000)) if created_ms else 0
    return f"{seconds // 60}m{seconds % 60:02d}s"


@app.command("list")
def list_(
    run_id: Annotated[str | None, typer.Option("--run", help="only this run")] = None,
    status_: Annotated[str | None, typer.Option("--status", help="pending|approved|rejected|expired|used")] = "pending",
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Approvals waiting for a human, grouped by run, with the full command each one asks to run."""
    state = state_of(state_dir)
    rows: dict[str, dict[str, Any]] = {}
    answered = 0
    from orchestrator.rundir import RunDir

    kept = run_id is not None and RunDir(state, run_id).exists()
    for url in _gateways(state, run_id):
        found = gateway_call(state, run_id, lambda cl: cl.approvals(run_id, status_), url=url, key=_operator_key(),
                             offline_ok=run_id is None or kept)
        if found is None:
            continue  # a run's gateway that just stopped, or no shared gateway: nothing waits there
        answered += 1
        for a in found:
            rows.setdefault(a["approval_id"], a)
    if answered == 0 and kept and run_id is not None:
        rows = {a["approval_id"]: a for a in _journaled(RunDir(state, run_id))}
        print(f"acteon-swarm: the gateway of run {run_id} is not running; these are the approvals its journal "
              "recorded (asked again when the run is resumed)", file=sys.stderr)
        answered = 1
    if answered == 0:
        raise fail(f"no gateway answered: no live run in {state / 'runs'} and nothing at "
                   f"{os.environ.get(c.ENV_URL) or c.DEFAULT_URL}; start one (`acteon-gateway`) or pass --run")
    ordered = sorted(rows.values(), key=lambda a: (a.get("run_id") or "", a.get("created_ms") or 0))
    if as_json:
        print_json(ordered)
        return
    if not ordered:
        print(f"no {status_ or ''} approvals".replace("  ", " "))
        return
    current = None
    for a in ordered:
        if a.get("run_id") != current:
            current = a.get("run_id")
            print(f"run {current}")
        print(f"  {a['approval_id']}  {a['status']}  waiting {_age(a.get('created_ms') or 0)}  agent "
              f"{a.get('agent_id')} (role {a.get('role') or '-'})  rule {a.get('rule') or '-'}")
        if a.get("reason"):
            print(f"    why: {a['reason']}")
        _show(a, indent="    ")


def _show(a: dict[str, Any], indent: str = "") -> None:
    """The document the console shows, as is (the gateway already made every hidden character visible)."""
    shown = a.get("shown")
    if shown is None:  # a journaled approval (its gateway is gone): the target is all there is
        print(f"{indent}{a.get('action_type')}: {a.get('target')}")
        return
    if a.get("shown_escaped"):
        print(f"{indent}!! {a['shown_escaped']} hidden or unusual character(s), written out as ⟦U+…⟧")
    for line in str(shown).splitlines():
        print(f"{indent}| {line}")
    print(f"{indent}content sha256 {a.get('shown_sha256')}")


def _journaled(rd: Any) -> list[dict[str, Any]]:
    """Approvals a run asked for, as its journal recorded them: calls that waited for a human and never ran."""
    from orchestrator.show.status import approval_waits

    asked, settled = approval_waits(rd.read_events())
    return [{"approval_id": i, "status": "pending", "run_id": rd.run_id, "agent_id": e.agent_id, "role": None,
             "rule": e.rule, "reason": e.reason, "action_type": e.action_type, "target": e.target,
             "created_ms": e.at_ms} for i, e in asked.items() if i not in settled]


def _operator_key() -> str | None:
    """A person's named operator key, when they set one: the gateway then records them as the decider
    (with the admin key the decider is only the name this command sends, $USER)."""
    return os.environ.get(c.ENV_OPERATOR_KEY) or None


def _resolve(approval_id: str, approve: bool, reason: str, state_dir: Path | None, expect: str | None) -> None:
    state = state_of(state_dir)
    key = _operator_key()
    by = None if key else os.environ.get("USER", "operator")
    run_id = c.approval_run(approval_id)
    if run_id is None:
        raise fail(f"{approval_id!r} is not an approval id (apr-<16 hex>-<run>)")
    current = gateway_call(state, run_id, lambda cl: cl.approval(approval_id), key=key)
    _show(current)
    # The hash of the text just printed, computed here: what this terminal showed is what is decided.
    digest = hashlib.sha256(str(current.get("shown", "")).encode("utf-8")).hexdigest()
    if expect is not None and not digest.startswith(expect.lower()):
        raise fail(f"{approval_id} is not what you reviewed (content sha256 {digest}, you expected {expect}): "
                   "nothing decided")
    a = gateway_call(state, run_id, lambda cl: cl.resolve(approval_id, approve, by, reason, digest), key=key)
    print(f"{a['approval_id']}: {a['status']} by {a.get('resolved_by')}")


Expect = Annotated[str | None, typer.Option(
    "--hash", help="decide only if the approval's content sha256 starts with this (from `approvals list`)")]


@app.command("approve")
def approve(
    approval_id: str, reason: Annotated[str, typer.Option("--reason")] = "",
    state_dir: StateDir = None, expect: Expect = None,
) -> None:
    """Approve a pending call, printed in full first (operators only: agents can never approve)."""
    _resolve(approval_id, True, reason, state_dir, expect)


@app.command("reject")
def reject(
    approval_id: str, reason: Annotated[str, typer.Option("--reason", help="shown to the agent")] = "",
    state_dir: StateDir = None, expect: Expect = None,
) -> None:
    """Reject a pending call; the agent is told the reason."""
    _resolve(approval_id, False, reason, state_dir, expect)
