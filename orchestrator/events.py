"""The run journal's events (``events.jsonl``), one pydantic model per kind: what a run records, in the
order it happens. Every line is validated on read; the journal is the source of truth and the checkpoint,
status, summary and the digital twin are projections of it (docs/swarm.md). Its bytes (appending, a torn
last line) are ``orchestrator.journal``'s; where it lives is ``orchestrator.rundir``'s.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from acteon_core.vocabulary import RunStatus, TaskStatus
from orchestrator.errors import UserError


class JournalError(UserError, ValueError):
    """A journal line that does not validate; names the file and line (one line, exit 2: never a traceback)."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ts: str
    seq: int = Field(ge=0)


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    run_id: str
    plan_id: str
    engine: str
    pid: int
    resumed: bool = False


class TaskStatusChanged(_Event):
    type: Literal["task_status"] = "task_status"
    task_id: str
    status: TaskStatus
    reason: str = ""


class Merge(_Event):
    """A task branch entering (``started``) or leaving (``finished``) the merge queue."""

    type: Literal["merge"] = "merge"
    task_id: str
    phase: Literal["started", "finished"]
    branch: str = ""
    result: Literal["merged", "conflict", "verify_failed"] | None = None
    before: str = ""  # integration head the merge was built on
    after: str = ""  # integration head afterwards
    report: str = ""  # the conflict or verify report in the run folder
    detail: str = ""


class SynthesisMade(_Event):
    """The parents' outputs condensed for a task where branches meet (``synthesis/<task>.md``)."""

    type: Literal["synthesis"] = "synthesis"
    task_id: str
    parents: list[str]
    engine: str
    fallback: bool = False  # True: passed through (no synthesizer, or it failed: ``reason``)
    reason: str = ""
    chars: int = 0
    file: str = ""


class LensMerged(_Event):
    """A lens swarm's members answered (or not) and their findings were merged (``lens/<task>/merged.json``)."""

    type: Literal["lens"] = "lens"
    task_id: str
    result: Literal["ok", "degraded", "below_quorum", "insufficient_data"]
    members: int
    answered: int
    min_quorum: int
    clusters: int = 0
    answered_by: list[str] = Field(default_factory=list)  # agent ids of the members whose answers counted
    warnings: list[str] = Field(default_factory=list)
    merger_engine: str = ""
    merger_fallback: bool = False  # True: no merger report (none configured, not needed, or it failed)
    merger_reason: str = ""
    file: str = ""  # merged.json
    # What the merger's CLI reported it used (members report theirs on their SubtaskFinished).
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None


class ChallengeRound(_Event):
    """A round of the adversarial loop began: the head's score and what the challenger found (``actionable``:
    the 1-based indexes of the challenges that get a recovery agent)."""

    type: Literal["challenge_round"] = "challenge_round"
    round: int
    head: str = ""
    score_before: float | None = None
    challenges: list[dict[str, Any]] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)
    actionable: list[int] = Field(default_factory=list)
    engine: str = ""
    fallback: bool = False  # True: no usable answer from the challenger (``reason``)
    reason: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None


class FixFinished(_Event):
    """A recovery agent's fix of one challenge: merged only if verify passed and the eval did not drop."""

    type: Literal["fix"] = "fix"
    round: int
    challenge: int  # 1-based index in its round's challenges
    fix_id: str  # the fix's task id, branch and worktree name
    target_task: str | None = None
    branch: str = ""
    result: Literal["merged", "not_merged"]
    reason: str = ""
    score_before: float | None = None  # the integration head's score when the fix was judged
    score_after: float | None = None  # the fix's merged candidate's score (None: never evaluated)


class AdversarialFinished(_Event):
    type: Literal["adversarial"] = "adversarial"
    rounds: int
    baseline: float | None = None
    final: float | None = None
    stopped: str = ""  # max_rounds, nothing_actionable, eval_error, challenger_failed


class RetryRequested(_Event):
    """A person asked for a task that ended ``conflict`` or ``verify_failed`` to run again (``acteon-swarm
    task retry``): on resume it runs on a fresh branch from the integration head, with the report."""

    type: Literal["retry_requested"] = "retry_requested"
    task_id: str
    by: str = ""
    report: str = ""  # the conflict or verify report of the attempt that failed


class SubtaskStarted(_Event):
    type: Literal["subtask_started"] = "subtask_started"
    task_id: str
    subtask_id: str
    agent_id: str
    engine: str


class SubtaskFinished(_Event):
    type: Literal["subtask_finished"] = "subtask_finished"
    task_id: str
    subtask_id: str
    agent_id: str
    ok: bool
    returncode: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    detail: str = ""
    # What the agent's CLI reported it used (absent when it reports nothing: never estimated).
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None


class SubtaskDeferred(_Event):
    """An agent session stopped at a call a person must decide (Claude's ``defer``): its slot is free until the
    decision, then the same session is resumed — after a crash too (``run --resume`` reads this)."""

    type: Literal["subtask_deferred"] = "subtask_deferred"
    task_id: str
    subtask_id: str
    agent_id: str
    session_id: str
    tool: str = ""
    tool_use_id: str = ""
    approval_id: str = ""  # the approval it waits for, when the gateway named it


class AgentStarted(_Event):
    """An agent process started: its process group is recorded so a resume can reap it after a crash."""

    type: Literal["agent_started"] = "agent_started"
    task_id: str
    subtask_id: str
    agent_id: str
    pid: int
    pgid: int
    start_time: int | None = None  # /proc start time: a recycled pid is never mistaken for the agent


class ToolCall(_Event):
    """One gateway decision on a call of this run's agents, copied from the audit stream (the agent's
    episodic memory and the twin's ``ToolCall``). ``audit_id`` is the stream entry id: unique per run."""

    type: Literal["tool_call"] = "tool_call"
    audit_id: str
    agent_id: str
    task_id: str | None = None
    tool: str
    action_type: str = ""
    target: str = ""  # the command, path or URL (truncated)
    outcome: str
    rule: str | None = None
    reason: str | None = None
    approval_id: str | None = None
    # who decided the approval this call consumed or was rejected by, and the hash of what they were shown:
    # kept here so the run folder's copy of the audit still says who approved once its gateway is gone
    decided_by: str | None = None
    decision_reason: str | None = None  # what the person who decided wrote
    shown_sha256: str | None = None
    quota_warned: bool = False  # allowed past its quota's warning level
    retry_after_ms: int | None = None  # a throttle or quota: when the call may be tried again
    at_ms: int  # gateway (Redis) time of the decision


class ToolCompleted(_Event):
    """A completion event reported by an agent's hook (PostToolUse / AfterTool)."""

    type: Literal["tool_completed"] = "tool_completed"
    event_id: str
    agent_id: str
    task_id: str | None = None
    tool: str
    ok: bool
    detail: str = ""
    at_ms: int


class Finding(_Event):
    """A semantic memory: something an agent (or a human, ``agent_id`` None) found, with topics."""

    type: Literal["finding"] = "finding"
    finding_id: str  # globally unique ("<run>/<n>"): later runs refer to it
    agent_id: str | None = None
    task_id: str | None = None
    topics: list[str] = Field(default_factory=list)
    text: str


class FindingsUsed(_Event):
    """Prior findings injected into an agent's prompt (lineage: which agent used which finding)."""

    type: Literal["findings_used"] = "findings_used"
    task_id: str
    agent_id: str
    finding_ids: list[str]


class RefinerDecision(_Event):
    """What the refiner answered after a task, as applied (a fallback to CONTINUE says why)."""

    type: Literal["refiner_decision"] = "refiner_decision"
    after_task: str
    action: Literal["continue", "skip", "reprioritize", "add", "retry"]
    skipped: list[str] = Field(default_factory=list)
    retried: list[str] = Field(default_factory=list)  # RETRY: the task that runs again on a fresh branch
    priorities: dict[str, int] = Field(default_factory=dict)
    added_task: dict[str, Any] | None = None  # the new task as JSON (a resume re-adds it to the plan)
    reason: str = ""
    fallback: bool = False  # True: the answer was slow, invalid or refused; CONTINUE applied instead
    answer: str = ""  # the model's raw answer (truncated)


class Alert(_Event):
    """A monitor finding about an agent or the run, and what was done about it."""

    type: Literal["alert"] = "alert"
    kind: Literal["stuck", "runaway", "deadline"]
    agent_id: str | None = None
    task_id: str | None = None
    detail: str
    action: Literal["warn", "throttle", "kill"] = "warn"


class Note(_Event):
    """Anything else worth keeping in order."""

    type: Literal["note"] = "note"
    kind: str
    data: dict[str, Any] = Field(default_factory=dict)


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    status: RunStatus
    reason: str = ""


class EvalScored(_Event):
    """The eval harness on the finished work: its score, or why there is none (an error is never a pass)."""

    type: Literal["eval"] = "eval"
    score: float | None = None
    error: str = ""
    threshold: float | None = None
    passed: bool = False
    head: str = ""  # the integration head it scored (git repositories)
    report: dict[str, Any] = Field(default_factory=dict)


Event = Annotated[
    RunStarted | TaskStatusChanged | Merge | RetryRequested | SynthesisMade | LensMerged | SubtaskStarted
    | SubtaskFinished | SubtaskDeferred | ChallengeRound | FixFinished | AdversarialFinished | AgentStarted
    | ToolCall | ToolCompleted
    | EvalScored | Finding | FindingsUsed | RefinerDecision
    | Alert | Note | RunFinished,
    Field(discriminator="type"),
]
_EVENT: TypeAdapter[Any] = TypeAdapter(Event)


def parse_event(line: str | bytes) -> Any:
    """One journal line as its event (raises pydantic's ValidationError)."""
    return _EVENT.validate_json(line)


def line_error(path: Path, number: int, e: ValidationError) -> JournalError:
    """The error for a journal (or other JSON-lines) file's bad line: file, line number, field, problem."""
    first = e.errors()[0]
    where = ".".join(str(x) for x in first["loc"])
    return JournalError(f"{path}:{number}: {where + ': ' if where else ''}{first['msg']}")


def deferred_sessions(events: list[Any]) -> dict[str, SubtaskDeferred]:
    """The agent sessions that stopped at a call for a person and were not resumed to their end: agent id ->
    its last deferral."""
    waiting: dict[str, SubtaskDeferred] = {}
    for ev in events:
        if isinstance(ev, SubtaskDeferred):
            waiting[ev.agent_id] = ev
        elif isinstance(ev, SubtaskFinished):
            waiting.pop(ev.agent_id, None)
    return waiting


def task_statuses(events: list[Any]) -> dict[str, str]:
    """The last status of every task in these journal events."""
    return {ev.task_id: ev.status for ev in events if isinstance(ev, TaskStatusChanged)}
