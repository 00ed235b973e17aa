"""Run monitor detection (docs/swarm.md): stuck agents, runaway agents, deadline risk.

Pure and deterministic on purpose: the detector sees the tool calls the tailer copied from the gateway's
audit stream and the elapsed time the runner passes in; it never sleeps, reads a clock or does I/O, so
every rule below is tested with hand-made records. Acting on a finding (journal, warn, throttle, kill)
is the runner's job; :func:`throttle_rule` only builds the gateway rule the "throttle" action installs.

Decisions worth knowing:

* **Stuck** means the *same call* — agent, tool, action type and target — ``stuck_repeats`` times *in a
  row* for that agent, whatever the gateway answered (retrying a refused call is the classic loop). Any
  different call by the agent resets its count, so an agent that alternates "run the tests" with edits
  is working, not stuck. Other agents' calls do not interleave: each agent has its own sequence.
* **Runaway** means more than ``runaway_actions_per_minute`` calls by one agent whose gateway times
  (``at_ms``, from Redis TIME, never this machine's clock) all fall within 60 s, i.e. the first and last
  are less than 60 000 ms apart. Every call counts, refused or not: the rate is the agent's behaviour.
* **Deadline** means ``elapsed >= deadline_warn_fraction * max`` while tasks are unfinished.
* **Once**: each (kind, agent) pair alerts once and then stays quiet for the rest of the run (the
  deadline once per run), so a stuck agent produces one alert and one action, not one per call. A
  resumed run passes the journal's earlier alerts as ``alerted`` to keep that promise across resumes.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from orchestrator.config import MonitorSection

Kind = Literal["stuck", "runaway", "deadline"]
WINDOW_MS = 60_000
_SHOWN_TARGET = 120  # characters of the repeated target quoted in an alert


@dataclass(frozen=True)
class AlertFinding:
    kind: Kind
    agent_id: str | None
    task_id: str | None
    detail: str


@dataclass
class _AgentState:
    last_call: tuple[str, str, str] | None = None
    repeats: int = 0
    times: list[int] = field(default_factory=list)  # sorted at_ms of the calls in the last 60 s


class Detector:
    """Feed it every tool call of the run, in stream order; it answers the new findings."""

    def __init__(self, cfg: MonitorSection, *, alerted: Iterable[tuple[str, str | None]] = ()) -> None:
        self.cfg = cfg
        self._agents: dict[str, _AgentState] = {}
        self._alerted: set[tuple[str, str | None]] = set(alerted)

    def observe(self, call: Mapping[str, Any]) -> list[AlertFinding]:
        """One ToolCall field dict (``agent_id``, ``tool``, ``action_type``, ``target``, ``at_ms``)."""
        agent = str(call["agent_id"])
        task = call.get("task_id")
        state = self._agents.setdefault(agent, _AgentState())
        found: list[AlertFinding] = []

        key = (str(call["tool"]), str(call.get("action_type") or ""), str(call.get("target") or ""))
        state.repeats = state.repeats + 1 if key == state.last_call else 1
        state.last_call = key
        if state.repeats >= self.cfg.stuck_repeats:
            tool, _, target = key
            shown = target if len(target) <= _SHOWN_TARGET else target[:_SHOWN_TARGET] + "…"
            found += self._once("stuck", agent, task,
                                f"agent {agent} made the same call {state.repeats} times in a row: {tool} {shown}")

        # Sorted insert (the stream is in Redis-time order; this only guards against a clock step), then
        # keep the 60 s ending at the newest call: checked after every call, that window slides over
        # every 60 s span the calls can fill.
        bisect.insort(state.times, int(call["at_ms"]))
        del state.times[:bisect.bisect_right(state.times, state.times[-1] - WINDOW_MS)]
        in_window = len(state.times)
        if in_window > self.cfg.runaway_actions_per_minute:
            found += self._once("runaway", agent, task,
                                f"agent {agent} made {in_window} calls within 60 s "
                                f"(more than {self.cfg.runaway_actions_per_minute} per minute)")
        return found

    def check_deadline(self, *, elapsed_s: float, max_s: float, unfinished: int) -> AlertFinding | None:
        """The run has used ``deadline_warn_fraction`` of its time and still has work left."""
        if unfinished <= 0 or max_s <= 0 or elapsed_s < self.cfg.deadline_warn_fraction * max_s:
            return None
        detail = (f"{elapsed_s:.0f} s of the run's {max_s:.0f} s used ({100 * elapsed_s / max_s:.0f}%) "
                  f"with {unfinished} task(s) unfinished")
        found = self._once("deadline", None, None, detail)
        return found[0] if found else None

    def _once(self, kind: Kind, agent: str | None, task: Any, detail: str) -> list[AlertFinding]:
        if (kind, agent) in self._alerted:
            return []
        self._alerted.add((kind, agent))
        return [AlertFinding(kind, agent, str(task) if task is not None else None, detail)]


def _rule_name(agent_id: str) -> str:
    """A kebab-case rule name for the agent (rule names allow nothing else); a short hash keeps two
    agents whose ids slug alike (``t1.s1``, ``t1-s1``) apart."""
    slug = re.sub(r"[^a-z0-9]+", "-", agent_id.lower()).strip("-")[:60].strip("-")
    if slug != agent_id:
        slug = f"{slug}-{hashlib.sha256(agent_id.encode()).hexdigest()[:8]}".lstrip("-")
    return f"monitor-throttle-{slug}"


def throttle_rule(
    agent_id: str, run_id: str, *, limit: int = 1, window_s: float = 60.0, priority: int = 0
) -> dict[str, Any]:
    """The per-run gateway rule the "throttle" action installs: at most ``limit`` calls per
    ``window_s`` for this one agent. Priority 0 puts the gate before every terminal rule of the default
    pack, so it applies to whatever the agent does next; other agents never match it."""
    return {
        "name": _rule_name(agent_id),
        "priority": priority,
        "description": f"installed by the run monitor for agent {agent_id}",
        "when": {"agent_id": agent_id, "run_id": run_id},
        "action": "throttle",
        "limit": limit,
        "window_s": float(window_s),
        "per": "agent",
        "reason": f"slowed down by the run monitor: at most {limit} call(s) per {window_s:g} s for this agent",
    }


def with_rule(rules: Iterable[Mapping[str, Any]], rule: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's rules with ``rule`` added, replacing one of the same name (PUT replaces the whole
    list, so installing a throttle must keep the run's other rules)."""
    kept = [dict(r) for r in rules if r.get("name") != rule["name"]]
    return [*kept, dict(rule)]
