"""The plan: what a run is asked to do, as tasks with dependencies and roles (docs/swarm.md).

A plan is JSON validated in two steps. Pydantic checks the shape of each object; :func:`validate_plan`
checks what only the whole plan can tell (unique ids, known dependencies, no cycles, known roles).
Both report every problem at once, each as a sentence naming the offender, so a person fixing a
hand-written or model-written plan sees all of it in one go.
"""

from __future__ import annotations

import difflib
import heapq
import typing
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from acteon_core.globs import MAX_GLOBS, check_glob
from acteon_core.vocabulary import EngineName
from orchestrator.errors import UserError

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
Text = Annotated[str, StringConstraints(min_length=1)]


class PlanError(UserError, ValueError):
    """A plan that cannot be used. ``errors`` lists every problem, one sentence each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Subtask(_Model):
    id: Id
    name: Text
    prompt: Text | None = None  # for an agent
    command: Text | None = None  # run as-is, without an agent
    timeout_seconds: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _prompt_or_command(self) -> Subtask:
        if (self.prompt is None) == (self.command is None):
            raise ValueError("a subtask needs exactly one of 'prompt' or 'command'")
        return self


MergeMode = Literal["faithful", "consensus-first", "risk-first"]


class LensMember(_Model):
    """One member of a lens swarm: a lens (an angle, a role) and/or an engine and model of its own."""

    id: Id
    lens: str = Field(default="", max_length=4000, description=(
        "The angle this member looks from (\"security: injection, secrets, auth\"). Empty: the task's question "
        "only, as in a quorum of models."))
    engine: EngineName | None = Field(default=None, description="Default: the run's engine.")
    model: Text | None = Field(default=None, description="Default: the engine's default model.")
    command: Text | None = Field(default=None, description=(
        "For the command engine: a shell command (gated like any plan command) that reads its prompt from "
        "$ACTEON_LENS_PROMPT and prints its findings as JSON."))
    critical: bool = Field(default=False, description="Without this member's answer the quorum is not met.")
    timeout_seconds: int | None = Field(default=None, ge=1, description="Default: the lens's timeout_seconds.")


class LensMerger(_Model):
    """The clean-context agent that writes the merged report (its own session, no tools)."""

    engine: EngineName | None = None  # None: the run's engine (a command run without a command: no merger call)
    model: Text | None = None
    command: Text | None = None  # for engine "command": the prompt on stdin, the report on stdout
    timeout_seconds: int = Field(default=300, ge=1)


class Lens(_Model):
    """A lens swarm (docs/swarm.md): the same question to every member in parallel, their findings
    clustered and counted, then merged by a clean-context agent."""

    question: Text
    members: list[LensMember] = Field(min_length=1, max_length=64)
    max_parallel: int = Field(default=4, ge=1, le=64, description="Members running at once (within max_agents).")
    timeout_seconds: int | None = Field(default=None, ge=1, description="Per member; default: the subtask timeout.")
    min_quorum: int | None = Field(default=None, ge=1, description="Answers needed; default: a majority.")
    strict: bool = Field(default=False, description="Below quorum, or a critical member missing: the task fails.")
    merge_mode: MergeMode = "consensus-first"
    consensus: float = Field(default=0.75, gt=0, le=1, description=(
        "Share of the answering members that must support a finding before its severity is promoted."))
    read_only: bool = Field(default=True, description=(
        "The task's role must not change files. False: members get the role's tools (to run tests, say), but "
        "nothing a lens task writes is merged."))
    merger: LensMerger = Field(default_factory=LensMerger)

    @model_validator(mode="after")
    def _check(self) -> Lens:
        ids = [m.id for m in self.members]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"lens member id(s) used twice: {', '.join(twice)}")
        if self.min_quorum is not None and self.min_quorum > len(self.members):
            raise ValueError(f"min_quorum {self.min_quorum} is more than the {len(self.members)} member(s)")
        for m in self.members:
            if m.command is not None and m.engine not in (None, "command"):
                raise ValueError(f"lens member '{m.id}' has a command but engine '{m.engine}'")
            if m.command is not None and m.model is not None:
                raise ValueError(f"lens member '{m.id}' has a command: it runs no model (drop 'model')")
        if self.merger.engine == "command" and self.merger.command is None:
            raise ValueError("the lens merger's engine is 'command' but it has no 'command'")
        if self.merger.engine == "command" and self.merger.model is not None:
            raise ValueError("the lens merger runs a command, not a model: drop its model")
        return self

    @property
    def quorum(self) -> int:
        return self.min_quorum if self.min_quorum is not None else len(self.members) // 2 + 1


# Why a task must not start on its own (the park ledger, docs/swarm.md): a closed set, so that a
# person reviewing parked work sees one of a few well-understood kinds of risk.
ParkReason = Literal["irreversible", "production", "publish", "security", "spend", "legal"]


class Task(_Model):
    id: Id
    name: Text
    description: str = ""
    assigned_role: Text
    priority: int = 100  # lower runs first among ready tasks
    depends_on: list[Id] = Field(default_factory=list)
    kind: Literal["agents", "lens"] = Field(default="agents", description=(
        "'agents': its subtasks run in order. 'lens': a lens swarm (the 'lens' object), no subtasks."))
    subtasks: list[Subtask] = Field(default_factory=list)
    lens: Lens | None = None
    files_scope: list[str] = Field(default_factory=list, max_length=MAX_GLOBS, description=(
        "Globs relative to the repository root the task may write ('*' within a segment, '?' one character, "
        "'**' any number of segments; 'dir/**' includes dir). Enforced by the gateway; tasks whose scopes "
        "overlap never run at the same time. Empty: anywhere in the task's own worktree."))
    isolate: bool | None = Field(default=None, description=(
        "Own git worktree and branch, merged through the merge queue. Default: on for roles that write files "
        "when the workspace is a git repository; true outside one is an error."))
    verify: list[Text] = Field(default_factory=list, max_length=32, description=(
        "Shell commands that must pass on the merged tree before the task's branch lands."))
    irreversible: bool = Field(default=False, description=(
        "Never starts on its own: parked until a person approves it (acteon-swarm park approve)."))
    park_reason: ParkReason | None = Field(default=None, description="Why it is parked (default: irreversible).")

    @model_validator(mode="after")
    def _check(self) -> Task:
        problems = [f"files_scope entry {g!r} {why}" for g in self.files_scope if (why := check_glob(g))]
        if self.kind == "agents":
            if not self.subtasks:
                problems.append("a task needs at least one subtask (or kind: lens with a 'lens' object)")
            if self.lens is not None:
                problems.append("'lens' needs kind: lens")
        else:
            if self.lens is None:
                problems.append("kind: lens needs a 'lens' object (question and members)")
            if self.subtasks:
                problems.append("a lens task has members, not subtasks")
            if self.isolate or self.files_scope or self.verify:
                problems.append("a lens task writes nothing to merge: no isolate, files_scope or verify")
        if problems:
            raise ValueError("; ".join(problems))
        if self.park_reason is not None and not self.irreversible:
            raise ValueError("park_reason needs irreversible: true")
        if self.irreversible and self.park_reason is None:
            self.park_reason = "irreversible"
        return self


class Scope(_Model):
    working_directory: Text
    max_agents: int = Field(default=8, ge=1, le=256)
    max_duration_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)


class Plan(_Model):
    id: Id
    objective: Text
    scope: Scope
    success_criteria: list[str] = Field(default_factory=list)
    # Empty is allowed by the model so that validate_plan can say "the plan has no tasks" plainly.
    tasks: list[Task]
    agent_roles: list[str] = Field(default_factory=list)
    # Tool calls the whole run is expected to make; 0 means "not estimated": DEFAULT_ACTIONS_PER_SESSION
    # per agent session is used (see estimated_actions()).
    estimated_actions: int = Field(default=0, ge=0)
    status: Literal["pending", "approved"] = "pending"
    sequence: int = Field(default=0, ge=0)
    approved_by: str | None = None
    approved_at: datetime | None = None

    def task(self, task_id: str) -> Task:
        """The task with this id (KeyError if there is none)."""
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)


# A plan that does not estimate its tool calls gets this many per agent session (a subtask with a prompt).
# Measured agent sessions on small coding tasks use 10-40 tool calls; the run quota is 1.5 x the estimate.
DEFAULT_ACTIONS_PER_SESSION = 50
# Below this many estimated calls per session, a plan is warned that its quota will likely stop agents.
SMALL_ACTIONS_PER_SESSION = 10


def agent_sessions(plan: Plan) -> int:
    """How many agent sessions the plan starts (subtasks with a prompt, lens members without a command;
    commands run without an agent)."""
    return (sum(1 for t in plan.tasks for s in t.subtasks if s.prompt is not None)
            + sum(1 for t in plan.tasks if t.lens for m in t.lens.members if m.command is None))


def estimated_actions(plan: Plan) -> int:
    """The plan's estimate of its tool calls, or the documented default when it gives none."""
    if plan.estimated_actions > 0:
        return plan.estimated_actions
    return DEFAULT_ACTIONS_PER_SESSION * max(1, agent_sessions(plan))


def plan_warnings(plan: Plan, quota_override: int | None = None) -> list[str]:
    """What will probably go wrong with this plan's quota, one sentence each (empty: nothing)."""
    sessions = max(1, agent_sessions(plan))
    out: list[str] = []
    if quota_override is not None:
        if quota_override < SMALL_ACTIONS_PER_SESSION * sessions:
            out.append(f"the quota of {quota_override} tool calls (swarm.toml defaults.quota_max_actions) is small "
                       f"for {sessions} agent session(s): agents will be stopped once it is used up")
        return out
    if plan.estimated_actions == 0:
        out.append(f"the plan has no estimated_actions: using {DEFAULT_ACTIONS_PER_SESSION} per agent session "
                   f"({estimated_actions(plan)} for {sessions} session(s); the run quota is 1.5 x that)")
    elif plan.estimated_actions < SMALL_ACTIONS_PER_SESSION * sessions:
        out.append(f"estimated_actions {plan.estimated_actions} is small for {sessions} agent session(s) "
                   f"(under {SMALL_ACTIONS_PER_SESSION} each): agents will be stopped once the run's quota of "
                   f"{int(plan.estimated_actions * 1.5 + 0.999)} calls is used up")
    return out


def plan_json_schema() -> dict[str, Any]:
    return Plan.model_json_schema()


# --- loading and saving ---------------------------------------------------------------------------


def approve(plan: Plan, by: str, now: datetime) -> Plan:
    """A copy of the plan marked approved by ``by`` at ``now``; ``sequence`` counts approvals/revisions."""
    if not by.strip():
        raise ValueError("an approval needs the approver's name")
    return plan.model_copy(
        update={"status": "approved", "approved_by": by.strip(), "approved_at": now, "sequence": plan.sequence + 1}
    )


def describe_error(err: Any, *, show_input: bool = False, model: type[BaseModel] | None = None) -> str:
    """One pydantic error as 'field.path: message', in the words a person editing the file uses (plans,
    swarm.toml, a refiner's task). ``show_input`` adds the offending value when it is short; with the
    ``model`` the file was validated against, an unknown key names the closest known one."""
    loc = ".".join(str(x) for x in err.get("loc", ()))
    kind = err.get("type")
    if kind == "extra_forbidden":
        msg = "unknown key"
        known = _keys_at(model, tuple(err.get("loc", ()))[:-1]) if model is not None else []
        close = difflib.get_close_matches(str(err.get("loc", ("",))[-1]), known, n=1, cutoff=0.6)
        if close:
            msg += f" (did you mean '{close[0]}'?)"
        elif known:
            msg += f" (known keys: {', '.join(known)})"
    elif kind == "missing":
        msg = "missing required key"
    else:
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        value = err.get("input")
        if (show_input and kind != "value_error" and isinstance(value, str | int | float | bool)
                and len(repr(value)) <= 80):
            msg += f" (got {value!r})"
    return f"{loc}: {msg}" if loc else msg


def _keys_at(model: type[BaseModel], path: tuple[Any, ...]) -> list[str]:
    """The field names of the model found by following ``path`` (field names, list indexes) from ``model``."""
    current: Any = model
    for step in path:
        if isinstance(step, int):
            continue  # a list index: the list's item model is already current
        fields = getattr(current, "model_fields", None)
        if not fields or step not in fields:
            return []
        current = _model_in(fields[step].annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", None)
    return list(fields) if fields else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside an annotation (``X``, ``list[X]``, ``X | None``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


# --- whole-plan validation ------------------------------------------------------------------------


def validate_plan(plan: Plan, known_roles: set[str]) -> None:
    """Check what the models alone cannot; raise :class:`PlanError` listing every problem."""
    if not plan.tasks:
        raise PlanError(["the plan has no tasks"])
    errors: list[str] = []
    errors += _duplicate_ids(plan)
    errors += _role_problems(plan, known_roles)

    task_ids = {t.id for t in plan.tasks}
    subtask_ids = {s.id for t in plan.tasks for s in t.subtasks}
    for t in plan.tasks:
        for dep in dict.fromkeys(t.depends_on):
            if dep == t.id:
                errors.append(f"task '{t.id}' depends on itself")
            elif dep in task_ids:
                continue
            elif dep in subtask_ids:
                errors.append(f"task '{t.id}' depends on '{dep}', which is a subtask; depend on its task instead")
            else:
                errors.append(f"task '{t.id}' depends on unknown task '{dep}'")
    errors += [f"dependency cycle: {' -> '.join(c)}" for c in _cycles(plan)]
    if errors:
        raise PlanError(errors)


def _duplicate_ids(plan: Plan) -> list[str]:
    # Tasks, subtasks and lens members share one id space: journal entries, the twin graph and status output refer
    # to either by bare id, so one id must never mean two things.
    first: dict[str, str] = {}
    errors: list[str] = []

    def see(item_id: str, where: str) -> None:
        if item_id in first:
            errors.append(f"duplicate id '{item_id}': used by {first[item_id]} and by {where}")
        else:
            first[item_id] = where

    for t in plan.tasks:
        see(t.id, f"task '{t.id}'")
        for s in t.subtasks:
            see(s.id, f"subtask '{s.id}' of task '{t.id}'")
        for m in t.lens.members if t.lens else ():
            see(m.id, f"lens member '{m.id}' of task '{t.id}'")
    return errors


def _role_problems(plan: Plan, known_roles: set[str]) -> list[str]:
    known = ", ".join(sorted(known_roles)) or "none"
    errors = [f"agent_roles lists unknown role '{r}' (known roles: {known})" for r in plan.agent_roles
              if r not in known_roles]
    listed = ", ".join(plan.agent_roles)
    for t in plan.tasks:
        role = t.assigned_role
        if role not in known_roles:
            errors.append(f"task '{t.id}' has unknown role '{role}' (known roles: {known})")
        elif plan.agent_roles and role not in plan.agent_roles:
            errors.append(f"task '{t.id}' has role '{role}', which is not listed in agent_roles ({listed})")
    return errors


def _edges(plan: Plan) -> dict[str, list[str]]:
    """task id -> the known tasks it depends on (self-loops and unknown ids are reported elsewhere).
    Two tasks sharing an id (reported elsewhere too) pool their dependencies, so a cycle through
    either is still found."""
    ids = {t.id for t in plan.tasks}
    edges: dict[str, dict[str, None]] = {t.id: {} for t in plan.tasks}
    for t in plan.tasks:
        edges[t.id].update((d, None) for d in t.depends_on if d in ids and d != t.id)
    return {tid: list(deps) for tid, deps in edges.items()}


def _cycles(plan: Plan) -> list[list[str]]:
    """Every cycle closed by a back edge of an iterative depth-first search, as a closed path
    ``[a, b, c, a]`` where each task depends on the next. Iterative: a long chain must not hit
    Python's recursion limit."""
    edges = _edges(plan)
    white, grey, black = 0, 1, 2
    color = dict.fromkeys(edges, white)
    cycles: list[list[str]] = []
    for root in edges:
        if color[root] != white:
            continue
        color[root] = grey
        path = [root]
        stack = [iter(edges[root])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                color[path.pop()] = black
                stack.pop()
            elif color[nxt] == white:
                color[nxt] = grey
                path.append(nxt)
                stack.append(iter(edges[nxt]))
            elif color[nxt] == grey:
                cycles.append([*path[path.index(nxt):], nxt])
    return cycles


# --- ordering -------------------------------------------------------------------------------------


def topological_order(plan: Plan) -> list[str]:
    """Task ids so that every task comes after its dependencies; among tasks free to go, lower
    priority first, then plan order (Kahn's algorithm). Raises :class:`PlanError` on a cycle."""
    edges = _edges(plan)
    position = {t.id: (t.priority, i) for i, t in enumerate(plan.tasks)}
    dependents: dict[str, list[str]] = {tid: [] for tid in edges}
    waiting = {tid: len(deps) for tid, deps in edges.items()}
    for tid, deps in edges.items():
        for d in deps:
            dependents[d].append(tid)
    ready = [(position[tid], tid) for tid, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, tid = heapq.heappop(ready)
        order.append(tid)
        for dep in dependents[tid]:
            waiting[dep] -= 1
            if waiting[dep] == 0:
                heapq.heappush(ready, (position[dep], dep))
    if len(order) < len(edges):
        cycles = _cycles(plan)
        raise PlanError([f"dependency cycle: {' -> '.join(c)}" for c in cycles])
    return order


def critical_path(durations: dict[str, float], plan: Plan) -> tuple[float, list[str]]:
    """The longest chain of dependent tasks by summed duration: no schedule, however many agents,
    finishes sooner. Returns its length and its task ids in run order."""
    missing = [t.id for t in plan.tasks if t.id not in durations]
    if missing:
        raise ValueError(f"no duration for task(s): {', '.join(missing)}")
    negative = [tid for tid, d in durations.items() if d < 0]
    if negative:
        raise ValueError(f"negative duration for task(s): {', '.join(negative)}")
    edges = _edges(plan)
    finish: dict[str, float] = {}  # earliest finish with unlimited agents
    before: dict[str, str | None] = {}  # the dependency that finishes last
    for tid in topological_order(plan):
        last = max(edges[tid], key=lambda d: finish[d], default=None)
        before[tid] = last
        finish[tid] = (finish[last] if last is not None else 0.0) + durations[tid]
    if not finish:
        return 0.0, []
    end: str | None = max(finish, key=lambda tid: finish[tid])
    length = max(finish.values())
    path: list[str] = []
    while end is not None:
        path.append(end)
        end = before[end]
    return length, path[::-1]
