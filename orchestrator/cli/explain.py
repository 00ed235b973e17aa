"""``acteon-swarm explain -- CMD``: how the gateway would decide a call, and why.

Asks the gateway (``$ACTEON_URL`` or the default address; with no gateway there, one started on the embedded
store of this state directory for the question) through ``POST /v1/explain`` with the admin key (or a named
operator key in ``$ACTEON_OPERATOR_KEY``): the facts the analysis found — categories, programs, paths and
their classes, hosts — every rule of the pack in force that matches, in priority order, the one that decides,
and what an agent would be told to do instead. Nothing runs and nothing is recorded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from acteon_core import contract as c
from orchestrator.cli.common import JsonOut, StateDir, fail, find_admin_key, print_json, state_of


def explain(
    command: Annotated[list[str] | None, typer.Argument(help="the command, after `--` (quoted or as words)")] = None,
    cwd: Annotated[Path | None, typer.Option("--cwd", help="the agent's working directory (default: here)")] = None,
    tool: Annotated[str, typer.Option("--tool", help="the tool called (Bash, Write, Read, WebFetch …)")] = "Bash",
    file_path: Annotated[str | None, typer.Option("--file", help="for Write/Edit/Read: the file")] = None,
    content: Annotated[str | None, typer.Option("--content", help="for Write: the content written")] = None,
    url: Annotated[str | None, typer.Option("--url", help="for WebFetch: the URL")] = None,
    run_id: Annotated[str, typer.Option("--run", help="whose rules: a run's (default: the global pack)")] = "default",
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Explain how the gateway would decide a tool call: facts, matching rules, the deciding one."""
    state = state_of(state_dir)
    body: dict[str, Any] = {"tool": tool, "run_id": run_id, "cwd": str((cwd or Path.cwd()).absolute()),
                            "home": os.environ.get("HOME")}
    if tool in c.SHELL_TOOLS:
        if not command:
            raise fail("give the command after `--`: acteon-swarm explain -- rm -rf build")
        body["command"] = " ".join(command)
    else:
        body["input"] = {k: v for k, v in (("file_path", file_path), ("content", content), ("url", url),
                                            ("prompt", "explain") if url else ("", None)) if k and v is not None}
        if not body["input"]:
            raise fail(f"give what {tool} is called with: --file (and --content), or --url")
    answer = _ask(state, body)
    if as_json:
        print_json(answer)
        return
    _print(body, answer)


def _ask(state: Path, body: dict[str, Any]) -> dict[str, Any]:
    import asyncio

    from orchestrator.gatewayclient import GatewayClient, GatewayError, Unreachable

    key = os.environ.get(c.ENV_OPERATOR_KEY) or find_admin_key(state) or ""

    async def ask(url: str, key: str) -> dict[str, Any]:
        client = GatewayClient(url, key)
        try:
            return await client.explain(body)
        finally:
            await client.aclose()

    url = os.environ.get(c.ENV_URL) or c.DEFAULT_URL
    try:
        if key:
            return asyncio.run(ask(url, key))
    except Unreachable:
        if os.environ.get(c.ENV_URL):
            raise fail(f"cannot reach the gateway at {url}; start it (`acteon-gateway`) or unset ACTEON_URL") from None
    except GatewayError as e:
        raise fail(str(e)) from None
    from orchestrator import embedded

    try:
        gateway = embedded.start(state)
    except (RuntimeError, OSError) as e:
        raise fail(f"no gateway at {url}, and an embedded one did not start: {e}") from None
    try:
        return asyncio.run(ask(gateway.url, gateway.admin_key))
    except GatewayError as e:
        raise fail(str(e)) from None
    finally:
        gateway.stop()


def _print(body: dict[str, Any], answer: dict[str, Any]) -> None:
    facts = answer["facts"]
    shown = body.get("command") or answer["target"]
    print(shown)
    rows = [("action", answer["action_type"]), ("categories", ", ".join(facts["categories"]) or "—"),
            ("programs", ", ".join(dict.fromkeys(facts["executables"])) or "—"),
            ("paths", ", ".join(f"{p['path']} ({p['class']})" for p in facts["paths"][:12]) or "—"),
            ("hosts", ", ".join(facts["hosts"]) or "—")]
    if facts.get("limit"):
        rows.append(("not analysed", facts["limit"]))
    for name, value in rows:
        print(f"  {name:<11} {value}")
    print("rules that match, in priority order:")
    for rule in answer["matched"]:
        mark = "→" if rule["decides"] else " "
        note = "decides" if rule["decides"] else rule["kind"] if rule["reached"] else f"{rule['kind']}, not reached"
        print(f"  {mark} {rule['priority']:>3} {rule['name']:<32} {rule['action']:<17} {note}")
    reason = f" — {answer['reason']}" if answer["reason"] else ""
    print(f"verdict: {answer['verdict']} ({answer['decided_by']}){reason}")
    if answer.get("instead"):
        print(f"instead: {answer['instead']}")
