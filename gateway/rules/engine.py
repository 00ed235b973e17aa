"""The evaluation walk (docs/rules.md): pure, in-process, never raises for a loaded pack.

Walk the rules in order; collect matching gates; the first matching terminal rule ends the walk. No
terminal match means the call is denied by ``default-deny`` even if the pack forgot such a rule.
What the gates and quota then say is decided atomically in Redis (see ``gateway.store``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gateway.rules.loader import Pack
from gateway.rules.model import Rule

DEFAULT_DENY = "default-deny"
DEFAULT_DENY_REASON = "no rule allows this call (deny by default)"


@dataclass(frozen=True, slots=True)
class Evaluation:
    terminal: Rule | None  # None: default deny
    gates: tuple[Rule, ...]

    @property
    def rule_name(self) -> str:
        return self.terminal.name if self.terminal else DEFAULT_DENY


def evaluate(pack: Pack, call: Any) -> Evaluation:
    gates: list[Rule] = []
    for rule in pack.rules:
        if not rule.predicate(call):
            continue
        if rule.terminal:
            return Evaluation(rule, tuple(gates))
        gates.append(rule)
    return Evaluation(None, tuple(gates))


def rewrite_input(rule: Rule, original: Mapping[str, Any]) -> dict[str, Any]:
    """The complete replacement input of a reroute (both CLIs replace, never merge)."""
    out = copy.deepcopy(dict(original))
    for step in rule.rewrites:
        if step.pattern is None:
            out[step.field] = copy.deepcopy(step.value)
        else:
            current = out.get(step.field)
            if isinstance(current, str):
                out[step.field] = step.pattern.sub(step.replacement, current)
    return out
