"""The eval harness contract (``[eval_harness]``): a command that scores the work, and how its score is read.

The command runs in a given directory (a worktree of the integration head in a git repository) with a
timeout, like any plan command: dispatched to the gateway first. It prints its score in one of two
documented forms, read from its standard output:

* a JSON object with a numeric ``score`` in [0, 1] as the whole output (other keys are kept as the
  report: ``{"score": 0.82, "passed": 41, "failed": 9}``);
* otherwise, the last non-empty line is the score, a number in [0, 1] (``0.82``).

Anything else — no number, a number outside [0, 1], NaN, a failed or timed-out command — is an eval
*error*, never a score: a run cannot pass its threshold by a broken eval.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


class EvalError(ValueError):
    """The eval produced no valid score; the message says why."""


@dataclass(frozen=True)
class EvalResult:
    score: float | None  # None: an eval error (see ``error``)
    error: str = ""
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.score is not None

    def passes(self, threshold: float | None) -> bool:
        return self.score is not None and (threshold is None or self.score >= threshold)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EvalError(f"{where} is not a number: {str(value)[:60]!r}")
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise EvalError(f"{where} must be a number in [0, 1], got {score}")
    return score


def parse_score(stdout: str) -> tuple[float, dict[str, Any]]:
    """The score (and the JSON report, or {}) an eval printed; :class:`EvalError` when there is none."""
    text = stdout.strip()
    if not text:
        raise EvalError("the eval printed nothing (expected a score in [0, 1] on its last line, or a JSON report)")
    if text.startswith("{"):
        try:
            report = json.loads(text)
        except (ValueError, RecursionError):
            report = None
        if isinstance(report, dict):
            if "score" not in report:
                raise EvalError("the eval's JSON report has no 'score'")
            return _number(report["score"], "the report's 'score'"), report
    last = text.splitlines()[-1].strip()
    try:
        value = float(last)
    except ValueError:
        raise EvalError(f"the eval's last line is not a score: {last[:60]!r}") from None
    return _number(value, "the last line"), {}


def result_of(stdout: str, *, ok: bool, detail: str = "") -> EvalResult:
    """The eval's result from its output and whether the command succeeded (exit 0, in time)."""
    if not ok:
        return EvalResult(None, f"the eval command failed: {detail or 'non-zero exit'}")
    try:
        score, report = parse_score(stdout)
    except EvalError as e:
        return EvalResult(None, str(e))
    return EvalResult(score, report=report)
