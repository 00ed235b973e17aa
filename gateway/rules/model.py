"""A compiled rule: its validated parameters and its condition predicate."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from gateway.rules.conditions import Predicate

TERMINAL_ACTIONS = frozenset({"allow", "suppress", "request_approval", "reroute"})
GATE_ACTIONS = frozenset({"throttle", "deduplicate"})
ACTIONS = TERMINAL_ACTIONS | GATE_ACTIONS
THROTTLE_PER = ("agent", "role", "run", "global")
DEDUP_KEYS = ("target", "path", "input")
DEDUP_SCOPES = ("cross_agent", "any")


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One reroute step: set ``field`` to ``value``, or regex-replace inside it."""

    field: str
    value: Any = None
    pattern: Any = None  # compiled re.Pattern for replace steps
    replacement: str = ""


@dataclass(frozen=True)  # no slots: cached_property needs an instance __dict__
class Rule:
    name: str
    priority: int
    action: str
    source: str  # file (or "api", "run:<id>") the rule came from, for error messages and GET /rules
    predicate: Predicate = field(repr=False, compare=False)
    description: str = ""
    reason: str = ""
    when: Any = None  # the original condition, returned by GET /v1/rules
    # request_approval
    timeout_s: float = 600.0
    # throttle
    limit: int = 0
    window_s: float = 0.0
    per: str = "agent"
    # deduplicate
    ttl_s: float = 0.0
    key: str = "target"
    scope: str = "cross_agent"
    # reroute
    rewrites: tuple[Rewrite, ...] = ()

    @property
    def terminal(self) -> bool:
        return self.action in TERMINAL_ACTIONS

    @functools.cached_property
    def default_reason(self) -> str:
        """The reason shown when this rule decides and the pack gave none."""
        if self.reason:
            return self.reason
        if self.action == "throttle":
            return f"throttled: at most {self.limit} calls per {self.window_s:g}s per {self.per}"
        if self.action == "deduplicate":
            if self.scope == "cross_agent":
                return f"another agent is already working on this {self.key} (deduplicated for {self.ttl_s:g}s)"
            return f"duplicate call within {self.ttl_s:g}s"
        return f"{self.action} by rule '{self.name}'"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "priority": self.priority, "action": self.action}
        if self.description:
            d["description"] = self.description
        if self.when is not None:
            d["when"] = self.when
        if self.reason:
            d["reason"] = self.reason
        if self.action == "request_approval":
            d["timeout_s"] = self.timeout_s
        elif self.action == "throttle":
            d.update(limit=self.limit, window_s=self.window_s, per=self.per)
        elif self.action == "deduplicate":
            d.update(ttl_s=self.ttl_s, key=self.key, scope=self.scope)
        elif self.action == "reroute":
            steps: list[dict[str, Any]] = []
            for r in self.rewrites:
                if r.pattern is None:
                    steps.append({"set": {r.field: r.value}})
                else:
                    steps.append({"replace": {r.field: {"pattern": r.pattern.pattern, "with": r.replacement}}})
            d["reroute"] = steps
        d["source"] = self.source
        return d
