"""What a task hands to the tasks after it: its final output, the synthesis where branches meet, the merged
report of a lens task — kept in the run folder (``outputs/``, ``synthesis/``, ``lens/``) so a resume finds them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from acteon_core.files import write_text_atomic
from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import SynthesisSection
from orchestrator.engines.base import Seat
from orchestrator.plan.model import Task
from orchestrator.run.synthesis import synthesize


class Handoffs:
    def __init__(self, run_dir: R.RunDir, tasks: Mapping[str, Task]) -> None:
        """``tasks``: the run's live table of tasks (the refiner and park decisions change it)."""
        self.dir = run_dir
        self.tasks = tasks
        self._synthesis_files: dict[str, Path] = {}  # join tasks -> the synthesis of their parents' work

    def save_output(self, task_id: str, text: str) -> None:
        """A task's final output once all its subtasks succeeded: what a synthesis where its branch meets
        others reads (only done tasks are ever read: a join starts after its parents are done)."""
        path = self.dir.output_file(task_id)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        write_text_atomic(path, text)

    def output_of(self, task_id: str) -> str:
        path = self.dir.output_file(task_id)
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def synthesis_file(self, task_id: str) -> Path | None:
        return self._synthesis_files.get(task_id)

    def inputs(self, task: Task) -> list[str]:
        """What a task receives from its parents: the synthesis where branches meet, else the merged report
        of a lens task it depends on."""
        if task.id in self._synthesis_files:
            return [self._synthesis_files[task.id].read_text(encoding="utf-8", errors="replace")]
        return [self.output_of(d) for d in self._lens_parents(task)]

    def lens_reports(self, task: Task) -> str | None:
        """merged.json of each lens task ``task`` depends on, as one path list (None: it depends on none)."""
        lenses = [str(self.dir.lens_dir(d) / "merged.json") for d in self._lens_parents(task)]
        return os.pathsep.join(lenses) if lenses else None

    async def synthesize(self, cfg: SynthesisSection, task: Task, workdir: Path, *, engine: str,
                         seat: Seat) -> None:
        """The parents' outputs condensed for ``task`` (kept in ``synthesis/<task>.md``; a resume reuses it)."""
        path = self.dir.synthesis_file(task.id)
        if not path.exists():
            parents = [(self.tasks[d], self.output_of(d)) for d in task.depends_on if d in self.tasks]
            made = await synthesize(cfg, run_engine=engine, task=task, parents=parents, workdir=workdir,
                                    agent_dir=self.dir.agent_dir(f"synthesis.{task.id}"), seat=seat)
            path.parent.mkdir(mode=0o700, exist_ok=True)
            write_text_atomic(path, made.text)
            self.dir.record(E.SynthesisMade, task_id=task.id, parents=[p.id for p, _ in parents], engine=made.engine,
                            fallback=made.fallback, reason=made.reason, chars=len(made.text), file=str(path))
        self._synthesis_files[task.id] = path

    def _lens_parents(self, task: Task) -> list[str]:
        return [d for d in task.depends_on if d in self.tasks and self.tasks[d].lens is not None]
