"""The two value types of the memory: a memory row and a ranked search hit (re-exported by ``store``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["semantic", "episodic"]
KINDS: tuple[Kind, ...] = ("semantic", "episodic")


@dataclass(frozen=True)
class Memory:
    """One memory. ``id`` is unique across the whole state directory: a finding's ``finding_id``,
    ``<run>/<audit_id>`` for a gateway decision, ``<run>/evt/<event_id>`` for a completion event.
    ``workspace`` is the run's working directory, resolved absolute ("" when unknown); ``run_id`` is
    "" for findings added by a human outside any run; ``created`` is the journal timestamp."""

    id: str
    kind: Kind
    run_id: str
    workspace: str
    agent_id: str | None
    task_id: str | None
    topics: tuple[str, ...]
    text: str
    created: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "run_id": self.run_id, "workspace": self.workspace,
                "agent_id": self.agent_id, "task_id": self.task_id, "topics": list(self.topics),
                "text": self.text, "created": self.created}


@dataclass(frozen=True)
class Hit:
    """A search result; ``score`` is the negated bm25 rank: higher is more relevant. Scores of one
    store are comparable across searches (bm25 statistics are over the whole index, not the filter)."""

    memory: Memory
    score: float

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, **self.memory.as_dict()}
