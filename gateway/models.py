"""Request and response bodies of the HTTP API (docs/gateway.md), validated by pydantic.

Limits are deliberately tight: every field a client sends ends up in Redis keys or audit records, so
oversized or odd values are refused with a 422 naming the field rather than stored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from acteon_core.attachments import MAX_FILE_BYTES, MAX_FILES
from acteon_core.globs import MAX_GLOBS, check_glob
from acteon_core.vocabulary import Outcome, ReportedState

# Run ids become part of Redis keys inside a {hash tag}: no braces, no colons, no spaces.
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
RunId = Annotated[str, StringConstraints(pattern=RUN_ID_PATTERN)]
Ident = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=r"^[^\x00-\x1f]+$")]
AttachedPath = Annotated[str, StringConstraints(min_length=2, max_length=4096, pattern=r"^/")]
AttachedText = Annotated[str, StringConstraints(max_length=MAX_FILE_BYTES)]
ShortText = Annotated[str, StringConstraints(max_length=4096)]


def _absolute_path(value: str | None) -> str | None:
    """A working directory or home the call is judged in: absolute, or the call cannot be placed (every path
    in it would be relative to nothing, and a harmless `mkdir build` would look like a write anywhere)."""
    if value is not None and value != "" and not value.startswith("/"):
        raise ValueError(f"must be an absolute path, not {value[:80]!r}")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class DispatchRequest(BaseModel):
    # Unknown extra fields from newer clients are ignored rather than refused: the hook forwards what
    # the CLIs send, and a CLI upgrade must not turn every call into a deny.
    model_config = ConfigDict(extra="ignore")

    run_id: RunId
    agent_id: Ident
    role: Ident | None = None
    provider: Ident
    tool: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    input: dict[str, Any]
    session_id: Ident | None = None
    cwd: Annotated[str, StringConstraints(max_length=4096)] | None = None
    home: Annotated[str, StringConstraints(max_length=4096)] | None = None  # the agent's HOME (gateway.paths)
    tool_use_id: Ident | None = None
    agent_type: Ident | None = None
    mcp_server: Ident | None = None
    # The local programs the command may run, attached by the command hook (acteon_core/attachments.py).
    files: Annotated[dict[AttachedPath, AttachedText | None], Field(max_length=MAX_FILES)] | None = None

    _absolute = field_validator("cwd", "home")(_absolute_path)


class ExplainRequest(_Strict):
    """A call to explain: a shell command (``command``), or any tool with its ``input``."""

    command: Annotated[str, StringConstraints(max_length=65536)] | None = None
    tool: Annotated[str, StringConstraints(min_length=1, max_length=256)] = "Bash"
    input: dict[str, Any] | None = None
    cwd: Annotated[str, StringConstraints(max_length=4096)] | None = None
    home: Annotated[str, StringConstraints(max_length=4096)] | None = None
    run_id: RunId = "default"
    role: Ident | None = None
    provider: Ident = "claude-code"
    files: Annotated[dict[AttachedPath, AttachedText | None], Field(max_length=MAX_FILES)] | None = None

    _absolute = field_validator("cwd", "home")(_absolute_path)

    @model_validator(mode="after")
    def _one_call(self) -> ExplainRequest:
        if (self.command is None) == (self.input is None):
            raise ValueError("give either 'command' (a shell command) or 'input' (the tool's input)")
        return self


class DispatchResponse(BaseModel):
    action_id: str
    allowed: bool
    outcome: Outcome
    action_type: str
    target: str
    rule: str
    reason: str
    retry_after_ms: int | None = None
    approval_id: str | None = None
    updated_input: dict[str, Any] | None = None
    dry_run: bool = False


class QuotaSpec(_Strict):
    max_actions: int = Field(ge=1, le=10_000_000)
    window_s: float = Field(gt=0, le=366 * 24 * 3600)
    overage: Literal["block", "warn"] = "block"


class AgentLimits(_Strict):
    """Sub-agents the run's agents may start themselves (gateway/store/agents.py)."""

    max_live: int = Field(default=8, ge=0, le=10_000)  # live at once across the run
    max_depth: int = Field(default=2, ge=1, le=10)  # 1: no sub-agents at all; 2: sub-agents start none


class RunCreate(_Strict):
    run_id: RunId
    rules: Annotated[str, StringConstraints(max_length=1_000_000)] | list[dict[str, Any]] | None = None
    quota: QuotaSpec | None = None
    agents: AgentLimits | None = None


class RunCreated(BaseModel):
    run_id: str
    agent_key: str


class RulesPut(_Strict):
    """A pack as YAML text (``yaml``) or as an already-parsed list of rules (``rules``)."""

    yaml: Annotated[str, StringConstraints(max_length=1_000_000)] | None = None
    rules: list[dict[str, Any]] | None = None


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
OperatorName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")]


class Resolution(_Strict):
    reason: ShortText | None = None
    by: Ident | None = None  # the admin key only: who decided (an operator key decides as its operator)
    # SHA-256 of the document the person was shown (gateway.reveal); required from operator keys.
    shown_sha256: Sha256 | None = None


class OperatorCreate(_Strict):
    name: OperatorName
    role: Literal["viewer", "operator", "admin"] = "operator"


class RunStateIn(_Strict):
    """The orchestrator reporting a task's new state (``task_id`` empty: the run's own state, e.g. its end)."""

    task_id: Annotated[str, StringConstraints(max_length=256, pattern=r"^[^\x00-\x1f]*$")] = ""
    state: ReportedState
    reason: ShortText | None = None
    final: bool = False  # the run ended with this state


class EventIn(_Strict):
    agent_id: Ident
    tool: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    kind: Literal["tool_completed"] = "tool_completed"
    success: bool
    duration_ms: int | None = Field(default=None, ge=0, le=24 * 3600 * 1000)
    size: int | None = Field(default=None, ge=0)
    tool_use_id: Ident | None = None
    session_id: Ident | None = None
    action_id: Ident | None = None
    error: ShortText | None = None



Glob = Annotated[str, StringConstraints(min_length=1, max_length=512)]
AbsolutePath = Annotated[str, StringConstraints(min_length=2, max_length=4096, pattern=r"^/[^\x00]*$")]
RepoId = Annotated[str, StringConstraints(min_length=1, max_length=4096, pattern=r"^[^\x00-\x1f]+$")]


def _check_globs(globs: list[str]) -> list[str]:
    problems = [f"{g!r} {why}" for g in globs if (why := check_glob(g))]
    if problems:
        raise ValueError("; ".join(problems))
    return globs


class ClaimRef(_Strict):
    """The scope claim an agent works under: its key carries the fencing token."""

    repo: RepoId
    claim_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
    token: int = Field(ge=1)


class AgentKeyCreate(_Strict):
    """A key for one agent of a run: calls with it act as ``agent_id``; with ``root``, writes outside the
    worktree (and outside ``files_scope`` when given) are suppressed (gateway/scope.py)."""

    agent_id: Ident
    root: AbsolutePath | None = None
    files_scope: list[Glob] = Field(default_factory=list, max_length=MAX_GLOBS)
    claim: ClaimRef | None = None

    _globs = field_validator("files_scope")(_check_globs)


class WorkerCreate(_Strict):
    name: OperatorName  # the machine, e.g. its host name; one namespace with operators


class AttemptCreate(AgentKeyCreate):
    """A worker's key for one attempt of one agent: accepted only for an attempt newer than the current one,
    which it then becomes (every key of an older attempt is ``superseded`` from that moment)."""

    attempt: int = Field(ge=1, le=1_000_000)


class ClaimCreate(_Strict):
    repo: RepoId  # the repository's identity (the orchestrator sends its absolute git directory)
    owner: Ident  # who holds it, e.g. "<run>/<task>"
    globs: list[Glob] = Field(min_length=1, max_length=MAX_GLOBS)
    mode: Literal["read", "write"] = "write"
    ttl_s: float = Field(default=30.0, ge=0.05, le=3600)

    _globs = field_validator("globs")(_check_globs)


class ClaimRenew(_Strict):
    repo: RepoId
    token: int = Field(ge=1)
    ttl_s: float = Field(default=30.0, ge=0.05, le=3600)
