"""The rounds of the adversarial loop, and the eval gate every fix passes before it lands.

Each round: the integration head is scored; a challenger gets the change, the tasks' outputs and the eval
report and returns challenges; every actionable one (severity ≥ threshold, most severe first, at most
``max_fixes``) gets a recovery agent on its own branch from the integration head, several at once. A fix
goes through the merge queue, whose verify step runs the target task's verify commands and then the eval
on the merged candidate: it lands only if the candidate scores at least as well as the integration head it
would replace (:class:`Gate`). Otherwise its branch is kept, unmerged, and the report says why. "Resolved"
is the eval's verdict, never an agent's exit code. Rounds stop at ``max_rounds`` or when nothing is
actionable.

Everything is journaled (``challenge_round``, ``fix``, ``adversarial``), so a resumed run picks the loop up
where it stopped: a round whose challenges are journaled does not ask the challenger again, and a fix with
a journaled result is not run again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from orchestrator import events as E
from orchestrator.adversarial.challenges import Challenge, ChallengeError, challenger_prompt, parse_challenges
from orchestrator.config import AdversarialSection
from orchestrator.run.evals import EvalResult

# The last "verify command" of a fix: the orchestrator's eval gate, not a shell command.
EVAL_GATE = "<eval gate: the merged candidate must score at least the integration head>"


class ChallengerUnavailable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Gate:
    """Eval scores by commit: the integration head a fix would replace, and each fix's merged candidate."""

    scores: dict[str, float] = field(default_factory=dict)
    last: float = 0.0  # the latest score of the integration head
    candidates: dict[str, float] = field(default_factory=dict)  # fix id -> its candidate's score
    against: dict[str, float] = field(default_factory=dict)  # fix id -> the head's score it was judged against

    def head_scored(self, head: str, score: float) -> None:
        self.scores[head] = score
        self.last = score

    def judge(self, fix_id: str, head: str, candidate: str, result: EvalResult) -> tuple[bool, str]:
        """Whether the candidate may land on ``head``; the merge queue holds its lock while this runs, so
        ``head`` is the head it lands on, and a fix merged just before counts with its own score."""
        current = self.against[fix_id] = self.scores.get(head, self.last)
        if result.score is None:
            return False, f"the eval gave no score on the merged candidate: {result.error}"
        self.candidates[fix_id] = result.score
        self.scores[candidate] = result.score
        if result.score < current:
            return False, f"eval score {result.score:.3f} is below the current {current:.3f}"
        self.last = result.score
        return True, f"eval score {result.score:.3f} (current {current:.3f})"


@dataclass
class FixResult:
    merged: bool
    reason: str
    branch: str = ""


class Host(Protocol):
    """What the loop needs from the run."""

    async def score_head(self) -> tuple[str, EvalResult]: ...

    async def challenge(self, prompt: str) -> tuple[str, str, dict[str, Any]]: ...  # text, engine, usage

    async def fix(self, fix_id: str, challenge: Challenge, gate: Gate) -> FixResult: ...

    def change(self) -> str: ...

    def outputs(self) -> dict[str, str]: ...


@dataclass
class Summary:
    rounds: int
    baseline: float | None
    final: float | None
    stopped: str


class AdversarialLoop:
    def __init__(self, cfg: AdversarialSection, host: Host, *, objective: str, task_ids: set[str], parallel: int,
                 past: list[Any], record: Callable[..., Any], phase: Callable[[str], None]) -> None:
        self.cfg, self.host, self.objective, self.task_ids = cfg, host, objective, task_ids
        self.parallel = max(1, parallel)
        self.record, self.phase = record, phase
        self.rounds = {ev.round: ev for ev in past if isinstance(ev, E.ChallengeRound)}
        self.fixed = {(ev.round, ev.challenge): ev for ev in past if isinstance(ev, E.FixFinished)}
        self.finished = next((ev for ev in past if isinstance(ev, E.AdversarialFinished)), None)
        self.gate = Gate()

    def _earlier(self) -> list[dict[str, Any]]:
        out = []
        for (round_no, n), ev in sorted(self.fixed.items()):
            c = self.rounds[round_no].challenges[n - 1]
            result = ev.result + (f" ({ev.reason})" if ev.reason else "")
            out.append({"round": round_no, "category": c["category"], "severity": c["severity"],
                        "description": c["description"], "result": result})
        return out

    def _stop(self, rounds: int, baseline: float | None, stopped: str) -> Summary:
        final = self.gate.last if self.gate.scores else None
        self.record(E.AdversarialFinished, rounds=rounds, baseline=baseline, final=final, stopped=stopped)
        return Summary(rounds, baseline, final, stopped)

    async def run(self) -> Summary:
        if self.finished is not None:  # a resume after the loop ended: nothing left to do
            return Summary(self.finished.rounds, self.finished.baseline, self.finished.final, self.finished.stopped)
        baseline = self.rounds[1].score_before if 1 in self.rounds else None
        for round_no in range(1, self.cfg.max_rounds + 1):
            self.phase(f"adversarial round {round_no}: scoring the integration head")
            head, scored = await self.host.score_head()
            if scored.score is None:
                return self._stop(round_no - 1, baseline, "eval_error")
            self.gate.head_scored(head, scored.score)
            baseline = scored.score if baseline is None else baseline
            started = self.rounds.get(round_no)
            if started is None:
                started = await self._challenge(round_no, head, scored)
                if started.fallback:
                    return self._stop(round_no, baseline, "challenger_failed")
            if not started.actionable:
                return self._stop(round_no, baseline, "nothing_actionable")
            todo = [n for n in started.actionable if (round_no, n) not in self.fixed]
            self.phase(f"adversarial round {round_no}: fixing {len(todo)} of {len(started.actionable)} challenge(s)")
            gate = asyncio.Semaphore(self.parallel)
            await asyncio.gather(*(self._fix(round_no, n, started, gate) for n in todo))
        return self._stop(self.cfg.max_rounds, baseline, "max_rounds")

    async def _challenge(self, round_no: int, head: str, scored: EvalResult) -> E.ChallengeRound:
        self.phase(f"adversarial round {round_no}: the challenger reads the work")
        prompt = challenger_prompt(self.objective, self.host.change(), self.host.outputs(), scored.score or 0.0,
                                   scored.report, round_no, self.cfg.max_input_chars, self._earlier())
        fields: dict[str, Any] = {"round": round_no, "head": head, "score_before": scored.score}
        try:
            text, engine, usage = await self.host.challenge(prompt)
            answer = parse_challenges(text, self.task_ids)
        except ChallengerUnavailable as e:
            ev = self.record(E.ChallengeRound, **fields, fallback=True,
                             reason=f"the challenger gave nothing: {e.reason}")
        except ChallengeError as e:
            ev = self.record(E.ChallengeRound, **fields, engine=engine, fallback=True, reason=str(e), **usage)
        else:
            ranked = sorted(range(1, len(answer.challenges) + 1), key=lambda n: -answer.challenges[n - 1].severity)
            actionable = [n for n in ranked if answer.challenges[n - 1].severity >= self.cfg.threshold]
            ev = self.record(E.ChallengeRound, **fields, engine=engine, challenges=[c.to_json() for c in
                                                                                    answer.challenges],
                             rejected=answer.rejected, actionable=actionable[:self.cfg.max_fixes], **usage)
        self.rounds[round_no] = ev
        return ev  # type: ignore[no-any-return]

    async def _fix(self, round_no: int, n: int, started: E.ChallengeRound, gate: asyncio.Semaphore) -> None:
        challenge = Challenge.model_validate(started.challenges[n - 1])
        fix_id = f"adv{round_no}-c{n}"
        async with gate:
            before = self.gate.last
            result = await self.host.fix(fix_id, challenge, self.gate)
        ev = self.record(E.FixFinished, round=round_no, challenge=n, fix_id=fix_id, target_task=challenge.target_task,
                         branch=result.branch, result="merged" if result.merged else "not_merged",
                         reason=result.reason[:1000], score_before=self.gate.against.get(fix_id, before),
                         score_after=self.gate.candidates.get(fix_id))
        self.fixed[(round_no, n)] = ev

