"""The agent CLIs' hook dialects, read and written in one place (docs/clis.md).

Each CLI sends a JSON event and reads a JSON answer (or only an exit code). The wrong answer shape is silently
ignored (and the tool then runs): Codex even runs the call when an answer holds one field it does not know,
so each dialect answers with exactly its documented fields. Events are read into Claude's shape by
``acteon_core.shapes``; everything that turns such an event into a gateway request, a finished call into an
audit event, or a gateway result into an answer lives here, and is used by all three callers: the hook's
``gate`` and ``complete`` commands and the gateway's native Claude http-hook endpoint.
"""

from __future__ import annotations

from acteon_core import contract as c
from acteon_core import wire

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook imports nothing it does not need at run time
    from typing import Any

CLAUDE = "claude"
GEMINI = "gemini"
CODEX = "codex"  # Claude's events, told apart only by --cli codex; answers without a field Codex does not know
QWEN = "qwen"  # Qwen Code: Claude's events and answers (Gemini's tool names); told apart by --cli qwen
# OpenCode has no command hooks: our plugin (acteon_core/opencode_plugin.js) sends Claude-shaped events and
# reads Codex-style answers (no decision, allow with a new input, deny with a reason), throwing on a deny.
OPENCODE = "opencode"
COPILOT = "copilot"  # top-level ``permissionDecision`` answers
CRUSH = "crush"  # ``decision`` allow / deny with ``updated_input``
CLINE = "cline"  # ``cancel`` with an ``errorMessage``; reads the answer only when the hook exits 0
CURSOR = "cursor"  # ``permission`` allow / deny with ``user_message`` and ``agent_message``
GOOSE = "goose"  # ``decision`` block / allow
WINDSURF = "windsurf"  # no answer: only the exit code (2 blocks)
ANTIGRAVITY = "antigravity"  # agy: ``decision`` allow / deny / ask
CLAUDE_SDK = "claude-sdk"  # a Claude Agent SDK program's hook callbacks (hook/agent_sdk.py): Claude's answers
DIALECTS = (CLAUDE, GEMINI, CODEX, QWEN, OPENCODE, COPILOT, CRUSH, CLINE, CURSOR, GOOSE, WINDSURF, ANTIGRAVITY,
            CLAUDE_SDK)

PRE_EVENTS = {"PreToolUse": CLAUDE, "BeforeTool": GEMINI}
POST_EVENTS = {"PostToolUse": CLAUDE, "AfterTool": GEMINI}
PROVIDERS = {CLAUDE: c.PROVIDER_CLAUDE, GEMINI: c.PROVIDER_GEMINI, CODEX: c.PROVIDER_CODEX, QWEN: c.PROVIDER_QWEN,
             OPENCODE: c.PROVIDER_OPENCODE, COPILOT: c.PROVIDER_COPILOT, CRUSH: c.PROVIDER_CRUSH,
             CLINE: c.PROVIDER_CLINE, CURSOR: c.PROVIDER_CURSOR, GOOSE: c.PROVIDER_GOOSE,
             WINDSURF: c.PROVIDER_WINDSURF, ANTIGRAVITY: c.PROVIDER_ANTIGRAVITY, CLAUDE_SDK: c.PROVIDER_CLAUDE_SDK}
# The exit code of a deny. Exit 2 blocks on every CLI that reads exit codes, so a lost or unread answer still
# blocks; Cline ignores the answer of a hook that exits non-zero and runs the call, so its deny exits 0.
DENY_EXIT = {CLINE: 0}
# CLIs that cannot run a call with a new input: a reroute is refused there, with its reason.
NO_REROUTE = frozenset({CLINE, GOOSE, WINDSURF, ANTIGRAVITY, CURSOR})

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


def clip(reason: str) -> str:
    lines = reason.splitlines() or [""]
    text = "\n".join(lines[:_MAX_LINES])
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


def allow(dialect: str, reason: str, updated_input: dict[str, Any] | None = None, *,
          authoritative: bool = True, tool: object = None) -> dict[str, Any]:
    """What a gateway allow answers. Authoritative (orchestrated runs, `install --authoritative`): allow,
    which also skips the CLI's own permission prompt. Otherwise no decision: the gateway found nothing
    against the call, and the user's own permission settings still decide whether it runs (an interactive
    Claude Code asks as it would without the gate). A rewritten input is then offered for confirmation
    (Claude: `ask` with the new input; Gemini: the new input with no decision).

    Codex accepts an allow only together with a new input, and has no `ask`: an allow is no decision (its own
    approval policy decides), a rewritten input is an allow with that input either way."""
    dialect = CLAUDE if dialect in (QWEN, CLAUDE_SDK) else CODEX if dialect == OPENCODE else dialect
    if dialect in NO_REROUTE and updated_input is not None:
        return deny(dialect, f"acteon-swarm: the gateway rerouted this call, and this CLI cannot run a call with a "
                             f"new input; call blocked. {reason}".strip(), tool)
    if dialect in (CLINE, WINDSURF):
        return {}  # no opinion: Cline has no allow, Windsurf reads only the exit code
    if dialect == CURSOR:  # Cursor's own allow-list still decides: a hook's allow cannot approve anything
        return {"permission": "allow"}
    if dialect in (GOOSE, ANTIGRAVITY):
        # agy: `ask` leaves its own policy to decide (an empty answer or `{}` is read as malformed there)
        return {"decision": "allow"} if authoritative else {} if dialect == GOOSE else {"decision": "ask"}
    if dialect == CRUSH:
        if updated_input is not None:  # Crush merges it into the call's input, key by key
            return {"decision": "allow", "updated_input": updated_input}
        return {"decision": "allow"} if authoritative else {}
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


def deny(dialect: str, reason: str, tool: object = None) -> dict[str, Any]:
    # Never "ask": a headless Gemini hangs on it, a headless Claude turns it into a deny anyway, and Codex runs
    # the call. Codex needs the non-empty reason (an empty one is an invalid answer, and the call runs).
    if dialect == COPILOT:
        return {"permissionDecision": "deny", "permissionDecisionReason": clip(reason)}
    if dialect == CLINE:
        return cline_block(reason, tool)
    if dialect == CURSOR:
        return {"permission": "deny", "user_message": clip(reason), "agent_message": clip(reason)}
    if dialect == GOOSE:
        return {"decision": "block", "reason": clip(reason)}
    if dialect in (CLAUDE, CODEX, QWEN, OPENCODE, CLAUDE_SDK):
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

def answer(result: dict[str, Any], dialect: str, *, authoritative: bool = True,
           tool: object = None) -> dict[str, Any]:
    """The answer for a dispatch result. Anything but a well-formed allow is a deny with the reason: an
    unknown outcome, a reroute without its replacement input, a pending approval, a block. An allow is
    an allow only when the hook is ``authoritative`` (see :func:`allow`)."""
    outcome = result.get(c.R_OUTCOME)
    reason = str(result.get(c.R_REASON) or "")
    rule = result.get(c.R_RULE)
    if outcome not in c.OUTCOMES:
        return deny(dialect, f"acteon-swarm: unknown outcome {outcome!r} from the gateway; call blocked", tool)
    if result.get(c.R_ALLOWED) is True and outcome in c.ALLOWED_OUTCOMES:
        updated = result.get(c.R_UPDATED_INPUT) if outcome == c.REROUTED else None
        if outcome == c.REROUTED and not isinstance(updated, dict):
            return deny(dialect, "acteon-swarm: rerouted without a replacement input; call blocked", tool)
        return allow(dialect, f"acteon-swarm: {outcome} ({rule})", updated, authoritative=authoritative, tool=tool)
    if outcome == c.PENDING_APPROVAL:
        approval = result.get(c.R_APPROVAL_ID) or "?"
        return deny(dialect, f"acteon-swarm: waiting for human approval ({approval}); not run. {reason}".strip(),
                    tool)
    return deny(dialect, f"acteon-swarm blocked this call ({outcome}, rule {rule}): {reason}", tool)


def defer(reason: str) -> dict[str, Any]:
    """Claude's ``defer``: a headless session stops with the call unrun (``stop_reason: tool_deferred``), and
    ``claude -p --resume`` asks the hook again. Orchestrated Claude agents answer a pending approval with it
    (``gate --defer``), so the orchestrator can free the agent's slot until a person decides."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer",
                                   "permissionDecisionReason": clip(reason)}}


# Cline cannot refuse one call: `cancel` ends the whole run (and the model never hears why). A call is refused by
# replacing its input with one that does nothing — a command that prints the reason and fails, an edit of no
# file, nothing to read, fetch or search — and telling the model the reason (`contextModification`). A tool
# with no such input is refused by ending the run.
_CLINE_NOTHING: dict[str, dict[str, Any]] = {"editor": {"path": "", "new_text": ""}, "read_files": {"files": []},
                                              "fetch_web_content": {"requests": []}, "search_codebase": {"queries": []}}


def cline_block(reason: str, tool: object) -> dict[str, Any]:
    reason = clip(reason)
    if tool == "run_commands":
        from shlex import quote  # only a refused Cline command pays for it

        nothing: dict[str, Any] | None = {"commands": [f"printf '%s\\n' {quote(reason)} >&2; exit 126"]}
    else:
        nothing = _CLINE_NOTHING.get(str(tool))
    if nothing is None:
        return {"cancel": True, "errorMessage": reason}
    return {"cancel": False, "overrideInput": nothing, "contextModification": reason}


def denied(answer: dict[str, Any]) -> str | None:
    """The reason, when ``answer`` (any dialect's) refuses the call; None when it lets it run."""
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason", ""))
    if answer.get("permissionDecision") == "deny":
        return str(answer.get("permissionDecisionReason", ""))
    if answer.get("decision") in ("deny", "block"):
        return str(answer.get("reason", ""))
    if answer.get("cancel") is True:
        return str(answer.get("errorMessage", ""))
    if answer.get("cancel") is False and "overrideInput" in answer:  # Cline: the call replaced by nothing
        return str(answer.get("contextModification", ""))
    if answer.get("permission") == "deny":
        return str(answer.get("agent_message", ""))
    return None


def rejected(approval_id: str, view: dict[str, Any]) -> str:
    """The reason shown when a human rejected the call."""
    by = view.get("resolved_by") or "an operator"
    why = view.get("resolution_reason") or "no reason given"
    return f"acteon-swarm: a human rejected this call ({approval_id}), by {by}: {why}"
