"""``swarm.toml``: the orchestrator's configuration (docs/swarm.md).

Every section forbids unknown keys: a misspelt safety setting that is silently ignored is worse than
an error. Values are strict (TOML is typed, so ``max_agents = "8"`` is a mistake worth reporting).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from acteon_core.vocabulary import EngineName
from orchestrator.errors import UserError
from orchestrator.plan.model import describe_error

Engine = EngineName
# Role names end up in gateway rule names (role-<name>-tools), which must be kebab-case.
ROLE_NAME_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_MAX_REGEX = 2000  # the gateway refuses longer patterns


class ConfigError(UserError, ValueError):
    """A configuration that cannot be used. ``errors`` lists every problem, each naming file and key."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def _regex(pattern: str) -> str:
    if len(pattern) > _MAX_REGEX:
        raise ValueError(f"regex longer than {_MAX_REGEX} characters")
    try:
        re.compile(pattern)
    except re.error as e:
        raise ValueError(f"bad regex {pattern!r}: {e}") from None
    return pattern


def _http_url(url: str | None) -> str | None:
    if url is not None and not re.match(r"^https?://[^\s/]+", url):
        raise ValueError(f"expected an http:// or https:// URL, got {url!r}")
    return url


def _no_model_for_commands(engine: str | None, model: str | None, what: str) -> None:
    # A model for a command is an option that would silently do nothing.
    if engine == "command" and model is not None:
        raise ValueError(f"{what} runs a command, not a model: drop its model")


Regex = Annotated[str, StringConstraints(min_length=1), AfterValidator(_regex)]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ActeonSection(_Section):
    endpoint: Annotated[str | None, AfterValidator(_http_url)] = None  # None: embedded gateway
    namespace: NonEmpty = "acteon-swarm"


class DefaultsSection(_Section):
    engine: Engine = "claude"
    max_agents: int = Field(default=8, ge=1, le=256)
    max_duration_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)
    subtask_timeout_seconds: int = Field(default=900, ge=1)
    enable_refiner: bool = True
    quota_max_actions: int | None = Field(default=None, ge=1)  # None: derived from the plan's estimate


class SafetySection(_Section):
    require_plan_approval: bool = True
    blocked_commands: list[Regex] = Field(default_factory=list)  # searched in every shell command
    approval_timeout_seconds: int = Field(default=600, ge=1)
    # Sub-agents the agents start themselves (Claude's Agent tool, Gemini's invoke_agent), enforced by the
    # gateway: live at once across the run (None: the run's max_agents), and how deep they may nest.
    max_subagents: int | None = Field(default=None, ge=0, le=10_000)
    max_subagent_depth: int = Field(default=2, ge=1, le=10)
    # More of the user's environment variables agents may see (names or patterns like "AWS_*"); the
    # gateway's own secrets never pass (orchestrator.engines.environment).
    pass_env: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_*?]*$", max_length=128)]] = (
        Field(default_factory=list))


class RoleSection(_Section):
    """A custom role, or changes to a built-in one: keys left out keep the built-in's value."""

    name: Annotated[str, StringConstraints(pattern=ROLE_NAME_PATTERN, max_length=64)]
    description: str | None = None
    system_prompt_template: NonEmpty | None = None
    allowed_tools: list[NonEmpty] | None = None
    can_delegate_to: list[NonEmpty] | None = None
    max_concurrent: int | None = Field(default=None, ge=1)


class RefinerSection(_Section):
    """The model asked after each task (docs/swarm.md). ``engine = "command"`` runs ``command`` with
    ``/bin/sh -c``: the prompt on its stdin, the answer on its stdout (any program can be the refiner;
    tests use a scripted one). The command is the operator's own, like the hook, so it is not gated."""

    engine: Engine | None = None  # None: the run's engine
    model: NonEmpty | None = None  # None: the engine's cheap model
    timeout_seconds: int = Field(default=60, ge=1)
    command: NonEmpty | None = None  # for engine "command"

    @model_validator(mode="after")
    def _command_for_command_engine(self) -> RefinerSection:
        if self.engine == "command" and self.command is None:
            raise ValueError("'command' is required when the refiner engine is 'command'")
        _no_model_for_commands(self.engine, self.model, "the refiner")
        return self


class MemorySection(_Section):
    enabled: bool = True
    max_injected_chars: int = Field(default=4000, ge=0)  # prior findings put into one prompt
    max_findings: int = Field(default=10, ge=0)
    cross_run: bool = True  # also search earlier runs of the same workspace


class GraphSection(_Section):
    enabled: bool = True
    # Oxigraph answers the ready queries far faster than rdflib's memory store (bench/graph.py).
    store: Literal["oxigraph", "memory"] = "oxigraph"


class AdversarialSection(_Section):
    """The adversarial loop (orchestrator/adversarial): once every task is done, a challenger attacks the work,
    recovery agents fix what it finds in their own worktrees, and a fix lands only if verify passes and the
    eval score does not drop. Needs the eval harness and a git repository."""

    enabled: bool = False
    max_rounds: int = Field(default=2, ge=1, le=20)
    threshold: float = Field(default=0.5, ge=0, le=1)  # a challenge with severity >= this is actionable
    max_fixes: int = Field(default=5, ge=1, le=50)  # actionable challenges fixed per round (most severe first)
    max_parallel: int = Field(default=2, ge=1, le=64)  # recovery agents at once (within max_agents)
    challenger_engine: Engine | None = None  # None: the run's engine
    challenger_model: NonEmpty | None = None  # None: the engine's default model
    challenger_command: NonEmpty | None = None  # for engine "command": the prompt on stdin, JSON on stdout
    challenger_timeout_seconds: int = Field(default=300, ge=1)
    recovery_role: Annotated[str, StringConstraints(pattern=ROLE_NAME_PATTERN, max_length=64)] = "coder"
    recovery_command: NonEmpty | None = None  # command runs: reads $ACTEON_CHALLENGE, fixes and commits
    recovery_timeout_seconds: int = Field(default=900, ge=1)
    max_input_chars: int = Field(default=40_000, ge=1000, le=1_000_000)  # diff and outputs the challenger reads

    @model_validator(mode="after")
    def _command_for_command_engine(self) -> AdversarialSection:
        if self.challenger_engine == "command" and self.challenger_command is None:
            raise ValueError("'challenger_command' is required when the challenger engine is 'command'")
        _no_model_for_commands(self.challenger_engine, self.challenger_model, "the challenger")
        return self


class EvalHarnessSection(_Section):
    """Scores the finished work (orchestrator/run/evals.py); below ``pass_threshold`` the run ends eval_failed."""

    enabled: bool = False
    command: NonEmpty | None = None
    timeout_seconds: int = Field(default=600, ge=1)
    pass_threshold: float | None = Field(default=None, ge=0, le=1)

    @model_validator(mode="after")
    def _command_when_enabled(self) -> EvalHarnessSection:
        if self.enabled and self.command is None:
            raise ValueError("'command' is required when the eval harness is enabled")
        if not self.enabled and self.pass_threshold is not None:
            raise ValueError("pass_threshold does nothing while the eval harness is off: set enabled = true")
        return self


class SynthesisSection(_Section):
    """Where branches of work meet (a task with several parents), a clean-context agent condenses the
    parents' outputs into the context the task receives (orchestrator/run/synthesis.py)."""

    enabled: bool = True
    engine: Engine | None = None  # None: the run's engine (a command run needs a command, else pass-through)
    model: NonEmpty | None = None  # None: the engine's cheap model
    command: NonEmpty | None = None  # for engine "command": reads the prompt on stdin, prints the synthesis
    timeout_seconds: int = Field(default=120, ge=1)
    max_input_chars: int = Field(default=12_000, ge=100, le=1_000_000)  # of all parents' outputs together
    max_chars: int = Field(default=4_000, ge=100, le=100_000)  # of the synthesis the task receives

    @model_validator(mode="after")
    def _command_for_command_engine(self) -> SynthesisSection:
        _no_model_for_commands(self.engine, self.model, "the synthesizer")
        return self


class WorktreesSection(_Section):
    """Parallel writers in a git repository (docs/swarm.md): how finished task branches land."""

    merge_mode: Literal["merge", "rebase"] = "merge"  # a merge commit, or the task's commits replayed
    verify_timeout_seconds: int = Field(default=600, ge=1)  # per verify command
    # A task's file scope is claimed in the gateway across runs; another run's overlapping claim makes the
    # task wait for it (shown in status) or fail at once.
    on_claim_conflict: Literal["wait", "fail"] = "wait"
    claim_ttl_seconds: float = Field(default=30.0, ge=1, le=3600)  # renewed every third of it while it runs


class ExecutorSection(_Section):
    """Where subtasks run (docs/distributed.md): ``local`` (this process, the default) or ``temporal`` (worker
    machines behind a Temporal service; ``acteon-swarm worker`` on each)."""

    kind: Literal["local", "temporal"] = "local"
    address: NonEmpty = "127.0.0.1:7233"  # the Temporal frontend (host:port)
    namespace: NonEmpty = "default"
    queue: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._-]{1,200}$")] = "acteon-agents"
    # role -> task queue: a role's subtasks run only on the workers serving that queue (a machine pool)
    queues: dict[Annotated[str, StringConstraints(pattern=ROLE_NAME_PATTERN)],
                 Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._-]{1,200}$")]] = Field(default_factory=dict)
    heartbeat_timeout_seconds: float = Field(default=10.0, ge=2, le=600)  # a silent worker's tasks re-run elsewhere
    max_attempts: int = Field(default=5, ge=1, le=100)  # of one subtask, counting re-runs after lost leases
    tls_ca: NonEmpty | None = None  # Temporal over TLS: the CA, and the client certificate and key for mTLS
    tls_cert: NonEmpty | None = None
    tls_key: NonEmpty | None = None
    api_key_env: Annotated[str, StringConstraints(pattern=r"^[A-Z_][A-Z0-9_]*$")] | None = None  # never the key
    # Where workers fetch a task's head and push an attempt's commits (a URL git understands); unset: the
    # coordinator's repository path, which a worker reaches on this host or a shared filesystem only.
    git_remote: NonEmpty | None = None

    @model_validator(mode="after")
    def _cert_and_key_together(self) -> ExecutorSection:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together (mTLS: the client's certificate and its key)")
        return self

    def queue_for(self, role: str) -> str:
        return self.queues.get(role, self.queue)


class MonitorSection(_Section):
    """The run monitor (docs/swarm.md): stuck and runaway agents, deadline risk, and what to do about them."""

    enabled: bool = True
    stuck_repeats: int = Field(default=5, ge=2)  # the same call this many times in a row: stuck
    runaway_actions_per_minute: int = Field(default=20, ge=1)  # more than this in any 60 s: runaway
    deadline_warn_fraction: float = Field(default=0.8, gt=0, lt=1)  # of the run's max duration
    action: Literal["warn", "throttle", "kill"] = "warn"
    poll_interval_seconds: float = Field(default=1.0, gt=0, le=3600)


class SwarmConfig(_Section):
    acteon: ActeonSection = Field(default_factory=ActeonSection)
    defaults: DefaultsSection = Field(default_factory=DefaultsSection)
    safety: SafetySection = Field(default_factory=SafetySection)
    roles: list[RoleSection] = Field(default_factory=list)
    refiner: RefinerSection = Field(default_factory=RefinerSection)
    memory: MemorySection = Field(default_factory=MemorySection)
    graph: GraphSection = Field(default_factory=GraphSection)
    adversarial: AdversarialSection = Field(default_factory=AdversarialSection)
    eval_harness: EvalHarnessSection = Field(default_factory=EvalHarnessSection)
    monitor: MonitorSection = Field(default_factory=MonitorSection)
    worktrees: WorktreesSection = Field(default_factory=WorktreesSection)
    synthesis: SynthesisSection = Field(default_factory=SynthesisSection)
    executor: ExecutorSection = Field(default_factory=ExecutorSection)

    @model_validator(mode="after")
    def _adversarial_needs_an_eval(self) -> SwarmConfig:
        # "Resolved" means verified by the eval: without one the loop could only trust the agents' word.
        if self.adversarial.enabled and not self.eval_harness.enabled:
            raise ValueError("[adversarial] needs the eval harness: set [eval_harness] enabled = true and its "
                             "command (a fix is kept only if the eval score does not drop)")
        return self

    @model_validator(mode="after")
    def _unique_roles(self) -> SwarmConfig:
        names = [r.name for r in self.roles]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"role(s) defined more than once in [[roles]]: {', '.join(twice)}")
        return self


def load_config(path: Path | None) -> SwarmConfig:
    """Read ``swarm.toml``; no path or no file gives the defaults. Raises :class:`ConfigError`."""
    if path is None or not path.exists():
        return SwarmConfig()
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError([f"{source}: cannot read: {e}"]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib's message already ends with "(at line N, column M)".
        raise ConfigError([f"{source}: invalid TOML: {e}"]) from None
    return parse_config(data, source)


def parse_config(data: dict[str, Any], source: str = "swarm.toml") -> SwarmConfig:
    """Validate an already-parsed configuration mapping."""
    try:
        return SwarmConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError([f"{source}: {describe_error(err, show_input=True, model=SwarmConfig)}"
                           for err in e.errors()]) from None


def with_overrides(cfg: SwarmConfig, overrides: dict[str, dict[str, Any]], source: str = "command line") -> SwarmConfig:
    """``cfg`` with some section keys replaced (``run --adversarial --max-rounds 3 --eval CMD``), validated as a
    whole again: a flag cannot switch on what the configuration then refuses."""
    data = cfg.model_dump()
    for section, values in overrides.items():
        data[section] = {**data[section], **values}
    return parse_config(data, source)
