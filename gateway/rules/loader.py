"""Load and validate rule packs from YAML files, YAML text or parsed lists.

Every problem is reported at load time, all at once, each naming its file and rule. A pack that fails
to load raises :class:`RuleError`; callers keep the pack that was in force before.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from gateway.rules import yamltext
from gateway.rules.conditions import ConditionError, compile_condition
from gateway.rules.model import Rewrite, Rule

_NAME = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
MAX_RULES = 1000


_MAX_ERRORS = 20
_MAX_ERROR_CHARS = 300


class RuleError(ValueError):
    """A pack that cannot be loaded. ``errors`` lists every problem, each naming file and rule.

    The list is bounded (20 problems of at most 300 characters each): a message may echo a value from
    the pack, and the pack may be hostile."""

    def __init__(self, errors: list[str]) -> None:
        shown = [e if len(e) <= _MAX_ERROR_CHARS else e[: _MAX_ERROR_CHARS - 1] + "…" for e in errors[:_MAX_ERRORS]]
        if len(errors) > _MAX_ERRORS:
            shown.append(f"… and {len(errors) - _MAX_ERRORS} more problems")
        super().__init__("; ".join(shown))
        self.errors = shown


class _Replace(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    pattern: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    with_: str = Field(default="", alias="with")


class _Reroute(BaseModel):
    model_config = ConfigDict(extra="forbid")
    set: dict[str, Any] = Field(default_factory=dict)
    replace: dict[str, _Replace] = Field(default_factory=dict)


class _RuleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, StringConstraints(pattern=_NAME, max_length=100)]
    priority: int = Field(ge=0, le=1_000_000)
    action: Literal["allow", "suppress", "request_approval", "reroute", "throttle", "deduplicate"]
    description: str = ""
    when: dict[str, Any] | None = None
    reason: Annotated[str, StringConstraints(max_length=2000)] = ""
    timeout_s: float | None = Field(default=None, gt=0, le=7 * 24 * 3600)
    limit: int | None = Field(default=None, ge=1, le=1_000_000)
    window_s: float | None = Field(default=None, gt=0, le=366 * 24 * 3600)
    per: Literal["agent", "role", "run", "global"] | None = None
    ttl_s: float | None = Field(default=None, gt=0, le=366 * 24 * 3600)
    key: Literal["target", "path", "input"] | None = None
    scope: Literal["cross_agent", "any"] | None = None
    reroute: _Reroute | list[_Reroute] | None = None


# Which parameters belong to which action; anything else given is a mistake worth reporting.
_PARAMS: dict[str, set[str]] = {
    "allow": set(),
    "suppress": set(),
    "request_approval": {"timeout_s"},
    "reroute": {"reroute"},
    "throttle": {"limit", "window_s", "per"},
    "deduplicate": {"ttl_s", "key", "scope"},
}
_REQUIRED: dict[str, set[str]] = {"throttle": {"limit", "window_s"}, "deduplicate": {"ttl_s"}, "reroute": {"reroute"}}
_ALL_PARAMS = set().union(*_PARAMS.values())


@dataclass(frozen=True)
class Pack:
    """An ordered, validated set of rules (walk order: priority, then file order)."""

    rules: tuple[Rule, ...]
    version: str  # content hash: equal packs have equal versions
    sources: tuple[str, ...] = ()

    def to_list(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.rules]

    def to_items(self) -> list[dict[str, Any]]:
        """The rules as loadable mappings, in walk order (what the store keeps for a files pack)."""
        return [{k: v for k, v in r.to_dict().items() if k != "source"} for r in self.rules]

    def cluster_problems(self) -> list[str]:
        """Why this pack cannot be enforced on a Redis Cluster: a ``per: global`` throttle counts the calls of
        every run in one key, and a decision may touch only its own run's slot (docs/ha.md)."""
        return [f"{r.source}: rule '{r.name}': 'per: global' cannot be exact on a Redis Cluster (one counter "
                "for every run would sit in another slot than the run's); use per: run, role or agent"
                for r in self.rules if r.action == "throttle" and r.per == "global"]


EMPTY = Pack((), hashlib.sha256(b"[]").hexdigest()[:16])


def _version(specs: list[Any]) -> str:
    blob = json.dumps(specs, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def load_rules(items: Any, source: str) -> Pack:
    """Validate a parsed list of rule mappings (the ``rules:`` list of one file or API body)."""
    if not isinstance(items, list):
        raise RuleError([f"{source}: 'rules' must be a list of rules"])
    if len(items) > MAX_RULES:
        raise RuleError([f"{source}: more than {MAX_RULES} rules"])
    shape = yamltext.shape_problem(items)
    if shape is not None:
        raise RuleError([f"{source}: rules {shape}"])
    errors: list[str] = []
    rules: list[Rule] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        label = f"rule #{i + 1}"
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            label = f"rule '{item['name']}'"
        try:
            rule = _compile(item, source)
        except _Invalid as e:
            errors.extend(f"{source}: {label}: {m}" for m in e.messages)
            continue
        if rule.name in seen:
            errors.append(f"{source}: {label}: duplicate rule name")
            continue
        seen.add(rule.name)
        rules.append(rule)
    if errors:
        raise RuleError(errors)
    ordered = sorted(rules, key=lambda r: r.priority)  # stable: ties keep file order
    return Pack(tuple(ordered), _version(items), (source,))


def load_text(text: str, source: str) -> Pack:
    return parse(text, source)[0]


def parse(spec: str | list[Any], source: str) -> tuple[Pack, list[Any]]:
    """Validate a pack given as YAML text or as a parsed list; return it with its plain rule items
    (what gets stored, so every process compiles the same thing)."""
    if isinstance(spec, list):
        return load_rules(spec, source), spec
    try:
        doc = yamltext.load(spec)
    except yamltext.YamlLimit as e:
        raise RuleError([f"{source}: {e}"]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise RuleError([f"{source}:{where} invalid YAML: {getattr(e, 'problem', None) or e}"]) from None
    if doc is None:
        return Pack((), EMPTY.version, (source,)), []
    if isinstance(doc, dict) and not set(doc) - {"rules", "description", "version"}:
        doc = doc.get("rules") or []
    if not isinstance(doc, list):
        raise RuleError([f"{source}: a pack is a mapping with a 'rules' list"])
    return load_rules(doc, source), doc


def load_dir(directory: Path) -> Pack:
    """Load every ``*.yaml``/``*.yml`` file of a directory, in name order, as one pack."""
    if not directory.is_dir():
        raise RuleError([f"{directory}: not a directory"])
    files = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    if not files:
        raise RuleError([f"{directory}: no rule files (*.yaml)"])
    packs: list[Pack] = []
    errors: list[str] = []
    for f in files:
        try:
            packs.append(load_text(f.read_text(encoding="utf-8"), str(f)))
        except RuleError as e:
            errors.extend(e.errors)
        except (OSError, UnicodeDecodeError) as e:
            errors.append(f"{f}: cannot read: {e}")
    if errors:
        raise RuleError(errors)
    return combine(packs)


def combine(packs: Iterable[Pack]) -> Pack:
    """Concatenate packs (file order preserved on ties); rule names must be unique across them."""
    packs = list(packs)
    seen: dict[str, str] = {}
    errors: list[str] = []
    rules: list[Rule] = []
    for p in packs:
        for r in p.rules:
            if r.name in seen:
                errors.append(f"{r.source}: rule '{r.name}': duplicate rule name (also in {seen[r.name]})")
            seen[r.name] = r.source
            rules.append(r)
    if errors:
        raise RuleError(errors)
    version = hashlib.sha256("|".join(p.version for p in packs).encode()).hexdigest()[:16]
    return Pack(tuple(sorted(rules, key=lambda r: r.priority)), version, tuple(s for p in packs for s in p.sources))


def merge(base: Pack, run: Pack) -> Pack:
    """The pack in force for one run: its own rules first on equal priority, and a run rule replaces
    a global rule of the same name (so a run can, say, loosen one throttle without copying the pack)."""
    if not run.rules:
        return base
    names = {r.name for r in run.rules}
    rules = list(run.rules) + [r for r in base.rules if r.name not in names]
    ordered = tuple(sorted(rules, key=lambda r: r.priority))
    return Pack(ordered, f"{base.version}+{run.version}", base.sources + run.sources)


class _Invalid(Exception):
    def __init__(self, messages: list[str]) -> None:
        self.messages = messages


def _compile(item: Any, source: str) -> Rule:
    if not isinstance(item, dict):
        raise _Invalid([f"a rule is a mapping, got {type(item).__name__}"])
    try:
        spec = _RuleSpec.model_validate(item)
    except ValidationError as e:
        raise _Invalid([_pydantic_message(err) for err in e.errors()]) from None
    given = {k for k in _ALL_PARAMS if getattr(spec, k) is not None}
    problems = [f"'{k}' does not apply to action '{spec.action}'" for k in sorted(given - _PARAMS[spec.action])]
    problems += [f"action '{spec.action}' needs '{k}'" for k in sorted(_REQUIRED.get(spec.action, set()) - given)]
    try:
        predicate = compile_condition(spec.when)
    except ConditionError as e:
        problems.append(f"when: {e}")
        predicate = None
    rewrites: tuple[Rewrite, ...] = ()
    if spec.reroute is not None:
        try:
            rewrites = _rewrites(spec.reroute)
        except ValueError as e:
            problems.append(f"reroute: {e}")
    if problems or predicate is None:
        raise _Invalid(problems)
    return Rule(
        name=spec.name,
        priority=spec.priority,
        action=spec.action,
        source=source,
        predicate=predicate,
        description=spec.description,
        reason=spec.reason,
        when=spec.when,
        timeout_s=spec.timeout_s or 600.0,
        limit=spec.limit or 0,
        window_s=spec.window_s or 0.0,
        per=spec.per or "agent",
        ttl_s=spec.ttl_s or 0.0,
        key=spec.key or "target",
        scope=spec.scope or "cross_agent",
        rewrites=rewrites,
    )


def _rewrites(spec: _Reroute | list[_Reroute]) -> tuple[Rewrite, ...]:
    steps = spec if isinstance(spec, list) else [spec]
    out: list[Rewrite] = []
    for step in steps:
        for field, value in step.set.items():
            out.append(Rewrite(field=field, value=value))
        for field, rep in step.replace.items():
            try:
                rx = re.compile(rep.pattern)
            except re.error as e:
                raise ValueError(f"bad regex {rep.pattern!r} for '{field}': {e}") from None
            out.append(Rewrite(field=field, pattern=rx, replacement=rep.with_))
    if not out:
        raise ValueError("needs at least one 'set' or 'replace'")
    return tuple(out)


def _pydantic_message(err: Any) -> str:
    loc = ".".join(str(x) for x in err.get("loc", ()) if x != "__root__")
    msg = err.get("msg", "invalid")
    if err.get("type") == "extra_forbidden":
        return f"unknown key '{loc}'"
    if err.get("type") == "missing":
        return f"missing '{loc}'"
    if err.get("type") == "string_pattern_mismatch" and loc == "name":
        return "name must be kebab-case (lower-case letters, digits and single dashes)"
    return f"'{loc}': {msg}" if loc else msg
