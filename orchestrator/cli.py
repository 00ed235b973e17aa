"""``acteon-swarm``: the orchestrator CLI (SPEC §5.1).

Heavy modules (httpx, rich tables, the gateway) are imported inside commands, so ``--help``,
``status`` and ``cancel`` stay fast (a test checks it).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated

import typer

from hook import contract as c

app = typer.Typer(
    name="acteon-swarm",
    help="Run AI coding-agent swarms safely: every tool call passes a policy gateway first.",
    no_args_is_help=True,
    add_completion=False,
)
gateway_app = typer.Typer(help="Run the policy gateway.", no_args_is_help=True)
app.add_typer(gateway_app, name="gateway")


@app.command()
def demo(
    as_json: Annotated[bool, typer.Option("--json", help="print the decisions as JSON")] = False,
) -> None:
    """Start a gateway on the embedded store with the default pack and show decisions being made."""
    from rich.console import Console

    from orchestrator import demo as demo_mod

    result = demo_mod.run(Console(), as_json=as_json)
    if as_json:
        print(json.dumps(result, indent=2))


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
    app()


if __name__ == "__main__":
    main()
