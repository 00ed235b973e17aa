"""What an agent is told, and what it tells back: a subtask's prompt (its role's template, the work it builds
on, a failed attempt's report, the most relevant findings so far) and the findings it reports, journaled and
indexed for the agents after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import MemorySection
from orchestrator.memory.findings import FINDING_INSTRUCTIONS, parse_findings
from orchestrator.memory.select import for_prompt
from orchestrator.memory.sources import normalize_workspace
from orchestrator.memory.store import MemoryStore, open_store
from orchestrator.plan.model import Plan, Task
from orchestrator.roles import Role, render_prompt
from orchestrator.run.handoffs import Handoffs
from orchestrator.workspace.tasks import Attempts, retry_note
from orchestrator.workspace.worktrees import Worktree


class Briefing:
    def __init__(self, run_dir: R.RunDir, cfg: MemorySection, *, plan: Plan, roles: dict[str, Role],
                 handoffs: Handoffs) -> None:
        self.dir, self.cfg, self.plan, self.roles, self.handoffs = run_dir, cfg, plan, roles, handoffs
        self.memory: MemoryStore | None = None
        self._findings = 0  # findings journaled by this run so far (their ids count on from it)

    def open(self, state_dir: Path) -> None:
        """The findings index: earlier runs' findings become searchable; a damaged journal elsewhere must not
        stop this run."""
        if self.cfg.enabled:
            self.memory = open_store(state_dir)
            self.memory.sync_all(state_dir, on_error=self._memory_error)

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()

    def replayed(self, past: list[Any]) -> None:
        """On resume: finding ids count on from the journal's."""
        self._findings = sum(1 for ev in past if isinstance(ev, E.Finding))

    def prompt(self, task: Task, sub: Any, agent_id: str, attempts: Attempts, place: Worktree | None = None) -> str:
        """The subtask's prompt with the most relevant prior findings (this run's and, if configured,
        earlier runs' of the same workspace) fenced in as data, and how to report new ones."""
        role = self.roles[task.assigned_role]
        findings: list[str] = []
        if self.memory is not None:
            self.memory.sync_run(self.dir)
            hits = for_prompt(self.memory, query=" ".join([task.name, task.description, sub.name, sub.prompt or ""]),
                              workspace=normalize_workspace(self.plan.scope.working_directory),
                              run_id=self.dir.run_id,
                              cross_run=self.cfg.cross_run, max_findings=self.cfg.max_findings,
                              max_chars=self.cfg.max_injected_chars)
            if hits:
                self.dir.record(E.FindingsUsed, task_id=task.id, agent_id=agent_id,
                                finding_ids=[h.memory.id for h in hits])
            findings = [h.memory.text for h in hits]
        report = attempts.report(task.id)
        if report is not None:
            findings.insert(0, retry_note(report))
        synthesis = self.handoffs.synthesis_file(task.id)
        if synthesis is not None:
            findings.insert(0, f"Synthesis of the work this task builds on (tasks {', '.join(task.depends_on)}): "
                               + synthesis.read_text(encoding="utf-8", errors="replace"))
        else:
            findings[:0] = [f"Merged report of the lens swarm this task builds on: {text}"
                            for text in self.handoffs.inputs(task)]
        text = render_prompt(role, task=task, subtask=sub, plan=self.plan, findings=findings,
                             max_findings_chars=self.cfg.max_injected_chars,
                             workdir=str(place.path) if place is not None else None,
                             branch=place.branch if place is not None else None)
        return f"{text.rstrip()}\n\n{FINDING_INSTRUCTIONS}\n"

    def record_findings(self, task_id: str, agent_id: str, output: str) -> None:
        for topics, text in parse_findings(output):
            self._findings += 1
            self.dir.record(E.Finding, finding_id=f"{self.dir.run_id}/{self._findings}", agent_id=agent_id,
                            task_id=task_id, topics=list(topics), text=text)
        if self.memory is not None:
            self.memory.sync_run(self.dir)

    def _memory_error(self, error: Exception) -> None:
        self.dir.record(E.Note, kind="memory_index_error", data={"error": str(error)})
