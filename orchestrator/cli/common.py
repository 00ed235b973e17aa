"""What every command needs: its options, the state directory, the admin key, the gateway of a run, and one
way to stop with a user error (one line on stderr, exit code 2)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from acteon_core import contract as c

StateDir = Annotated[Path | None, typer.Option("--state-dir", help="state directory (default $ACTEON_STATE_DIR "
                                                                    "or ./.acteon-swarm)")]
JsonOut = Annotated[bool, typer.Option("--json", help="print JSON for scripts")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="swarm.toml (default ./swarm.toml if present)")]


def fail(message: str, code: int = 2) -> typer.Exit:
    sys.stderr.write(f"acteon-swarm: {message}\n")
    return typer.Exit(code)


def state_of(state_dir: Path | None) -> Path:
    from orchestrator.rundir import default_state_dir

    return state_dir.absolute() if state_dir else default_state_dir()


def find_admin_key(state: Path) -> str | None:
    key = os.environ.get(c.ENV_ADMIN_KEY)
    if key:
        return key
    path = state / "admin.key"
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def admin_key_source(state: Path) -> str:
    """Where :func:`find_admin_key` took the key from, for a message about it."""
    return f"${c.ENV_ADMIN_KEY}" if os.environ.get(c.ENV_ADMIN_KEY) else str(state / "admin.key")


def admin_key(state: Path) -> str:
    key = find_admin_key(state)
    if key:
        return key
    path = state / "admin.key"
    raise fail(f"no admin key: set {c.ENV_ADMIN_KEY} (or run the embedded gateway, which writes {path})")


def run_dir(state: Path, run_id: str) -> Any:
    from orchestrator.rundir import RunDir

    rd = RunDir(state, run_id)
    if not rd.exists():
        raise fail(f"no run {run_id!r} in {state / 'runs'}")
    return rd


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def gateway_url(state: Path, run_id: str | None) -> str:
    """Where a run's gateway is: ``$ACTEON_URL``, else what the run folder recorded (an embedded gateway's own
    port), else the default address (hook-only runs such as ``default`` have no folder)."""
    from orchestrator.rundir import RunDir

    url = os.environ.get(c.ENV_URL)
    if not url and run_id and RunDir(state, run_id).exists():
        url = RunDir(state, run_id).read_run().get("gateway_url")
    return url or c.DEFAULT_URL


def gateway_call(state: Path, run_id: str | None, fn: Any, *, offline_ok: bool = False, url: str | None = None,
                 best_effort: bool = False, key: str | None = None) -> Any:
    """``fn(client)`` against the run's gateway (or ``url``) — the one way commands talk to a gateway. With
    ``offline_ok``, None when no gateway answers (the caller falls back to the run folder's copy); with
    ``best_effort``, None on any gateway problem (live figures that are nice to have); otherwise every
    gateway problem is one line and exit code 2."""
    import asyncio

    from orchestrator.gatewayclient import GatewayClient, GatewayError, NotFound, Unauthorized, Unreachable

    if key is None:
        key = find_admin_key(state) if best_effort else admin_key(state)
    if key is None:
        return None

    async def go() -> Any:
        client = GatewayClient(url or gateway_url(state, run_id), key, timeout_s=5.0 if best_effort else 10.0)
        try:
            return await fn(client)
        finally:
            await client.aclose()

    try:
        return asyncio.run(go())

    except GatewayError as e:
        if best_effort or (offline_ok and isinstance(e, Unreachable)):
            return None
        if isinstance(e, Unreachable) and run_id and not _has_run_folder(state, run_id):
            raise fail(f"no run {run_id!r} in {state / 'runs'}, and no gateway answers at "
                       f"{url or gateway_url(state, run_id)} to ask about it") from None
        if isinstance(e, Unreachable):
            raise fail(f"{e}; start it (`acteon-gateway`) or point ACTEON_URL at it") from None
        if isinstance(e, Unauthorized):
            raise fail(f"the gateway at {url or gateway_url(state, run_id)} does not know the admin key from "
                       f"{admin_key_source(state)}: use the key that gateway wrote (its state directory's "
                       f"admin.key) or set {c.ENV_ADMIN_KEY}") from None
        if isinstance(e, NotFound) and run_id and "run" in str(e).lower():
            raise fail(f"no run {run_id!r}: neither {state / 'runs'} nor the gateway knows it") from None
        raise fail(str(e)) from None


def _has_run_folder(state: Path, run_id: str) -> bool:
    from orchestrator.rundir import RunDir

    return RunDir(state, run_id).exists()
