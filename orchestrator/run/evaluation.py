"""The eval harness (``[eval_harness]``) on the run's finished work: the integration head scored in a scratch
worktree, and a run that scores below its threshold ending ``eval_failed``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import EvalHarnessSection
from orchestrator.run.evals import EvalResult, result_of
from orchestrator.run.sessions import Sessions
from orchestrator.workspace.merging import drop_scratch


async def score_head(harness: EvalHarnessSection, sessions: Sessions, working_directory: Path,
                     agent_id: str = "eval") -> tuple[str, EvalResult]:
    """The integration head it scored (in a scratch worktree; the working directory outside git) and the
    result."""
    assert harness.command is not None
    places = sessions.places
    head = ""
    if places is not None:
        head = await asyncio.to_thread(places.ws.head)
        place = await asyncio.to_thread(places.ws.worktree, "_eval", isolated=False)
        where = place.path
    else:
        where = working_directory
    try:
        ran = await sessions.run_command(harness.command, where, agent_id=agent_id, task_id="eval",
                                         subtask_id="eval", timeout_s=harness.timeout_seconds)
        return head, result_of(ran.output, ok=ran.ok, detail=ran.detail)
    finally:
        if places is not None:
            await asyncio.to_thread(drop_scratch, places.ws, places.ws.root / "_eval")


async def evaluate(harness: EvalHarnessSection, sessions: Sessions, working_directory: Path, run_dir: R.RunDir,
                   note: Callable[[str], None]) -> tuple[str, str]:
    """``done`` when the finished work scores at least ``pass_threshold``, else ``eval_failed`` — an eval that
    gives no score fails too. Returns (status, reason)."""
    head, result = await score_head(harness, sessions, working_directory)
    passed = result.passes(harness.pass_threshold)
    run_dir.record(E.EvalScored, score=result.score, error=result.error, threshold=harness.pass_threshold,
                   passed=passed, head=head, report=result.report)
    note(f"eval: {result.score:.3f}" if result.ok else f"eval: no score ({result.error})")
    if passed:
        return "done", ""
    if not result.ok:
        return "eval_failed", f"the eval gave no score: {result.error}"
    return "eval_failed", f"eval score {result.score:.3f} is below the pass threshold {harness.pass_threshold}"
