"""``acteon-swarm-hook gate``: ask the gateway before a tool runs (PreToolUse / BeforeTool).

Fails closed on everything: an unreachable, slow or broken gateway, a non-200 answer, garbage on stdin,
an outcome it does not know, its own bugs. A deny is always printed explicitly, in the caller's dialect.
"""

from __future__ import annotations

import time

from acteon_core import contract as c
from acteon_core import dialects, shapes, wire
from hook import client

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: typing and collections.abc cost milliseconds per tool call
    from collections.abc import Mapping
    from typing import Any

APPROVAL_POLL_MAX_S = 30.0
BOM = b"\xef\xbb\xbf"  # Cursor's CLI on Windows starts its hook input with one
# Time kept back from the budget to print the answer after the last network call.
SAFETY_S = 0.5


class Denied(Exception):
    """The call must not run; the message is the reason shown to the model."""


def identity(event: Mapping[str, Any], dialect: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The dispatch request for one hook event, identity from ACTEON_* variables; a shell command gets
    the text of the local programs it may run (acteon_core/attachments.py)."""
    ev = dict(event)
    body = dialects.dispatch_fields(
        ev, dialect, run_id=env.get(c.ENV_RUN_ID) or c.DEFAULT_RUN_ID,
        agent_id=env.get(c.ENV_AGENT_ID) or dialects.default_agent_id(ev, dialect),
        role=env.get(c.ENV_AGENT_ROLE) or None, home=env.get("HOME") or None)
    tool_input = ev.get("tool_input")
    cwd = ev.get("cwd")
    if ev.get("tool_name") in c.SHELL_TOOLS and isinstance(tool_input, dict) and isinstance(cwd, str):
        from acteon_core import attachments  # only shell calls pay for it

        workdir = tool_input.get("dir_path")
        if isinstance(workdir, str) and workdir:
            workdir = workdir if workdir.startswith("/") else f"{cwd.rstrip('/')}/{workdir}"
        else:
            workdir = cwd
        body[c.F_FILES] = attachments.attach(tool_input.get("command"), workdir, env.get("HOME"))  # type: ignore[arg-type]
    return body


def agent_key(env: Mapping[str, str], key_file: str | None) -> str:
    if env.get(c.ENV_AGENT_KEY):
        return env[c.ENV_AGENT_KEY].strip()
    path = key_file or env.get(c.ENV_AGENT_KEY_FILE)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read().strip()
        except OSError as e:
            raise Denied(f"acteon-swarm: cannot read the agent key file {path}: {e.strerror}") from None
    raise Denied(f"acteon-swarm: no agent key ({c.ENV_AGENT_KEY} or --key-file); every tool call is blocked")


def _call(method: str, url: str, path: str, key: str, body: Any, deadline: float) -> dict[str, Any]:
    payload = None if body is None else wire.dumps(body).encode()
    try:
        reply = client.request(method, url, path, payload, {"Authorization": f"Bearer {key}"}, deadline)
    except client.HttpError as e:
        raise Denied(f"acteon-swarm gateway unavailable, call blocked (fail closed): {e}") from None
    try:
        data = wire.loads(reply.body or b"null")
    except (ValueError, UnicodeDecodeError):
        data = None
    if reply.status != 200 or not isinstance(data, dict):
        message = ""
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            message = f": {data['error'].get('message', '')}"
        raise Denied(f"acteon-swarm gateway answered {reply.status}{message}; call blocked (fail closed)")
    return data


def decide(
    event: Mapping[str, Any], dialect: str, env: Mapping[str, str], *, url: str, key_file: str | None,
    budget_s: float, now: Any = time.monotonic, authoritative: bool = True, defer: bool = False,
) -> dict[str, Any]:
    """The answer to print. Raises nothing: every failure becomes a deny. ``defer`` (Claude only): a call
    waiting for a person is deferred at once rather than waited for within the budget."""
    started = now()
    deadline = started + max(0.5, budget_s - SAFETY_S)
    try:
        if not isinstance(event.get("tool_name"), str) or not isinstance(event.get("tool_input"), dict):
            raise Denied("acteon-swarm: the hook input has no tool_name/tool_input; call blocked")
        key = agent_key(env, key_file)
        body = identity(event, dialect, env)
        result = _call("POST", url, c.DISPATCH_PATH, key, body, min(deadline, now() + c.DISPATCH_TIMEOUT_S))
        if result.get(c.R_OUTCOME) == c.PENDING_APPROVAL:
            if defer and dialect == dialects.CLAUDE and result.get(c.R_APPROVAL_ID):
                return dialects.defer(f"acteon-swarm: waiting for human approval ({result[c.R_APPROVAL_ID]}); "
                                      f"the session resumes once a person decides")
            result = _await_approval(result, url, key, body, deadline, now)
        return dialects.answer(result, dialect, authoritative=authoritative, tool=event.get("tool_name"))
    except Denied as e:
        return dialects.deny(dialect, str(e), event.get("tool_name"))


def _await_approval(
    pending: dict[str, Any], url: str, key: str, body: dict[str, Any], deadline: float, now: Any
) -> dict[str, Any]:
    """Long-poll the approval while the budget lasts; approved → dispatch again (that consumes it)."""
    approval_id = pending.get(c.R_APPROVAL_ID)
    if not isinstance(approval_id, str) or not approval_id:
        return pending
    while True:
        left = deadline - now() - c.DISPATCH_TIMEOUT_S  # keep time for the dispatch after approval
        if left < 1.0:
            return pending
        wait = min(APPROVAL_POLL_MAX_S, left - 0.5)
        view = _call("GET", url, f"{c.API_PREFIX}/approvals/{approval_id}/wait?timeout_s={wait:.1f}", key, None,
                     min(deadline, now() + wait + c.DISPATCH_TIMEOUT_S))
        status = view.get("status")
        if status == c.APPROVAL_APPROVED:
            return _call("POST", url, c.DISPATCH_PATH, key, body, min(deadline, now() + c.DISPATCH_TIMEOUT_S))
        if status == c.APPROVAL_REJECTED:
            raise Denied(dialects.rejected(approval_id, view))
        if status != c.APPROVAL_PENDING:
            raise Denied(f"acteon-swarm: approval {approval_id} is {status}; call blocked")


def run(raw: bytes, flag: str | None, env: Mapping[str, str], *, url: str | None, key_file: str | None,
        budget_s: float, authoritative: bool = True,
        defer: bool = False) -> tuple[dict[str, Any] | None, str | None, str]:
    """Parse stdin and decide. Returns (answer, dialect, stderr text); answer None = dialect unknown."""
    try:
        event = wire.loads(raw.removeprefix(BOM))
    except (ValueError, UnicodeDecodeError, RecursionError):
        event = None
    if not isinstance(event, dict):
        dialect = dialects.detect(None, flag)
        reason = "acteon-swarm: the hook input is not a JSON object; call blocked (fail closed)"
        return (dialects.deny(dialect, reason) if dialect else None), dialect, reason
    dialect = dialects.detect(event.get("hook_event_name"), flag)
    if dialect is not None:
        event = shapes.claude_shaped(event, dialect, shapes.PRE)
    if dialect is None:
        reason = "acteon-swarm: cannot tell which CLI called (no --cli, unknown hook_event_name); call blocked"
        return None, None, reason
    answer = decide(event, dialect, env, url=url or env.get(c.ENV_URL) or c.DEFAULT_URL, key_file=key_file,
                    budget_s=budget_s, authoritative=authoritative, defer=defer)
    return answer, dialect, ""


def environ() -> dict[str, str]:
    """The process environment. ``posix`` is already loaded at start-up; ``os`` would cost more."""
    try:
        from posix import environ as raw
    except ImportError:  # pragma: no cover - not a POSIX system
        import os

        return dict(os.environ)
    return {k.decode("utf-8", "surrogateescape"): v.decode("utf-8", "surrogateescape") for k, v in raw.items()}
