"""Running a lens swarm: members in parallel under a cap, each answer kept, then clustered and merged.

How one member runs (engine, gateway key, journal) and how the merger is asked are the runner's business,
passed in as two callables; this module owns the order of things and the files in
``runs/<run>/lens/<task>/``: ``members/<id>.txt`` (the raw answer), ``members/<id>.json`` (the outcome and
validated findings), ``merged.json`` and ``merged.md``. A member whose outcome file says it answered is
not asked again when the run resumes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acteon_core.files import write_atomic, write_text_atomic
from acteon_core.vocabulary import AGENT_ENGINES
from orchestrator.engines.base import SubtaskResult
from orchestrator.lenses.answers import MAX_ANSWER_CHARS, AnswerError, Finding, parse_answer, parse_evidence
from orchestrator.lenses.clusters import cluster, ranked
from orchestrator.lenses.merger import (
    MAX_MERGER_TEXT,
    MemberOutcome,
    assess,
    merger_prompt,
    new_tag,
    report_json,
    report_markdown,
)
from orchestrator.plan.model import Lens, LensMember, Plan, PlanError
from orchestrator.roles import Role
from orchestrator.workspace.tasks import writes_files


@dataclass
class MemberRun:
    """How one member's session ended, as the runner saw it."""

    ok: bool
    answer: str = ""  # the member's complete final answer
    timed_out: bool = False
    detail: str = ""
    duration_s: float = 0.0
    engine: str = ""
    usage: dict[str, Any] = field(default_factory=dict)


@dataclass
class MergerAnswer:
    text: str
    engine: str
    usage: dict[str, Any] = field(default_factory=dict)


class MergerUnavailable(Exception):
    """The merger gave no report; ``reason`` says why (the counted findings are reported without it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


RunMember = Callable[[LensMember], Awaitable[MemberRun]]
AskMerger = Callable[[str], Awaitable[MergerAnswer]]


@dataclass
class LensResult:
    result: str  # ok, degraded, below_quorum, insufficient_data
    warnings: list[str]
    report: dict[str, Any]
    json_file: Path
    markdown_file: Path
    markdown: str
    merger_asked: bool
    merger_usage: dict[str, Any] = field(default_factory=dict)


def check_lenses(plan: Plan, roles: dict[str, Role], run_engine: str) -> None:
    """What a lens task needs that only the run can tell: a read-only role unless the plan allows writes, and a
    command for every member that runs on the command engine. Raises :class:`PlanError` naming each."""
    errors: list[str] = []
    for task in plan.tasks:
        if task.lens is None:
            continue
        role = roles.get(task.assigned_role)
        if task.lens.read_only and role is not None and writes_files(role):
            errors.append(f"task '{task.id}' is a lens swarm with role '{role.name}', which can change files: give "
                          "it a read-only role (reviewer, researcher) or set lens.read_only: false")
        for m in task.lens.members:
            if (m.engine or ("command" if m.command else run_engine)) == "command" and m.command is None:
                errors.append(f"lens member '{m.id}' of task '{task.id}' runs on the command engine but has no "
                              "'command' (give it one, or an engine: " + ", ".join(AGENT_ENGINES) + ")")
    if errors:
        raise PlanError(errors)


def read_answer(result: SubtaskResult) -> str:
    """A member's complete final answer (the engine's ``output`` is bounded for the journal)."""
    if result.answer_file is not None:
        try:
            with result.answer_file.open("rb") as f:
                return f.read(MAX_ANSWER_CHARS + 1).decode("utf-8", "replace")
        except OSError:
            pass
    return result.output


def _outcome(member: LensMember, run: MemberRun, root: str) -> MemberOutcome:
    base = MemberOutcome(member.id, "answered", engine=run.engine, model=member.model, lens=member.lens,
                         critical=member.critical, raw=run.answer, duration_s=round(run.duration_s, 3),
                         usage=run.usage)
    if run.timed_out:
        base.status, base.detail = "timed_out", run.detail or "timed out"
    elif not run.ok:
        base.status, base.detail = "failed", run.detail or "failed"
    else:
        try:
            answer = parse_answer(run.answer, root)
        except AnswerError as e:
            base.status, base.detail = "invalid", str(e)
        else:
            base.findings, base.rejected = answer.findings, answer.rejected
            if answer.rejected:
                base.detail = f"{len(answer.rejected)} malformed finding(s) dropped"
    return base


def _load(path: Path) -> MemberOutcome | None:
    """A member's saved outcome, if it answered (only answers are reused on resume)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("status") != "answered":
            return None
        raw = path.with_suffix(".txt").read_text(encoding="utf-8")
        findings = [Finding.model_validate({**f, "evidence": tuple(parse_evidence(e) for e in f["evidence"])})
                    for f in data["findings"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return MemberOutcome(data["id"], "answered", data.get("detail", ""), data.get("engine", ""), data.get("model"),
                         data.get("lens", ""), bool(data.get("critical")), raw, findings,
                         list(data.get("rejected", [])), float(data.get("duration_s", 0.0)),
                         dict(data.get("usage") or {}))


class LensSwarm:
    def __init__(self, task_id: str, lens: Lens, folder: Path, *, root: str = "", parallel: int | None = None) -> None:
        self.task_id, self.lens, self.folder, self.root = task_id, lens, folder, root
        self.parallel = max(1, min(parallel or lens.max_parallel, lens.max_parallel))
        self.reused: list[str] = []  # members whose saved answer a resume used

    def _member_file(self, member_id: str) -> Path:
        return self.folder / "members" / f"{member_id}.json"

    async def _member(self, member: LensMember, run_member: RunMember, gate: asyncio.Semaphore) -> MemberOutcome:
        saved = _load(self._member_file(member.id))
        if saved is not None:
            self.reused.append(member.id)
            return saved
        async with gate:
            run = await run_member(member)
        outcome = _outcome(member, run, self.root)
        # Off the event loop: the fsyncs must not hold up the members still running.
        await asyncio.to_thread(self._save, member.id, run.answer, outcome)
        return outcome

    def _save(self, member_id: str, raw: str, outcome: MemberOutcome) -> None:
        path = self._member_file(member_id)
        write_text_atomic(path.with_suffix(".txt"), raw)  # the raw answer, whatever it was
        write_atomic(path, outcome.to_json())

    async def run(self, run_member: RunMember, ask_merger: AskMerger | None) -> LensResult:
        (self.folder / "members").mkdir(parents=True, exist_ok=True, mode=0o700)
        gate = asyncio.Semaphore(self.parallel)
        outcomes = list(await asyncio.gather(*(self._member(m, run_member, gate) for m in self.lens.members)))
        result, warnings = assess(self.lens, outcomes)
        answered = [o for o in outcomes if o.answered]
        clusters = ranked(cluster({o.id: o.findings for o in answered}), len(answered), self.lens.merge_mode,
                          self.lens.consensus)
        merger: dict[str, Any] = {"engine": "", "fallback": True, "reason": "", "text": ""}
        usage: dict[str, Any] = {}
        asked = False
        if result == "insufficient_data":
            merger["reason"] = "no member answered: the merger is not asked"
        elif ask_merger is None:
            merger["reason"] = "no merger for this run (a command run needs a lens merger command)"
        else:
            tag = new_tag([o.raw for o in answered] + [f.claim for o in answered for f in o.findings])
            prompt = merger_prompt(self.lens.question, self.lens, outcomes, clusters, tag)
            write_text_atomic(self.folder / "merger-prompt.md", prompt)
            asked = True
            try:
                made = await ask_merger(prompt)
            except MergerUnavailable as e:
                merger["reason"] = f"the merger gave no report: {e.reason}"
            else:
                text = made.text.strip()[:MAX_MERGER_TEXT]
                usage = made.usage
                merger.update(engine=made.engine, fallback=not text, text=text,
                              reason="" if text else "the merger's report was empty")
                mentioned = set(re.findall(r"\bc\d+\b", text))
                missing = [c["id"] for c in clusters if c["id"] not in mentioned]
                if text and missing:
                    merger["unmentioned"] = missing
        if asked and merger["fallback"]:
            warnings = [*warnings, merger["reason"]]  # asked and failed: say so (not asked is no failure)
        report = report_json(self.task_id, self.lens, result, warnings, outcomes, clusters, merger)
        markdown = report_markdown(report)
        json_file, md_file = self.folder / "merged.json", self.folder / "merged.md"
        write_atomic(json_file, report)
        write_text_atomic(md_file, markdown)
        return LensResult(result, warnings, report, json_file, md_file, markdown, asked, usage)
