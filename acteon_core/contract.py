"""The wire contract shared by the hook, the gateway and the orchestrator.

Standard library only (the hook imports it on every tool call). Anything two parts must agree on lives
here: field names, outcome names, environment variable names, defaults and header names.
"""

from __future__ import annotations

# The release, printed by `--version` of every executable (a test keeps it equal to pyproject.toml's).
VERSION = "0.1.0"

# --- defaults -------------------------------------------------------------------------------------
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
DEFAULT_RUN_ID = "default"
API_PREFIX = "/v1"
DISPATCH_PATH = f"{API_PREFIX}/dispatch"
HEALTH_PATH = f"{API_PREFIX}/health"
CLAUDE_HOOK_PATH = f"{API_PREFIX}/hooks/claude"

# --- environment ----------------------------------------------------------------------------------
ENV_URL = "ACTEON_URL"
ENV_ADMIN_KEY = "ACTEON_ADMIN_KEY"
ENV_WORKER_KEY = "ACTEON_WORKER_KEY"  # a worker machine's key: it only mints per-attempt agent keys
ENV_OPERATOR_KEY = "ACTEON_OPERATOR_KEY"  # a person's named key: `acteon-swarm approvals` decides as them
ENV_AGENT_KEY = "ACTEON_AGENT_KEY"
ENV_RUN_ID = "ACTEON_RUN_ID"
ENV_AGENT_ID = "ACTEON_AGENT_ID"
ENV_AGENT_ROLE = "ACTEON_AGENT_ROLE"
ENV_REDIS_URL = "ACTEON_REDIS_URL"
ENV_RULES_DIR = "ACTEON_RULES_DIR"
ENV_STATE_DIR = "ACTEON_STATE_DIR"
DEFAULT_STATE_DIR = ".acteon-swarm"

ENV_AGENT_KEY_FILE = "ACTEON_AGENT_KEY_FILE"
DEFAULT_AGENT_KEY_FILE = "default-agent.key"  # the default run's agent key, in the state dir

# --- hook time budget -----------------------------------------------------------------------------
# The hook answers within its budget, always before the CLI's own hook timeout fires (a CLI that times
# out a hook lets the tool run). `install` writes the CLI timeout as budget + margin, in the CLI's unit.
HOOK_BUDGET_S = 50.0  # under Gemini's default 60 s
HOOK_TIMEOUT_MARGIN_S = 10.0
DISPATCH_TIMEOUT_S = 5.0  # one dispatch round trip at most

# --- headers --------------------------------------------------------------------------------------
HEADER_AUTHORIZATION = "Authorization"
HEADER_RUN_ID = "X-Acteon-Run-Id"
HEADER_AGENT_ID = "X-Acteon-Agent-Id"
HEADER_AGENT_ROLE = "X-Acteon-Agent-Role"
HEADER_HOME = "X-Acteon-Home"
QUERY_APPROVAL_WAIT = "approval_wait_s"  # Claude http hook: how long the gateway may wait for a human
QUERY_AUTHORITATIVE = "authoritative"  # Claude http hook: a gateway allow answers allow (see acteon_core.dialects)

# --- dispatch request fields ----------------------------------------------------------------------
F_RUN_ID = "run_id"
F_AGENT_ID = "agent_id"
F_ROLE = "role"
F_PROVIDER = "provider"
F_TOOL = "tool"
F_INPUT = "input"
F_SESSION_ID = "session_id"
F_CWD = "cwd"
F_HOME = "home"  # the agent's HOME: `~` and home paths are the agent's, not the gateway's
F_TOOL_USE_ID = "tool_use_id"
F_AGENT_TYPE = "agent_type"
F_MCP_SERVER = "mcp_server"
# The local programs a shell command may run, as the command hook read them: {absolute path: text, or null
# when too large to send}. Absent: the gateway reads them itself where it shares the agent's filesystem.
F_FILES = "files"
# The tools that run a shell command (every CLI's name: Claude's, Gemini's, Codex's/OpenCode's/Copilot's/Crush's,
# Cursor's, Cline's (its editor extension's, its CLI's), Goose's, Antigravity's and Windsurf's); their calls get
# ``files``.
SHELL_TOOLS = ("Bash", "run_shell_command", "bash", "Shell", "execute_command", "run_commands", "developer__shell",
               "run_command")

# --- providers ------------------------------------------------------------------------------------
PROVIDER_CLAUDE = "claude-code"
PROVIDER_GEMINI = "gemini-cli"
PROVIDER_CODEX = "codex-cli"
PROVIDER_QWEN = "qwen-code"
PROVIDER_OPENCODE = "opencode"
PROVIDER_COPILOT = "copilot-cli"
PROVIDER_CRUSH = "crush"
PROVIDER_CLINE = "cline"
PROVIDER_CURSOR = "cursor"
PROVIDER_GOOSE = "goose"
PROVIDER_WINDSURF = "windsurf"
PROVIDER_ANTIGRAVITY = "antigravity"
PROVIDER_CLAUDE_SDK = "claude-agent-sdk"  # a program built on the Claude Agent SDK (hook/agent_sdk.py)
PROVIDER_ORCHESTRATOR = "orchestrator"

# --- dispatch response fields ---------------------------------------------------------------------
R_ACTION_ID = "action_id"
R_ALLOWED = "allowed"
R_OUTCOME = "outcome"
R_ACTION_TYPE = "action_type"
R_TARGET = "target"
R_RULE = "rule"
R_REASON = "reason"
R_RETRY_AFTER_MS = "retry_after_ms"
R_APPROVAL_ID = "approval_id"
R_UPDATED_INPUT = "updated_input"

# --- outcomes -------------------------------------------------------------------------------------
EXECUTED = "executed"
SUPPRESSED = "suppressed"
THROTTLED = "throttled"
DEDUPLICATED = "deduplicated"
PENDING_APPROVAL = "pending_approval"
QUOTA_EXCEEDED = "quota_exceeded"
REROUTED = "rerouted"
CANCELLED = "cancelled"
SUPERSEDED = "superseded"  # the key's attempt is no longer the agent's current one (a re-run elsewhere)

OUTCOMES = (
    EXECUTED,
    SUPPRESSED,
    THROTTLED,
    DEDUPLICATED,
    PENDING_APPROVAL,
    QUOTA_EXCEEDED,
    REROUTED,
    CANCELLED,
    SUPERSEDED,
)
ALLOWED_OUTCOMES = frozenset({EXECUTED, REROUTED})

# --- action types ---------------------------------------------------------------------------------
EXECUTE_COMMAND = "execute_command"
WRITE_FILE = "write_file"
READ_FILE = "read_file"
LIST_FILES = "list_files"
WEB_FETCH = "web_fetch"
WEB_SEARCH = "web_search"
SPAWN_AGENT = "spawn_agent"
MCP_CALL = "mcp_call"
OTHER = "other"

ACTION_TYPES = (
    EXECUTE_COMMAND,
    WRITE_FILE,
    READ_FILE,
    LIST_FILES,
    WEB_FETCH,
    WEB_SEARCH,
    SPAWN_AGENT,
    MCP_CALL,
    OTHER,
)

# --- approvals ------------------------------------------------------------------------------------
APPROVAL_PENDING = "pending"
APPROVAL_APPROVED = "approved"
APPROVAL_REJECTED = "rejected"
APPROVAL_EXPIRED = "expired"
APPROVAL_USED = "used"
APPROVAL_STATUSES = (APPROVAL_PENDING, APPROVAL_APPROVED, APPROVAL_REJECTED, APPROVAL_EXPIRED, APPROVAL_USED)


# An approval id names its run (`apr-<16 hex>-<run>`), so any process can find the record — the gateway in
# its store, the CLI the run's own gateway — with no global index. String operations, not `re`: the hook
# imports this module on every tool call.
def approval_id(token_hex: str, run_id: str) -> str:
    return f"apr-{token_hex}-{run_id}"


def approval_run(approval_id: str) -> str | None:
    """The run an approval id names, or None when it is not one."""
    prefix, _, rest = approval_id.partition("-")
    token, _, run_id = rest.partition("-")
    if prefix != "apr" or len(token) != 16 or any(ch not in "0123456789abcdef" for ch in token) or not run_id:
        return None
    return run_id if "\n" not in run_id else None

# --- errors ---------------------------------------------------------------------------------------
# Every non-200 answer carries {"error": {"code": ..., "message": ...}}.
ERROR_KEY = "error"
