"""The adversarial loop inside a run: what the loop (:mod:`orchestrator.adversarial.loop`) asks of the run —
scores of the integration head, the challenger, recovery agents whose fixes go through the merge queue —
and the eval gate the merge queue runs on each fix's merged candidate."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acteon_core.files import write_atomic
from orchestrator import events as E
from orchestrator.adversarial.challenges import Challenge, recovery_prompt
from orchestrator.adversarial.loop import EVAL_GATE, AdversarialLoop, ChallengerUnavailable, FixResult, Gate
from orchestrator.adversarial.report import write_report
from orchestrator.engines.ask import Asking, NoAnswer, ask_with_usage
from orchestrator.plan.model import PlanError, Subtask, Task
from orchestrator.run.evals import EvalResult, result_of
from orchestrator.run.evaluation import score_head
from orchestrator.workspace.git import rev
from orchestrator.workspace.merging import VerifyResult

if TYPE_CHECKING:
    from orchestrator.run.host import RunHost as Run
    from orchestrator.workspace.worktrees import RunWorkspace


def check_adversarial(run: Run, workspace: RunWorkspace | None) -> None:
    """What the loop needs that only the run can tell, checked before any task starts."""
    adv = run.cfg.adversarial
    if not adv.enabled:
        return
    problems = []
    if workspace is None:
        problems.append("the adversarial loop needs a git repository (fixes are branches merged through the "
                        f"merge queue): {run.plan.scope.working_directory} is not in one")
    if (adv.challenger_engine or run.opts.engine) == "command" and adv.challenger_command is None:
        problems.append("a command run's adversarial loop needs [adversarial] challenger_command")
    if run.opts.engine == "command" and adv.recovery_command is None:
        problems.append("a command run's adversarial loop needs [adversarial] recovery_command")
    if adv.recovery_role not in run.roles:
        problems.append(f"[adversarial] recovery_role '{adv.recovery_role}' is not a role "
                        f"(roles: {', '.join(sorted(run.roles))})")
    if problems:
        raise PlanError(problems)


async def run_adversarial(run: Run) -> None:
    """Challenge, fix and re-judge the finished work, then write adversarial.json and .md."""
    adv = run.cfg.adversarial
    loop = AdversarialLoop(adv, _Host(run), objective=run.plan.objective, task_ids=set(run.tasks),
                           parallel=min(adv.max_parallel, run.max_agents()), past=run.dir.read_events(),
                           record=run.dir.record, phase=run.phase)
    try:
        done = await loop.run()
    finally:
        write_report(run.dir)
    scores = (f", score {done.baseline:.3f} -> {done.final:.3f}" if done.baseline is not None
              and done.final is not None else "")
    run.note(f"adversarial loop: {done.rounds} round(s), stopped: {done.stopped}{scores}")


async def eval_gate(run: Run, fix_id: str, where: Path) -> VerifyResult:
    """A fix's merged candidate (checked out in ``where``) scored and judged against the integration head it
    would land on (the merge queue holds its lock: that head cannot move meanwhile)."""
    places = run.sessions.places
    assert places is not None and run.cfg.eval_harness.command is not None
    gate, _ = run.fixes[fix_id]
    head = await asyncio.to_thread(places.ws.head)
    candidate = await asyncio.to_thread(rev, where, "HEAD")
    ran = await run.sessions.run_command(run.cfg.eval_harness.command, where, agent_id=f"{fix_id}.eval", task_id=fix_id,
                                subtask_id="eval", timeout_s=run.cfg.eval_harness.timeout_seconds)
    ok, why = gate.judge(fix_id, head, candidate or "", result_of(ran.output, ok=ran.ok, detail=ran.detail))
    return VerifyResult("eval gate", ok, why)


class _Host:
    """What the adversarial loop asks of the run: scores, the challenger, fixes, the change, the outputs."""

    def __init__(self, run: Run) -> None:
        self.run = run

    async def score_head(self) -> tuple[str, EvalResult]:
        run = self.run
        return await score_head(run.cfg.eval_harness, run.sessions, Path(run.plan.scope.working_directory),
                                "adversarial.eval")

    async def challenge(self, prompt: str) -> tuple[str, str, dict[str, Any]]:
        run, adv = self.run, self.run.cfg.adversarial
        engine = adv.challenger_engine or run.opts.engine
        asking = Asking(purpose="adversarial challenger", engine=engine, model=adv.challenger_model,
                        command=adv.challenger_command, timeout_seconds=adv.challenger_timeout_seconds)
        rounds = sum(1 for e in run.dir.read_events() if isinstance(e, E.ChallengeRound)) + 1
        agent_id = f"challenger.r{rounds}"
        try:
            text, usage = await ask_with_usage(asking, engine=engine, prompt=prompt,
                                               workdir=Path(run.plan.scope.working_directory),
                                               agent_dir=run.dir.agent_dir(agent_id), agent_id=agent_id,
                                               seat=run.seat)
        except NoAnswer as e:
            raise ChallengerUnavailable(e.reason) from None
        return text, engine, usage

    async def fix(self, fix_id: str, challenge: Challenge, gate: Gate) -> FixResult:
        """One recovery agent on its own branch from the integration head; its fix lands through the merge
        queue only past the target's verify commands and the eval gate."""
        run, adv = self.run, self.run.cfg.adversarial
        places = run.sessions.places
        assert places is not None
        target = run.tasks.get(challenge.target_task or "")
        folder = run.dir.adversarial_dir
        folder.mkdir(mode=0o700, exist_ok=True)
        write_atomic(folder / f"{fix_id}.json", challenge.to_json())
        sub = (Subtask(id=f"{fix_id}-1", name="fix", command=adv.recovery_command,
                       timeout_seconds=adv.recovery_timeout_seconds) if run.opts.engine == "command" else
               Subtask(id=f"{fix_id}-1", name="fix", prompt=recovery_prompt(
                   challenge, f"{target.name}: {target.description}" if target else ""),
                       timeout_seconds=adv.recovery_timeout_seconds))
        task = Task(id=fix_id, name=f"fix: {challenge.description[:80]}", assigned_role=adv.recovery_role,
                    isolate=True, verify=[*(target.verify if target else []), EVAL_GATE], subtasks=[sub])
        run.fixes[fix_id] = (gate, folder / f"{fix_id}.json")
        if run.watcher is not None:
            run.watcher.add_task(fix_id)  # its agent's calls are journaled and watched like any task's
        place = await places.prepare(task)
        outcome = await run.work(task, place, None)
        return FixResult(outcome.status == "done", outcome.detail, place.branch or "")

    def change(self) -> str:
        places = self.run.sessions.places
        assert places is not None
        return places.ws.change()

    def outputs(self) -> dict[str, str]:
        return {t.id: self.run.handoffs.output_of(t.id) for t in self.run.plan.tasks}
