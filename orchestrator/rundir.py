"""The run directory (docs/swarm.md): ``ACTEON_STATE_DIR/runs/<run_id>/``.

    plan.json         the plan as run
    run.json          pid, process start time, status, gateway URL (atomic writes)
    events.jsonl      append-only journal; every line is validated on read
    checkpoint.json   task statuses, rewritten atomically after every change
    stats.json        the gateway's counters at the end, counted from the journal (all the run's gateways)
    agents/<agent>/   prompt, settings, logs, result of each agent session
    outputs/<task>.txt    a done task's final output (what a synthesis where its branch meets others reads)
    synthesis/<task>.md   the parents' work condensed for a task where branches meet
    lens/<task>/          a lens task's members' answers, merged.json and merged.md
    adversarial/          the challenges of the adversarial loop; adversarial.json and .md its report
    reports/              conflict and verify reports of branches that could not land
    summary.md        the report written when the run ends
    graph.nq          the run's RDF twin (a cache: orchestrator.graph.twin)

Every path in it is named here. The journal (its events: ``orchestrator.events``) is the source of truth: the
checkpoint and the digital twin are projections of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from acteon_core import contract as c
from acteon_core.files import write_atomic
from acteon_core.vocabulary import RunStatus
from orchestrator import journal
from orchestrator.events import JournalError, line_error, now_iso, parse_event, task_statuses

RUN_STATUSES = ("running", *get_args(RunStatus))


class RunDir:
    def __init__(self, state_dir: Path, run_id: str) -> None:
        self.run_id = run_id
        self.path = state_dir / "runs" / run_id
        self._seq: int | None = None
        self._tail_checked = False

    # --- files -------------------------------------------------------------------------------------
    @property
    def plan_file(self) -> Path:
        return self.path / "plan.json"

    @property
    def journal_file(self) -> Path:
        return self.path / "events.jsonl"

    @property
    def checkpoint_file(self) -> Path:
        return self.path / "checkpoint.json"

    @property
    def run_file(self) -> Path:
        return self.path / "run.json"

    @property
    def stats_file(self) -> Path:
        return self.path / "stats.json"

    def output_file(self, task_id: str) -> Path:
        return self.path / "outputs" / f"{task_id}.txt"

    def synthesis_file(self, task_id: str) -> Path:
        return self.path / "synthesis" / f"{task_id}.md"

    def lens_dir(self, task_id: str) -> Path:
        return self.path / "lens" / task_id

    @property
    def adversarial_dir(self) -> Path:
        return self.path / "adversarial"

    @property
    def adversarial_report(self) -> tuple[Path, Path]:
        """adversarial.json and adversarial.md."""
        return self.path / "adversarial.json", self.path / "adversarial.md"

    @property
    def reports_dir(self) -> Path:
        """Conflict and verify reports of task branches that could not land (``reports/<attempt>.json``)."""
        return self.path / "reports"

    @property
    def summary_file(self) -> Path:
        return self.path / "summary.md"

    def agent_dir(self, agent_id: str) -> Path:
        d = self.path / "agents" / agent_id
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        return d

    def create(self) -> None:
        # Owner-only: agent settings (with the hook configuration) and logs live here.
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)

    def discard_new(self) -> None:
        """Remove the folder of a run that never started: only the plan written at its start may be in it
        (anything else means it is not new, and it is left alone)."""
        if not self.path.is_dir() or self.run_file.exists():
            return
        leftovers = [p for p in self.path.iterdir() if p != self.plan_file]
        if not leftovers:
            self.plan_file.unlink(missing_ok=True)
            self.path.rmdir()

    def exists(self) -> bool:
        return self.run_file.exists()

    # --- run.json ----------------------------------------------------------------------------------
    def read_run(self) -> dict[str, Any]:
        try:
            data = json.loads(self.run_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise JournalError(f"{self.run_file}: no such run") from None
        except ValueError as e:
            raise JournalError(f"{self.run_file}: not valid JSON ({e})") from None
        if not isinstance(data, dict):
            raise JournalError(f"{self.run_file}: not a JSON object")
        return data

    def status(self) -> str | None:
        """The run's status, with a ``running`` run whose orchestrator is gone (``kill -9``, a reboot: pid and
        process start time no longer match) reported as ``interrupted`` — it can be resumed."""
        from orchestrator.process import is_same_process

        run = self.read_run()
        status = run.get("status")
        if status == "running" and not is_same_process(int(run.get("pid") or 0),
                                                        int(run.get("process_start_time") or 0)):
            return "interrupted"
        return status

    def write_run(self, **fields: Any) -> dict[str, Any]:
        data = self.read_run() if self.run_file.exists() else {"run_id": self.run_id}
        data.update(fields)
        write_atomic(self.run_file, data)
        return data

    # --- journal -----------------------------------------------------------------------------------
    def read_events(self) -> list[Any]:
        """Every journal event, validated; a bad line is an error naming its line number — except a torn
        last line (a crash in the middle of writing it), which is skipped with a warning (``journal``)."""
        events = []
        for number, line in enumerate(journal.lines(self.journal_file) or [], 1):
            if not line.strip():
                continue
            try:
                events.append(parse_event(line))
            except ValidationError as e:
                raise line_error(self.journal_file, number, e) from None
        return events

    def append(self, event: BaseModel) -> None:
        """Append one event (fsync'd: the journal is what a resume trusts)."""
        if not self._tail_checked:  # a torn last line goes aside: this event must start a line of its own
            journal.set_torn_tail_aside(self.journal_file, self.path / "events.jsonl.torn")
            self._tail_checked = True
        line = event.model_dump_json() + "\n"
        fd = os.open(self.journal_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def next_seq(self) -> int:
        if self._seq is None:
            events = self.read_events()
            self._seq = (events[-1].seq + 1) if events else 0
        seq = self._seq
        self._seq += 1
        return seq

    def record(self, cls: type[BaseModel], **fields: Any) -> BaseModel:
        event = cls(ts=now_iso(), seq=self.next_seq(), **fields)
        self.append(event)
        return event

    # --- checkpoint --------------------------------------------------------------------------------
    def write_checkpoint(self, statuses: dict[str, str]) -> None:
        write_atomic(self.checkpoint_file, {"run_id": self.run_id, "updated": now_iso(), "tasks": statuses})

    def task_statuses(self) -> dict[str, str]:
        """Replay the journal: the last status of every task (the checkpoint is only a cache of this)."""
        return task_statuses(self.read_events())


def runs_root(state_dir: Path) -> Path:
    return state_dir / "runs"


def list_runs(state_dir: Path) -> list[RunDir]:
    root = runs_root(state_dir)
    if not root.is_dir():
        return []
    dirs = [RunDir(state_dir, p.name) for p in root.iterdir() if (p / "run.json").exists()]
    return sorted(dirs, key=lambda r: r.run_file.stat().st_mtime, reverse=True)


def default_state_dir() -> Path:
    return Path(os.environ.get(c.ENV_STATE_DIR) or c.DEFAULT_STATE_DIR).absolute()
