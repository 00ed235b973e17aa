"""A lens task inside a run: each member one agent session of the run's (journaled, gated, its own key and
folder), the merger asked like the refiner (a clean session, no tools), the result journaled and kept as the
task's output. The order of things and the files are :mod:`orchestrator.lenses.swarm`'s."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator import events as E
from orchestrator.engines.ask import NoAnswer, ask_with_usage, asking_of
from orchestrator.lenses.answers import INSTRUCTIONS
from orchestrator.lenses.merger import member_prompt
from orchestrator.lenses.swarm import AskMerger, LensSwarm, MemberRun, MergerAnswer, MergerUnavailable, read_answer
from orchestrator.plan.model import LensMember, Subtask, Task
from orchestrator.roles import render_prompt
from orchestrator.run.scheduler import TaskOutcome

if TYPE_CHECKING:
    from orchestrator.run.host import RunHost as Run
    from orchestrator.workspace.claims import Held
    from orchestrator.workspace.worktrees import Worktree


async def run_lens(run: Run, task: Task, place: Worktree | None, held: Held | None, workdir: Path) -> TaskOutcome:
    """A lens task: its members in parallel, then the merged report, which is the task's output for the tasks
    that depend on it. No answer at all, or a quorum not met under ``strict``, fails the task."""
    lens = task.lens
    assert lens is not None
    swarm = LensSwarm(task.id, lens, run.dir.lens_dir(task.id), root=str(workdir),
                      parallel=run.lens_parallel(task))
    made = await swarm.run(functools.partial(_member, run, task, place, held, workdir), _merger(run, task, workdir))
    merger = made.report["merger"]
    run.dir.record(E.LensMerged, task_id=task.id, result=made.result, members=len(lens.members),
                   answered=made.report["answered"], min_quorum=lens.quorum, clusters=len(made.report["clusters"]),
                   warnings=made.warnings, merger_engine=merger["engine"], merger_fallback=merger["fallback"],
                   answered_by=[f"{task.id}.{m['id']}" for m in made.report["members"] if m["status"] == "answered"],
                   merger_reason=merger["reason"], file=str(made.json_file), **made.merger_usage)
    run.handoffs.save_output(task.id, made.markdown)
    for warning in made.warnings:
        run.note(f"{task.id}: {warning}")
    summary = (f"lens {made.result}: {made.report['answered']} of {len(lens.members)} answered, "
               f"{len(made.report['clusters'])} finding cluster(s)")
    if made.result == "insufficient_data":
        return TaskOutcome("failed", f"insufficient_data: no member answered ({'; '.join(made.warnings)})"[:500],
                           output=made.markdown)
    if made.result == "below_quorum" and lens.strict:
        return TaskOutcome("failed", f"{summary} (strict: {'; '.join(made.warnings)})"[:500], output=made.markdown)
    return TaskOutcome("done", summary, output=made.markdown)


async def _member(run: Run, task: Task, place: Worktree | None, held: Held | None, workdir: Path,
                  member: LensMember) -> MemberRun:
    """One member: the task's role (read-only unless the plan says otherwise), no memory of other members or
    runs, its own engine, model and wall clock. A command member reads its prompt from $ACTEON_LENS_PROMPT."""
    assert task.lens is not None
    engine = member.engine or ("command" if member.command is not None else run.opts.engine)
    prompt_file = run.dir.agent_dir(f"{task.id}.{member.id}") / "prompt.md"
    prompt = _prompt(run, task, member, place)
    prompt_file.write_text(prompt, encoding="utf-8")
    result = await run.sessions.session(
        task, member.id, engine=engine, workdir=workdir, place=place, held=held, model=member.model,
        prompt=prompt if member.command is None else None, command=member.command,
        timeout_s=float(member.timeout_seconds or task.lens.timeout_seconds or run.opts.subtask_timeout_s),
        extra_env={"ACTEON_LENS_PROMPT": str(prompt_file)})
    return MemberRun(ok=result.ok, answer=read_answer(result), timed_out=result.timed_out, detail=result.detail,
                     duration_s=result.duration_s, engine=engine, usage=result.usage)


def _prompt(run: Run, task: Task, member: LensMember, place: Worktree | None) -> str:
    assert task.lens is not None
    inputs = [f"Input from the work this task builds on: {text}" for text in run.handoffs.inputs(task)]
    sub = Subtask(id=member.id, name=f"lens {member.id}", prompt=member_prompt(task.lens, member))
    text = render_prompt(run.roles[task.assigned_role], task=task, subtask=sub, plan=run.plan, findings=inputs,
                         max_findings_chars=run.cfg.memory.max_injected_chars,
                         workdir=str(place.path) if place is not None else None)
    return f"{text.rstrip()}\n\n{INSTRUCTIONS}\n"


def _merger(run: Run, task: Task, workdir: Path) -> AskMerger | None:
    """How the merger is asked: a clean session with no tools (None: a command run without a merger command,
    where the counted findings are the report)."""
    assert task.lens is not None
    spec = task.lens.merger
    engine = spec.engine or run.opts.engine
    if engine == "command" and spec.command is None:
        return None
    asking = asking_of("lens merger", spec)
    agent_id = f"{task.id}.merger"

    async def ask_merger(prompt: str) -> MergerAnswer:
        try:
            text, usage = await ask_with_usage(
                asking, engine=engine, prompt=prompt, workdir=workdir, agent_dir=run.dir.agent_dir(agent_id),
                seat=run.seat, agent_id=agent_id)
        except NoAnswer as e:
            raise MergerUnavailable(e.reason) from None
        return MergerAnswer(text, engine, usage)

    return ask_merger
