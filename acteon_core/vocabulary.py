"""The names more than one part uses for the same thing, each written once: task and run states, action
types, outcomes, approval states, and which tool of which CLI does what.

The wire contract (``acteon_core.contract``) holds the plain strings the hook needs on its hot path; here
they become the ``Literal`` types pydantic models and mypy check against (this module imports ``typing``,
which the hook cannot afford). tests/acteon_core/test_vocabulary.py keeps the two, and every copy a
model or page still spells out, in agreement.
"""

from __future__ import annotations

from typing import Literal, get_args

from acteon_core import contract as c

# --- tasks and runs -------------------------------------------------------------------------------
# A task's state: in the scheduler, the journal, the gateway's run view, `status` and the RDF twin. Listed in
# the order `status` shows them.
TaskStatus = Literal["done", "running", "waiting_approval", "ready", "pending", "failed", "skipped", "blocked",
                     "cancelled", "parked",
                     "conflict", "verify_failed"]
TASK_STATUSES: tuple[TaskStatus, ...] = get_args(TaskStatus)
# A dependency in one of these states can never become done, so its dependents are blocked.
DEAD_ENDS: frozenset[TaskStatus] = frozenset({"failed", "skipped", "blocked", "cancelled", "conflict",
                                              "verify_failed"})
TERMINAL: frozenset[TaskStatus] = DEAD_ENDS | {"done"}
# Parked tasks wait for a person (the park ledger): not terminal, but nothing starts them, and their
# dependents wait with them instead of being blocked. A task `waiting_approval` is one whose agent stopped at a
# call a person must approve, its slot given to other tasks until the decision (docs/swarm.md).

# How a task's own work ended (its agents finished, were cancelled, or its merge did not go in).
TaskEnd = Literal["done", "failed", "cancelled", "conflict", "verify_failed"]

# How a whole run ended (the journal's last event, the gateway's run view).
RunStatus = Literal["done", "failed", "cancelled", "interrupted", "parked", "eval_failed"]
# What the orchestrator reports to the gateway: a task's state, a run's end, or a run (re)starting.
ReportedState = Literal[TaskStatus, RunStatus, "started"]

# --- engines --------------------------------------------------------------------------------------
# What runs an agent session (swarm.toml, plans, lens members, `--engine`): an agent CLI, or a plain command.
EngineName = Literal["claude", "gemini", "codex", "opencode", "command"]
ENGINES: tuple[EngineName, ...] = get_args(EngineName)
AGENT_ENGINES: tuple[EngineName, ...] = tuple(e for e in ENGINES if e != "command")

# --- tool calls -----------------------------------------------------------------------------------
ActionType = Literal["execute_command", "write_file", "read_file", "list_files", "web_fetch", "web_search",
                     "spawn_agent", "mcp_call", "other"]
Outcome = Literal["executed", "suppressed", "throttled", "deduplicated", "pending_approval", "quota_exceeded",
                  "rerouted", "cancelled", "superseded"]
ApprovalStatus = Literal["pending", "approved", "rejected", "expired", "used"]

# One group per capability: the action type the gateway gives it, and every CLI's name for it (Claude Code's
# first, then Gemini CLI's, then those of the other CLIs, docs/clis.md). Roles name tools the Claude Code way;
# allowing any name of a group allows the whole group on every CLI. A tool in no group is an `other` action, and a
# role keeps its name as written. Codex's `apply_patch` adds, changes, moves and deletes files: it goes with Write,
# as does Crush's `download` (it writes the file it fetches). Windsurf's tools are named after its events.
GLOB_TOOLS = ("Glob", "glob", "find_by_name")  # list the paths a pattern matches
# Searches read what they search.
SEARCH_TOOLS = ("Grep", "grep_search", "search_file_content", "grep", "search_files", "search_codebase")
TOOL_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (c.EXECUTE_COMMAND, c.SHELL_TOOLS),
    (c.WRITE_FILE, ("Write", "write_file", "apply_patch", "write", "create", "write_to_file", "developer__write",
                    "write_code", "download", "editor")),
    (c.WRITE_FILE, ("Edit", "MultiEdit", "replace", "edit", "multiedit", "replace_in_file", "developer__edit",
                    "replace_file_content", "multi_replace_file_content")),
    (c.WRITE_FILE, ("NotebookEdit", "notebook_edit")),
    (c.READ_FILE, ("Read", "read_file", "read_many_files", "read", "view", "view_file", "read_code", "read_files")),
    (c.LIST_FILES, GLOB_TOOLS),
    (c.LIST_FILES, SEARCH_TOOLS),
    (c.LIST_FILES, ("LS", "list_directory", "list", "ls", "list_files", "list_dir", "developer__tree")),
    (c.WEB_FETCH, ("WebFetch", "web_fetch", "webfetch", "fetch", "read_url_content", "fetch_web_content")),
    (c.WEB_SEARCH, ("WebSearch", "google_web_search", "search_web")),
    (c.SPAWN_AGENT, ("Agent", "Task", "invoke_agent", "spawn_agent", "agent", "task")),
)
TOOL_ACTIONS: dict[str, str] = {name: action for action, names in TOOL_GROUPS for name in names}
# Tools that change files by themselves (a role holding one "writes"; Bash alone runs builds and tests).
FILE_WRITING_TOOLS = frozenset(name for action, names in TOOL_GROUPS if action == c.WRITE_FILE for name in names)
