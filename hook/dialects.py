"""Answers in each calling CLI's own dialect (see shared/reference/agent-cli-hooks.md §1.5, §2.3).

The wrong shape is silently ignored by both CLIs (and the tool then runs), so these two functions are
the only place the shapes are written. The gateway's Claude http-hook endpoint uses them too.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook imports nothing it does not need at run time
    from typing import Any

CLAUDE = "claude"
GEMINI = "gemini"
DIALECTS = (CLAUDE, GEMINI)

PRE_EVENTS = {"PreToolUse": CLAUDE, "BeforeTool": GEMINI}
POST_EVENTS = {"PostToolUse": CLAUDE, "AfterTool": GEMINI}
PROVIDERS = {CLAUDE: "claude-code", GEMINI: "gemini-cli"}

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


def allow(dialect: str, reason: str, updated_input: dict[str, Any] | None = None) -> dict[str, Any]:
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
    # Never "ask": a headless Gemini hangs on it and a headless Claude turns it into a deny anyway.
    if dialect == CLAUDE:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": clip(reason)}}
    return {"decision": "deny", "reason": clip(reason)}
