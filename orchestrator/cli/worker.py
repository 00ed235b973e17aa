"""``acteon-swarm worker``: run agents for distributed runs on this machine (the Temporal executor)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from acteon_core import contract as c
from orchestrator.cli.common import fail, state_of


def worker(
    temporal: Annotated[str, typer.Option("--temporal", metavar="HOST:PORT", help="the Temporal service")],
    queue: Annotated[str, typer.Option("--queue", help="the task queue to serve (a role's machine pool)")] =
        "acteon-agents",
    slots: Annotated[int, typer.Option("--slots", min=1, max=1000, help="agents at once on this machine")] = 4,
    namespace: Annotated[str, typer.Option("--namespace", help="the Temporal namespace")] = "default",
    gateway: Annotated[str | None, typer.Option("--gateway", metavar="URL",
                                                help=f"the gateway its agents reach (default ${c.ENV_URL})")] = None,
    key_file: Annotated[Path | None, typer.Option(
        "--key-file", help=f"the worker key (default ${c.ENV_WORKER_KEY}; made with `acteon-gateway workers add`)")]
        = None,
    state_dir: Annotated[Path | None, typer.Option(
        "--state-dir", help="agent logs and the record of running agent groups (default: $ACTEON_STATE_DIR/worker)")]
        = None,
    tls_ca: Annotated[str | None, typer.Option("--tls-ca", help="Temporal over TLS: the CA file")] = None,
    tls_cert: Annotated[str | None, typer.Option("--tls-cert", help="mTLS: this machine's certificate")] = None,
    tls_key: Annotated[str | None, typer.Option("--tls-key", help="mTLS: its private key")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", metavar="VAR",
                                                    help="the variable holding a Temporal Cloud API key")] = None,
) -> None:
    """Serve a Temporal task queue: run subtasks of distributed runs here, at most --slots at once.

    Holds a worker key (it can only mint per-attempt agent keys) and never the admin key or the store's
    address. Agents it left running when it was killed are killed when it starts again."""
    import asyncio

    from pydantic import ValidationError

    try:
        from orchestrator.executors.base import ExecutorConfig
        from orchestrator.executors.temporal.worker import harden, serve, take_worker_key
    except ImportError:
        raise fail("the Temporal executor needs the distributed extra: pip install 'acteon-swarm[distributed]'") \
            from None
    if not harden():  # before the key is read: its agents must not read it out of this process
        print("acteon-swarm worker: warning: could not make this process undumpable (not Linux?): run its "
              "agents as another user", file=sys.stderr)
    url = gateway or os.environ.get(c.ENV_URL)
    if not url:
        raise fail(f"which gateway do the agents reach? give --gateway URL or set {c.ENV_URL}")
    try:
        key = take_worker_key(key_file)
    except OSError as e:
        raise fail(f"--key-file {key_file}: {e.strerror}") from None
    if not key:
        raise fail(f"no worker key: set {c.ENV_WORKER_KEY} or give --key-file (make one with "
                   "`acteon-gateway workers add NAME`)")
    try:
        cfg = ExecutorConfig(kind="temporal", address=temporal, namespace=namespace, queue=queue, tls_ca=tls_ca,
                             tls_cert=tls_cert, tls_key=tls_key, api_key_env=api_key_env)
    except ValidationError as e:
        raise fail("; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())) from None
    where = state_dir.absolute() if state_dir else state_of(None) / "worker"
    asyncio.run(serve(cfg, queue=queue, slots=slots, gateway_url=url, worker_key=key, state_dir=where))
