"""The AI refiner (docs/swarm.md): after each task a cheap model may adjust the rest of the plan.

``refine`` is prompt → ask → parse → validate, and it never fails because of the model: a slow, absent,
malformed or disallowed answer becomes CONTINUE with ``fallback=True`` and the reason, so the run goes on
exactly as planned and the journal says why the refiner was ignored. What it returns maps one to one
onto the journal event :class:`orchestrator.rundir.RefinerDecision` (:meth:`RefinerOutcome.to_event_fields`).

Modules: :mod:`.answer` (strict grammar), :mod:`.validate` (against the live plan), :mod:`.prompt`,
:mod:`.ask` (running the model).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.config import RefinerSection
from orchestrator.engines.ask import NoAnswer, ask, asking_of
from orchestrator.engines.base import Seat
from orchestrator.plan.model import Plan, Task
from orchestrator.refiner.answer import Action, Directive, RefinerAnswerError, parse_answer
from orchestrator.refiner.prompt import refiner_prompt
from orchestrator.refiner.validate import ValidDecision, validate
from orchestrator.roles import Role

MAX_JOURNALED_ANSWER = 2000


@dataclass(frozen=True)
class RefinerOutcome:
    """What to apply after ``after_task``: fields named as in the journal's ``RefinerDecision``."""

    after_task: str
    action: Action
    skipped: tuple[str, ...] = ()
    priorities: tuple[tuple[str, int], ...] = ()
    added_task: Task | None = None  # ADD: validated, with fresh ids
    retried: tuple[str, ...] = ()  # RETRY: the task that runs again
    reason: str = ""
    fallback: bool = False  # True: the answer was slow, invalid or refused; CONTINUE applies instead
    answer: str = ""  # the model's raw answer, truncated

    def priority_map(self) -> dict[str, int]:
        return dict(self.priorities)

    def to_event_fields(self) -> dict[str, Any]:
        """Keyword arguments for ``RefinerDecision`` (all but ``ts`` and ``seq``)."""
        return {
            "after_task": self.after_task, "action": self.action, "skipped": list(self.skipped),
            "priorities": dict(self.priorities),
            "added_task": self.added_task.model_dump(mode="json") if self.added_task is not None else None,
            "reason": self.reason, "fallback": self.fallback, "answer": self.answer, "retried": list(self.retried),
        }


def outcome_of(after_task: str, decision: ValidDecision, answer: str) -> RefinerOutcome:
    return RefinerOutcome(after_task=after_task, action=decision.action, skipped=decision.skip,
                          priorities=decision.priorities, added_task=decision.task,
                          retried=(decision.retry,) if decision.retry else (), answer=answer[:MAX_JOURNALED_ANSWER])


def fallback(after_task: str, reason: str, answer: str = "") -> RefinerOutcome:
    """CONTINUE, because of ``reason``."""
    return RefinerOutcome(after_task=after_task, action="continue", reason=reason, fallback=True,
                          answer=answer[:MAX_JOURNALED_ANSWER])


async def refine(
    cfg: RefinerSection,
    *,
    engine: str,
    plan: Plan,
    finished_task: Task,
    result_text: str,
    statuses: Mapping[str, str],
    roles: Mapping[str, Role],
    workdir: Path,
    agent_dir: Path,
    seat: Seat,
    retried: frozenset[str] = frozenset(),
) -> RefinerOutcome:
    """Ask the refiner what to do after ``finished_task`` and return the checked decision, or CONTINUE
    with ``fallback=True`` and the reason when the model gives nothing usable. ``statuses`` are the
    scheduler's current task statuses; ``engine`` is the run's engine (``[refiner] engine`` overrides)."""
    prompt = refiner_prompt(plan, finished_task, result_text, statuses, roles=roles)
    try:
        answer = await ask(asking_of("refiner", cfg), engine=engine, prompt=prompt, workdir=workdir,
                           agent_dir=agent_dir, seat=seat, agent_id="refiner")
    except NoAnswer as e:
        return fallback(finished_task.id, e.reason)
    try:
        decision = validate(parse_answer(answer), plan=plan, statuses=statuses, finished_task=finished_task,
                            roles=roles, retried=retried)
    except RefinerAnswerError as e:
        return fallback(finished_task.id, f"invalid answer: {e}", answer)
    return outcome_of(finished_task.id, decision, answer)


__all__ = [
    "Directive", "RefinerAnswerError", "RefinerOutcome", "ValidDecision", "fallback",
    "outcome_of", "parse_answer", "refine", "refiner_prompt", "validate",
]
