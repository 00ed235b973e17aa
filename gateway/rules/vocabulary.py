"""The closed vocabulary of rule fields whose values the gateway itself produces.

A rule that says ``category: destructive_delet`` or ``action_type: exec_command`` can never match: it
loads, looks right, and silently lets through what it was written to block (the outside review's
example let `rm -rf /etc` run). So for these fields a value the gateway does not know is a load-time
error naming the closest known value. The vocabulary is published at ``GET /v1/vocabulary`` and in the
rule pack's JSON Schema (``GET /v1/rules/schema``).
"""

from __future__ import annotations

import difflib
import fnmatch
import re

from acteon_core import contract as c
from acteon_core.dialects import PROVIDERS
from acteon_core.vocabulary import TOOL_ACTIONS
from gateway import paths
from gateway.shell.categories import ALL_CATEGORIES

# Tools the CLIs have that the gateway does not normalize to a special action type (they are `other`),
# from the CLIs' own tool lists (docs/clis.md).
_OTHER_TOOLS = (
    "TodoWrite", "Skill", "ToolSearch", "Workflow", "Monitor", "SendMessage", "EnterWorktree", "ExitPlanMode",
    "BashOutput", "KillShell", "SlashCommand", "CronCreate", "CronDelete", "CronList",
    "write_todos", "activate_skill", "enter_plan_mode", "exit_plan_mode", "update_topic",
    "list_background_processes", "read_background_output", "ask_user", "save_memory",
    "todowrite", "read_bash", "write_bash", "list_bash", "stop_bash", "write_stdin", "skill",
)
# MCP tools are named by their server: `mcp__server__tool` (Claude) and `mcp_server_tool` (Gemini).
MCP_TOOL = re.compile(r"^mcp__?[A-Za-z0-9][\w.-]*$")

VOCABULARY: dict[str, tuple[str, ...]] = {
    "action_type": tuple(c.ACTION_TYPES) + ((c.OTHER,) if c.OTHER not in c.ACTION_TYPES else ()),
    "category": tuple(sorted(ALL_CATEGORIES)),
    "path_class": (paths.WORKSPACE, paths.TEMP, paths.HOME, paths.SYSTEM),
    "provider": (*PROVIDERS.values(), c.PROVIDER_ORCHESTRATOR),
    "tool": tuple(sorted({*TOOL_ACTIONS, *_OTHER_TOOLS})),
}
_KNOWN = {field: frozenset(values) for field, values in VOCABULARY.items()}
# Operators whose argument is a pattern over values rather than a value.
_PATTERN_OPERATORS = frozenset({"matches", "glob", "contains", "starts_with"})


def is_closed(field: str) -> bool:
    return field in _KNOWN


def known(field: str, value: str) -> bool:
    return value in _KNOWN[field] or (field == "tool" and MCP_TOOL.match(value) is not None)


def unknown_value(field: str, value: str) -> str:
    """The load-time error for a value of a closed field that the gateway never produces."""
    close = difflib.get_close_matches(value[:200], VOCABULARY[field], n=1, cutoff=0.5)
    if close:
        hint = f"; did you mean '{close[0]}'?"
    elif len(VOCABULARY[field]) <= 6:
        hint = f" (known: {', '.join(VOCABULARY[field])})"
    elif field == "tool":
        hint = " (a CLI tool name or mcp__server__tool / mcp_server_tool; GET /v1/vocabulary)"
    else:
        hint = " (known values: GET /v1/vocabulary)"
    shown = value if len(value) <= 60 else value[:59] + "…"
    return f"field '{field}': unknown value '{shown}'{hint}"


def pattern_matches_nothing(field: str, op: str, arg: str) -> str | None:
    """For a pattern operator on a closed field: an error when the pattern matches no known value."""
    values = VOCABULARY[field]
    if op == "matches":
        rx = re.compile(arg)
        hit = any(rx.search(v) for v in values)
    elif op == "glob":
        hit = any(fnmatch.fnmatchcase(v, arg) for v in values)
    elif op == "contains":
        hit = any(arg in v for v in values)
    else:
        hit = any(v.startswith(arg) for v in values)
    if hit or (field == "tool" and arg.startswith("mcp")):
        return None
    shown = arg if len(arg) <= 60 else arg[:59] + "…"
    return f"field '{field}': '{op}: {shown}' matches no value the gateway produces (GET /v1/vocabulary)"
