"""Each agent CLI's hook event read into Claude Code's shape, which everything else reads.

Claude Code, Gemini CLI, Codex CLI, Qwen Code and our OpenCode plugin already send ``hook_event_name``,
``tool_name``, ``tool_input``, ``session_id`` and ``cwd``. The others name them their own way (docs/clis.md):
Copilot CLI in camelCase without an event name, Crush and Goose with ``event``, Cline nested under the event's
name, Cursor in camelCase events, Windsurf with no tool at all (the event says what the call does), Antigravity
as a protobuf ``toolCall``. The tool keeps its CLI's name (the audit shows what the agent called); where a
CLI names a path, a command or a URL differently from every other CLI, the input also gets the key the
gateway reads (``file_path``, ``command``, ``url``…) beside the CLI's own, so a call is judged by what it does
whatever the spelling. A tool whose input cannot be read stays without the key: the gateway then cannot name
the file a write changes, and refuses it.
"""

from __future__ import annotations

from acteon_core import wire

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook imports nothing it does not need at run time
    from typing import Any

PRE = "PreToolUse"
POST = "PostToolUse"

# Antigravity's PascalCase arguments → the keys the gateway reads (agy's tools inherit Windsurf's names).
_AGY_KEYS = {"CommandLine": "command", "Cwd": "dir_path", "TargetFile": "file_path", "AbsolutePath": "file_path",
             "CodeContent": "content", "ReplacementContent": "new_string", "DirectoryPath": "path",
             "SearchPath": "path", "SearchDirectory": "path", "Url": "url", "Query": "query", "Pattern": "pattern"}
# Windsurf's events name the action; the tool each stands for (there is no tool name in its events).
WINDSURF_TOOLS = {"run_command": "run_command", "write_code": "write_code", "read_code": "read_code"}


def claude_shaped(event: dict[str, Any], dialect: str, event_name: str) -> dict[str, Any]:
    """``event`` as Claude Code sends it. ``event_name``: what the hook's command says it is (PreToolUse for
    ``gate``, PostToolUse for ``complete``), for CLIs whose events do not say."""
    reader = _READERS.get(dialect)
    return event if reader is None else reader(event, event_name)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _first(values: object) -> str | None:
    return _str(values[0]) if isinstance(values, list) and values else None


def _shaped(name: str, tool: object, tool_input: object, session: object = None, cwd: object = None,
            **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"hook_event_name": name, "tool_name": tool, "tool_input": tool_input}
    if _str(session):
        out["session_id"] = session
    if _str(cwd):
        out["cwd"] = cwd
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def _object(value: object) -> dict[str, Any] | None:
    """A JSON object, or a JSON string holding one (some CLIs send arguments as text); else None (the gate
    refuses a call without an input)."""
    if isinstance(value, str):
        try:
            value = wire.loads(value)
        except (ValueError, RecursionError):
            return None
    return dict(value) if isinstance(value, dict) else None


def _with_keys(args: dict[str, Any] | None, keys: dict[str, str]) -> dict[str, Any] | None:
    if args is None:
        return None
    out = dict(args)
    for theirs, ours in keys.items():
        if theirs in args and ours not in out:
            out[ours] = args[theirs]
    return out


def _copilot(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Copilot CLI: camelCase, no event name, ``toolArgs`` an object or a JSON string."""
    shaped = _shaped(name, event.get("toolName"), _object(event.get("toolArgs")), event.get("sessionId"),
                     event.get("cwd"))
    if "toolResult" in event:
        shaped["tool_response"] = event["toolResult"]
    return shaped


def _crush(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Crush: Claude's fields with ``event`` for ``hook_event_name``."""
    shaped = {k: v for k, v in event.items() if k != "event"}
    shaped["hook_event_name"] = _str(event.get("event")) or name
    return shaped


def _goose(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Goose: ``event``, ``working_dir``, ``tool_call_id``; an edit's new text is ``after``."""
    tool_input = _with_keys(_object(event.get("tool_input")), {"after": "new_string"})
    return _shaped(_str(event.get("event")) or name, event.get("tool_name"), tool_input, event.get("session_id"),
                   event.get("working_dir"), tool_use_id=_str(event.get("tool_call_id")),
                   tool_response=event.get("tool_response"))


def _cline(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Cline: ``hookName`` ``tool_call`` / ``tool_result`` with the call in ``tool_call`` / ``tool_result`` (its
    CLI, 3.x), or ``PreToolUse`` / ``PostToolUse`` with ``preToolUse`` / ``postToolUse`` holding the tool's name
    and string parameters (its editor extension). A sub-agent's calls name their parent."""
    hook = {"tool_call": PRE, "tool_result": POST}.get(str(event.get("hookName")), _str(event.get("hookName")) or name)
    call = event.get("tool_call") if hook == PRE else event.get("tool_result")
    response = None
    if isinstance(call, dict):
        tool, tool_input = _str(call.get("name")), _object(call.get("input"))
        if hook == POST:
            post = event.get("postToolUse")
            failed = isinstance(post, dict) and post.get("success") is False
            response = {"result": call.get("output"), "is_error": failed}
        duration = call.get("durationMs")
    else:  # the editor extension's shape
        call = event.get("preToolUse") if hook == PRE else event.get("postToolUse")
        call = call if isinstance(call, dict) else {}
        tool = _str(call.get("toolName")) or _str(call.get("tool"))
        params = call.get("parameters")
        tool_input = dict(params) if isinstance(params, dict) else None
        if hook == POST:
            response = {"result": call.get("result"), "is_error": call.get("success") is False}
        duration = call.get("executionTimeMs")
    tool, tool_input = _cline_input(tool, tool_input)
    return _shaped(hook, tool, tool_input, event.get("taskId"),
                   _first(event.get("workspaceRoots")) or _str(event.get("workspacePath")),
                   tool_response=response, duration_ms=duration,
                   agent_type="sub-agent" if _str(event.get("parent_agent_id")) else None)


def _cline_input(tool: str | None, args: dict[str, Any] | None) -> tuple[str | None, dict[str, Any] | None]:
    """Cline's arguments with the keys the gateway reads beside them: its commands as one script, an edit's new
    text, the files it reads, the URLs it fetches; an MCP call as ``mcp__server__tool``."""
    if args is None:
        return tool, None
    out = dict(args)
    if tool == "run_commands":
        commands = args.get("commands")
        if isinstance(commands, list) and all(isinstance(x, str) for x in commands):
            out["command"] = "\n".join(commands)
    elif tool == "editor" and isinstance(args.get("new_text"), str):
        out["new_string"] = args["new_text"]
    elif tool == "read_files" and isinstance(args.get("files"), list):
        out["paths"] = [f.get("path") for f in args["files"] if isinstance(f, dict)]
    elif tool == "fetch_web_content" and isinstance(args.get("requests"), list):
        out["urls"] = [r.get("url") for r in args["requests"] if isinstance(r, dict)]
    elif tool == "replace_in_file" and isinstance(args.get("diff"), str):
        out["new_string"] = _replacements(args["diff"])  # what runs is judged on what it writes
    elif tool == "use_mcp_tool":
        server, inner = _str(args.get("server_name")), _str(args.get("tool_name"))
        if server and inner:
            return f"mcp__{server}__{inner}", _object(args.get("arguments") or "{}")
    return tool, out


def _replacements(diff: str) -> str:
    """The text a Cline SEARCH/REPLACE diff writes: every REPLACE section."""
    out, keep = [], False
    for line in diff.splitlines():
        marker = line.strip()
        if marker.startswith("=======") and len(set(marker)) == 1:
            keep = True
        elif marker.startswith(("+++++++", ">>>>>>>", "-------", "<<<<<<<")) and (
                "REPLACE" in marker or "SEARCH" in marker):
            keep = False
        elif keep:
            out.append(line)
    return "\n".join(out)


def _cursor(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Cursor: ``preToolUse`` / ``postToolUse``, the conversation for a session, workspace roots for a cwd; its
    shell runs in ``working_directory``."""
    theirs = _str(event.get("hook_event_name")) or ""
    hook = PRE if theirs == "preToolUse" else POST if theirs.startswith("postToolUse") else name
    tool_input = _with_keys(_object(event.get("tool_input")), {"working_directory": "dir_path"})
    response = event.get("tool_output") if "tool_output" in event else event.get("tool_response")
    return _shaped(hook, event.get("tool_name"), tool_input, event.get("conversation_id"),
                   _str(event.get("cwd")) or _first(event.get("workspace_roots")),
                   tool_use_id=_str(event.get("tool_use_id")), tool_response=response)


def _windsurf(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Windsurf: the event names the action (``pre_run_command``, ``pre_write_code``, ``pre_read_code``,
    ``pre_mcp_tool_use``, and their ``post_`` forms); ``tool_info`` holds its fields."""
    action = _str(event.get("agent_action_name")) or ""
    when, _, what = action.partition("_")
    info = event.get("tool_info")
    info = dict(info) if isinstance(info, dict) else None
    tool: object = WINDSURF_TOOLS.get(what)
    tool_input: dict[str, Any] | None = None
    if info is not None and what == "run_command":
        tool_input = {**info, "command": info.get("command_line")}
    elif info is not None and what in ("write_code", "read_code"):
        tool_input = info
    elif info is not None and what == "mcp_tool_use":
        server, inner = _str(info.get("mcp_server_name")), _str(info.get("mcp_tool_name"))
        tool = f"mcp__{server}__{inner}" if server and inner else None
        tool_input = _object(info.get("mcp_tool_arguments") or {})
    hook = PRE if when == "pre" else POST if when == "post" else name
    response = {"result": info.get("output") if info else None} if hook == POST else None
    return _shaped(hook, tool, tool_input, event.get("trajectory_id"), info.get("cwd") if info else None,
                   tool_use_id=_str(event.get("execution_id")), tool_response=response)


def _antigravity(event: dict[str, Any], name: str) -> dict[str, Any]:
    """Antigravity (agy): protobuf JSON, ``toolCall.name`` and ``toolCall.args`` in PascalCase."""
    call = event.get("toolCall")
    call = call if isinstance(call, dict) else {}
    tool_input = _with_keys(_object(call.get("args")), _AGY_KEYS)
    return _shaped(name, call.get("name"), tool_input, event.get("conversationId"),
                   _first(event.get("workspacePaths")), tool_response=event.get("toolResult"))


_READERS = {"copilot": _copilot, "crush": _crush, "goose": _goose, "cline": _cline, "cursor": _cursor,
            "windsurf": _windsurf, "antigravity": _antigravity}
