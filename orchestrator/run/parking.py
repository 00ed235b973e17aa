"""The park ledger: irreversible tasks wait for a person (``runs/<run>/park.jsonl``, append-only).

A task marked ``irreversible`` (with a ``park_reason``), in the plan or added by the refiner, never starts
on its own: when its dependencies are done it is *parked*, its dependents wait, and a run with only parked
work left ends ``parked``. A person then approves it, rejects it (it is skipped; its dependents are
blocked), or records a safer alternative (``propose``) and approves that instead; ``run --resume``
carries on. Every step is one line of the ledger, never rewritten: who decided what, when and why.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.events import line_error, now_iso

LEDGER = "park.jsonl"


class ParkEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ts: str
    task_id: str
    action: Literal["parked", "approved", "rejected", "proposed"]
    reason: str = ""
    by: str = ""
    proposal: dict[str, Any] | None = None  # proposed: the alternative task (validated as a plan task)
    proposal_no: int | None = Field(default=None, ge=1)  # approved: which proposal runs instead


class ParkLedger:
    def __init__(self, run_path: Path) -> None:
        self.path = run_path / LEDGER

    def entries(self) -> list[ParkEntry]:
        if not self.path.exists():
            return []
        out: list[ParkEntry] = []
        with self.path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append(ParkEntry.model_validate_json(line))
                except ValidationError as e:
                    raise line_error(self.path, number, e) from None
        return out

    def append(self, task_id: str, action: str, **fields: Any) -> ParkEntry:
        entry = ParkEntry(ts=now_iso(), task_id=task_id, action=action, **fields)  # type: ignore[arg-type]
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (entry.model_dump_json(exclude_none=True) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        return entry

    def decision(self, task_id: str) -> ParkEntry | None:
        """The latest approval or rejection of the task, if any."""
        last = None
        for e in self.entries():
            if e.task_id == task_id and e.action in ("approved", "rejected"):
                last = e
        return last

    def proposals(self, task_id: str) -> list[ParkEntry]:
        return [e for e in self.entries() if e.task_id == task_id and e.action == "proposed"]

    def waiting(self) -> dict[str, ParkEntry]:
        """Tasks parked and not decided yet: task id -> the entry that parked it."""
        parked: dict[str, ParkEntry] = {}
        for e in self.entries():
            if e.action == "parked":
                parked[e.task_id] = e
            elif e.action in ("approved", "rejected"):
                parked.pop(e.task_id, None)
        return parked
