"""The agent CLIs' hook dialects (Claude Code, Gemini CLI, Codex CLI), read and written in one place.

Each CLI sends a JSON event and reads a JSON answer (docs/clis.md). The wrong answer shape is silently
ignored (and the tool then runs): Codex even runs the call when an answer holds one field it does not know,
so each dialect answers with exactly its documented fields. The events differ in small ways (Gemini's
``mcp_context``, Claude's ``mcp_server``; error fields of a finished call; Codex names its events as Claude
does, so it is told apart only by ``--cli codex``). Everything that turns an event into a gateway request,
a finished call into an audit event, or a gateway result into an answer lives here, and is used by all
three callers: the hook's ``gate`` and ``complete`` commands and the gateway's native Claude http-hook
endpoint.
"""

from __future__ import annotations

from acteon_core import contract as c
from acteon_core import wire

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook imports nothing it does not need at run time
    from typing import Any

CLAUDE = "claude"
GEMINI = "gemini"
CODEX = "codex"
QWEN = "qwen"  # Qwen Code: Claude's events and answers (Gemini's tool names); told apart by --cli qwen
# OpenCode has no command hooks: our plugin (acteon_core/opencode_plugin.js) sends Claude-shaped events and
# reads Codex-style answers (no decision, allow with a new input, deny with a reason), throwing on a deny.
OPENCODE = "opencode"
# Copilot CLI: camelCase events with no event name (``toolName``, ``toolArgs``, ``toolResult``), read through
# :func:`claude_shaped`; top-level ``permissionDecision`` answers.
COPILOT = "copilot"
DIALECTS = (CLAUDE, GEMINI, CODEX, QWEN, OPENCODE, COPILOT)

PRE_EVENTS = {"PreToolUse": CLAUDE, "BeforeTool": GEMINI}
POST_EVENTS = {"PostToolUse": CLAUDE, "AfterTool": GEMINI}
PROVIDERS = {CLAUDE: c.PROVIDER_CLAUDE, GEMINI: c.PROVIDER_GEMINI, CODEX: c.PROVIDER_CODEX, QWEN: c.PROVIDER_QWEN,
             OPENCODE: c.PROVIDER_OPENCODE, COPILOT: c.PROVIDER_COPILOT}

# Claude caps permissionDecisionReason at 2000 characters and 20 lines.
_MAX_REASON = 2000
_MAX_LINES = 20


def detect(event_name: object, flag: str | None) -> str | None:
    """The dialect: the --cli flag wins; otherwise the hook event's name tells."""
    if flag in DIALECTS:
        return flag
    if isinstance(event_name, str):
        return PRE_EVENTS.get(event_name) or POST_EVENTS.get(event_name)
    return None


def claude_shaped(event: dict[str, Any], dialect: str, event_name: str) -> dict[str, Any]:
    """The event as Claude's (``tool_name``, ``tool_input``…), which everything here reads. Copilot CLI sends
    ``toolArgs`` as an object or as a JSON string, and no event name (the hook's command says which)."""
    if dialect != COPILOT:
        return event
    args = event.get("toolArgs")
    if isinstance(args, str):
        try:
            args = wire.loads(args)
        except (ValueError, RecursionError):
            args = None  # not an object: the gate refuses a call without tool_input
    shaped: dict[str, Any] = {"hook_event_name": event_name, "tool_name": event.get("toolName"),
                              "tool_input": args}
    for ours, theirs in ((c.F_SESSION_ID, "sessionId"), (c.F_CWD, "cwd")):
        if isinstance(event.get(theirs), str):
            shaped[ours] = event[theirs]
    if "toolResult" in event:
        shaped["tool_response"] = event["toolResult"]
    return shaped


def clip(reason: str) -> str:
    lines = reason.splitlines() or [""]
    text = "\n".join(lines[:_MAX_LINES])
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


def allow(dialect: str, reason: str, updated_input: dict[str, Any] | None = None, *,
          authoritative: bool = True) -> dict[str, Any]:
    """What a gateway allow answers. Authoritative (orchestrated runs, `install --authoritative`): allow,
    which also skips the CLI's own permission prompt. Otherwise no decision: the gateway found nothing
    against the call, and the user's own permission settings still decide whether it runs (an interactive
    Claude Code asks as it would without the gate). A rewritten input is then offered for confirmation
    (Claude: `ask` with the new input; Gemini: the new input with no decision).

    Codex accepts an allow only together with a new input, and has no `ask`: an allow is no decision (its own
    approval policy decides), a rewritten input is an allow with that input either way."""
    dialect = CLAUDE if dialect == QWEN else CODEX if dialect == OPENCODE else dialect
    if dialect == COPILOT:
        if updated_input is not None:
            return {"permissionDecision": "allow", "modifiedArgs": updated_input}
        return {"permissionDecision": "allow"} if authoritative else {}
    if dialect == CODEX:
        if updated_input is None:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "updatedInput": updated_input}}
    if not authoritative:
        if updated_input is None:
            return {}
        if dialect == CLAUDE:
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                           "permissionDecisionReason": clip(reason), "updatedInput": updated_input}}
        return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated_input}}
    if dialect == CLAUDE:
        out: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                               "permissionDecisionReason": clip(reason)}
        if updated_input is not None:
            out["updatedInput"] = updated_input  # replaces the whole input
        return {"hookSpecificOutput": out}
    answer: dict[str, Any] = {"decision": "allow", "reason": clip(reason)}
    if updated_input is not None:
        # Gemini 0.61 rebuilds the call from this object alone: it must be the complete input.
        answer["hookSpecificOutput"] = {"hookEventName": "BeforeTool", "tool_input": updated_input}
    return answer


def deny(dialect: str, reason: str) -> dict[str, Any]:
    # Never "ask": a headless Gemini hangs on it, a headless Claude turns it into a deny anyway, and Codex runs
    # the call. Codex needs the non-empty reason (an empty one is an invalid answer, and the call runs).
    if dialect == COPILOT:
        return {"permissionDecision": "deny", "permissionDecisionReason": clip(reason)}
    if dialect in (CLAUDE, CODEX, QWEN, OPENCODE):
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": clip(reason)}}
    return {"decision": "deny", "reason": clip(reason)}


# -- events → gateway requests ---------------------------------------------------------------------

_EVENT_FIELDS = (c.F_SESSION_ID, c.F_CWD, c.F_TOOL_USE_ID, c.F_AGENT_TYPE)


def default_agent_id(event: dict[str, Any], dialect: str) -> str:
    """An agent id when the caller gives none: the CLI session's, so one session is one agent. A Claude
    subagent's calls count for the agent that spawned it (a subagent must not be a way around that agent's
    throttles); its type goes to the audit trail."""
    session = event.get("session_id") if isinstance(event.get("session_id"), str) else ""
    return f"{dialect}-{session[:12]}" if session else f"{dialect}-agent"


def dispatch_fields(event: dict[str, Any], dialect: str, *, run_id: str, agent_id: str, role: str | None,
                    home: str | None) -> dict[str, Any]:
    """The dispatch request for a PreToolUse / BeforeTool event."""
    body: dict[str, Any] = {
        c.F_RUN_ID: run_id,
        c.F_AGENT_ID: agent_id,
        c.F_PROVIDER: PROVIDERS[dialect],
        c.F_TOOL: event.get("tool_name"),
        c.F_INPUT: event.get("tool_input"),
    }
    if role:
        body[c.F_ROLE] = role
    if home:
        body[c.F_HOME] = home
    for field in _EVENT_FIELDS:
        value = event.get(field)
        if isinstance(value, str) and value:
            body[field] = value
    server = mcp_server(event)
    if server:
        body[c.F_MCP_SERVER] = server
    return body


def mcp_server(event: dict[str, Any]) -> str | None:
    ctx = event.get("mcp_context")  # Gemini
    if isinstance(ctx, dict) and isinstance(ctx.get("server_name"), str):
        return str(ctx["server_name"])
    srv = event.get("mcp_server")  # Claude
    if isinstance(srv, dict) and isinstance(srv.get("name"), str):
        return str(srv["name"])
    return None


def completion(event: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """The audit event for a PostToolUse / AfterTool event (the tool already ran)."""
    response = event.get("tool_response")
    failed = False
    if isinstance(response, dict):
        failed = bool(response.get("is_error") or response.get("error") or response.get("interrupted")
                      or response.get("resultType") in ("failure", "denied", "rejected"))
    elif isinstance(response, str) and response.startswith("Exit code: "):  # Codex: "Exit code: N\n..."
        failed = not response.startswith("Exit code: 0\n")
    body: dict[str, Any] = {
        "agent_id": agent_id,
        "tool": str(event.get("tool_name") or "unknown")[:256],
        "success": not failed,
        "size": len(wire.dumps(response)) if response is not None else 0,
    }
    duration = event.get("duration_ms")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and duration >= 0:
        body["duration_ms"] = int(duration)
    for field in (c.F_TOOL_USE_ID, c.F_SESSION_ID):
        value = event.get(field)
        if isinstance(value, str) and value:
            body[field] = value
    if failed and isinstance(response, dict):
        error = response.get("error")
        if isinstance(error, str | dict):
            body["error"] = str(error.get("message", error) if isinstance(error, dict) else error)[:4000]
    return body


# -- gateway results → answers ---------------------------------------------------------------------

def answer(result: dict[str, Any], dialect: str, *, authoritative: bool = True) -> dict[str, Any]:
    """The answer for a dispatch result. Anything but a well-formed allow is a deny with the reason: an
    unknown outcome, a reroute without its replacement input, a pending approval, a block. An allow is
    an allow only when the hook is ``authoritative`` (see :func:`allow`)."""
    outcome = result.get(c.R_OUTCOME)
    reason = str(result.get(c.R_REASON) or "")
    rule = result.get(c.R_RULE)
    if outcome not in c.OUTCOMES:
        return deny(dialect, f"acteon-swarm: unknown outcome {outcome!r} from the gateway; call blocked")
    if result.get(c.R_ALLOWED) is True and outcome in c.ALLOWED_OUTCOMES:
        updated = result.get(c.R_UPDATED_INPUT) if outcome == c.REROUTED else None
        if outcome == c.REROUTED and not isinstance(updated, dict):
            return deny(dialect, "acteon-swarm: rerouted without a replacement input; call blocked")
        return allow(dialect, f"acteon-swarm: {outcome} ({rule})", updated, authoritative=authoritative)
    if outcome == c.PENDING_APPROVAL:
        approval = result.get(c.R_APPROVAL_ID) or "?"
        return deny(dialect, f"acteon-swarm: waiting for human approval ({approval}); not run. {reason}".strip())
    return deny(dialect, f"acteon-swarm blocked this call ({outcome}, rule {rule}): {reason}")


def rejected(approval_id: str, view: dict[str, Any]) -> str:
    """The reason shown when a human rejected the call."""
    by = view.get("resolved_by") or "an operator"
    why = view.get("resolution_reason") or "no reason given"
    return f"acteon-swarm: a human rejected this call ({approval_id}), by {by}: {why}"
