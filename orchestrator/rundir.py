"""The run directory (docs/swarm.md): ``ACTEON_STATE_DIR/runs/<run_id>/``.

    plan.json         the plan as run
    run.json          pid, process start time, status, gateway URL (atomic writes)
    events.jsonl      append-only journal; every line is validated on read
    checkpoint.json   task statuses, rewritten atomically after every change
    stats.json        the gateway's counters at the end, counted from the journal (all the run's gateways)
    agents/<agent>/   prompt, settings, logs, result of each agent session
    summary.md        the report written when the run ends

The journal is the source of truth: the checkpoint and the digital twin are projections of it.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from acteon_core import contract as c
from acteon_core.files import write_atomic
from acteon_core.vocabulary import RunStatus, TaskStatus
from orchestrator import journal
from orchestrator.errors import UserError

RUN_STATUSES = ("running", "done", "failed", "cancelled", "interrupted", "parked", "eval_failed")


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
    | SubtaskFinished | ChallengeRound | FixFinished | AdversarialFinished | AgentStarted | ToolCall | ToolCompleted
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


class RunDir:
    def __init__(self, state_dir: Path, run_id: str) -> None:
        self.run_id = run_id
        self.path = state_dir / "runs" / run_id
        self._seq: int | None = None
        self._tail_checked = False

    # --- files -------------------------------------------------------------------------------------
    @property
    def plan_file(self) -> Path:
        return self.path / "plan.json"

    @property
    def journal_file(self) -> Path:
        return self.path / "events.jsonl"

    @property
    def checkpoint_file(self) -> Path:
        return self.path / "checkpoint.json"

    @property
    def run_file(self) -> Path:
        return self.path / "run.json"

    @property
    def stats_file(self) -> Path:
        return self.path / "stats.json"

    @property
    def reports_dir(self) -> Path:
        """Conflict and verify reports of task branches that could not land (``reports/<attempt>.json``)."""
        return self.path / "reports"

    @property
    def summary_file(self) -> Path:
        return self.path / "summary.md"

    def agent_dir(self, agent_id: str) -> Path:
        d = self.path / "agents" / agent_id
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        return d

    def create(self) -> None:
        # Owner-only: agent settings (with the hook configuration) and logs live here.
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)

    def discard_new(self) -> None:
        """Remove the folder of a run that never started: only the plan written at its start may be in it
        (anything else means it is not new, and it is left alone)."""
        if not self.path.is_dir() or self.run_file.exists():
            return
        leftovers = [p for p in self.path.iterdir() if p != self.plan_file]
        if not leftovers:
            self.plan_file.unlink(missing_ok=True)
            self.path.rmdir()

    def exists(self) -> bool:
        return self.run_file.exists()

    # --- run.json ----------------------------------------------------------------------------------
    def read_run(self) -> dict[str, Any]:
        try:
            data = json.loads(self.run_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise JournalError(f"{self.run_file}: no such run") from None
        except ValueError as e:
            raise JournalError(f"{self.run_file}: not valid JSON ({e})") from None
        if not isinstance(data, dict):
            raise JournalError(f"{self.run_file}: not a JSON object")
        return data

    def status(self) -> str | None:
        """The run's status, with a ``running`` run whose orchestrator is gone (``kill -9``, a reboot: pid and
        process start time no longer match) reported as ``interrupted`` — it can be resumed."""
        from orchestrator.process import is_same_process

        run = self.read_run()
        status = run.get("status")
        if status == "running" and not is_same_process(int(run.get("pid") or 0),
                                                        int(run.get("process_start_time") or 0)):
            return "interrupted"
        return status

    def write_run(self, **fields: Any) -> dict[str, Any]:
        data = self.read_run() if self.run_file.exists() else {"run_id": self.run_id}
        data.update(fields)
        write_atomic(self.run_file, data)
        return data

    # --- journal -----------------------------------------------------------------------------------
    def read_events(self) -> list[Any]:
        """Every journal event, validated; a bad line is an error naming its line number — except a torn
        last line (a crash in the middle of writing it), which is skipped with a warning (``journal``)."""
        events = []
        for number, line in enumerate(journal.lines(self.journal_file) or [], 1):
            if not line.strip():
                continue
            try:
                events.append(parse_event(line))
            except ValidationError as e:
                raise line_error(self.journal_file, number, e) from None
        return events

    def append(self, event: BaseModel) -> None:
        """Append one event (fsync'd: the journal is what a resume trusts)."""
        if not self._tail_checked:  # a torn last line goes aside: this event must start a line of its own
            journal.set_torn_tail_aside(self.journal_file, self.path / "events.jsonl.torn")
            self._tail_checked = True
        line = event.model_dump_json() + "\n"
        fd = os.open(self.journal_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def next_seq(self) -> int:
        if self._seq is None:
            events = self.read_events()
            self._seq = (events[-1].seq + 1) if events else 0
        seq = self._seq
        self._seq += 1
        return seq

    def record(self, cls: type[BaseModel], **fields: Any) -> BaseModel:
        event = cls(ts=now_iso(), seq=self.next_seq(), **fields)
        self.append(event)
        return event

    # --- checkpoint --------------------------------------------------------------------------------
    def write_checkpoint(self, statuses: dict[str, str]) -> None:
        write_atomic(self.checkpoint_file, {"run_id": self.run_id, "updated": now_iso(), "tasks": statuses})

    def task_statuses(self) -> dict[str, str]:
        """Replay the journal: the last status of every task (the checkpoint is only a cache of this)."""
        return task_statuses(self.read_events())


def task_statuses(events: list[Any]) -> dict[str, str]:
    """The last status of every task in these journal events."""
    return {ev.task_id: ev.status for ev in events if isinstance(ev, TaskStatusChanged)}


def runs_root(state_dir: Path) -> Path:
    return state_dir / "runs"


def list_runs(state_dir: Path) -> list[RunDir]:
    root = runs_root(state_dir)
    if not root.is_dir():
        return []
    dirs = [RunDir(state_dir, p.name) for p in root.iterdir() if (p / "run.json").exists()]
    return sorted(dirs, key=lambda r: r.run_file.stat().st_mtime, reverse=True)


def default_state_dir() -> Path:
    return Path(os.environ.get(c.ENV_STATE_DIR) or c.DEFAULT_STATE_DIR).absolute()
