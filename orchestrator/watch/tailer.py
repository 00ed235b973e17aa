"""Follow a run's gateway audit stream and completion events (docs/swarm.md).

The runner journals what :meth:`Tailer.poll` returns as ``ToolCall`` / ``ToolCompleted`` events; the
monitor and the memory read them from there. Cursors are the gateway's stream entry ids, which the
journal keeps (``audit_id`` / ``event_id``), so :meth:`Tailer.from_journal` resumes exactly after the
last one journaled and a resumed run never journals a record twice.

Which task an agent works for: the orchestrator names agents ``<task_id>.<subtask_id>``. Ids may contain
dots themselves, so the tailer prefers what it knows — agents seen in the journal's ``SubtaskStarted``
events or given to :meth:`Tailer.note_agent`, then the longest known task id prefixing the agent id —
and only then splits at the first dot.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypedDict

from orchestrator.events import SubtaskStarted, ToolCall, ToolCompleted
from orchestrator.gatewayclient import GatewayClient

MAX_TARGET = 500  # characters of a call's target kept in the journal
MAX_DETAIL = 500


class ToolCallFields(TypedDict):
    """The fields of :class:`orchestrator.rundir.ToolCall` but ``ts``/``seq``: ``record(ToolCall, **f)``."""

    audit_id: str
    agent_id: str
    task_id: str | None
    tool: str
    action_type: str
    target: str
    outcome: str
    rule: str | None
    reason: str | None
    approval_id: str | None
    decided_by: str | None
    decision_reason: str | None
    shown_sha256: str | None
    quota_warned: bool
    retry_after_ms: int | None
    at_ms: int


class CompletionFields(TypedDict):
    """The fields of :class:`orchestrator.rundir.ToolCompleted` but ``ts``/``seq``."""

    event_id: str
    agent_id: str
    task_id: str | None
    tool: str
    ok: bool
    detail: str
    at_ms: int


def _stream_order(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


Page = Callable[[str, str | None, int], Awaitable[tuple[list[dict[str, Any]], str | None]]]


def _latest(ids: Iterable[str]) -> str | None:
    return max(ids, key=_stream_order, default=None)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


class Tailer:
    """Polls the gateway for records after its cursors; one instance per run, polled by one task.

    ``task_ids``, when given, are the plan's tasks: records of agents that belong to none of them (say,
    an operator's own calls with the admin key under some other agent id) are left out. Tasks added
    during the run (refiner ADD) are announced with :meth:`add_task`. Without ``task_ids`` every record
    of the run's streams is kept — the streams are per run, and agent keys are confined to their run.
    The orchestrator's own command-engine dispatches (provider ``orchestrator``) are agent calls too and
    are kept.
    """

    def __init__(
        self,
        client: GatewayClient,
        run_id: str,
        *,
        audit_cursor: str | None = None,
        events_cursor: str | None = None,
        task_ids: Iterable[str] | None = None,
        page_size: int = 500,
        max_pages: int = 20,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.audit_cursor = audit_cursor
        self.events_cursor = events_cursor
        self.task_ids: set[str] | None = set(task_ids) if task_ids is not None else None
        self.page_size = page_size
        self.max_pages = max_pages  # per stream and poll: a long backlog is caught up over several polls
        self._agents: dict[str, str] = {}

    @classmethod
    def from_journal(
        cls, client: GatewayClient, run_id: str, events: Iterable[Any], **kwargs: Any
    ) -> Tailer:
        """A tailer resuming after the last ``audit_id`` / ``event_id`` already in the journal."""
        events = list(events)
        tailer = cls(
            client, run_id,
            audit_cursor=_latest(e.audit_id for e in events if isinstance(e, ToolCall)),
            events_cursor=_latest(e.event_id for e in events if isinstance(e, ToolCompleted)),
            **kwargs,
        )
        for e in events:
            if isinstance(e, SubtaskStarted):
                tailer.note_agent(e.agent_id, e.task_id)
        return tailer

    def note_agent(self, agent_id: str, task_id: str) -> None:
        """The runner started ``agent_id`` for ``task_id`` (removes any doubt about dotted ids)."""
        self._agents[agent_id] = task_id
        if self.task_ids is not None:
            self.task_ids.add(task_id)

    def add_task(self, task_id: str) -> None:
        if self.task_ids is not None:
            self.task_ids.add(task_id)

    def task_of(self, agent_id: str) -> str | None:
        """The task an agent works for, or None when its id says nothing about one."""
        if agent_id in self._agents:
            return self._agents[agent_id]
        if self.task_ids is not None:
            known = [t for t in self.task_ids if agent_id.startswith(t + ".")]
            return max(known, key=len, default=None)
        task, dot, _ = agent_id.partition(".")
        return task if dot and task else None

    def _belongs(self, task_id: str | None) -> bool:
        return self.task_ids is None or task_id is not None

    async def poll(self) -> tuple[list[ToolCallFields], list[CompletionFields]]:
        """Every new audit record and completion event since the last poll, oldest first. Cursors move
        only when both streams were read: a failed poll (GatewayError) loses nothing and repeats nothing."""
        records, audit_cursor = await self._read(self.client.audit_page, self.audit_cursor)
        events, events_cursor = await self._read(self.client.events_page, self.events_cursor)
        self.audit_cursor, self.events_cursor = audit_cursor, events_cursor
        calls = [c for c in (self._call(r) for r in records) if c is not None]
        done = [d for d in (self._completion(e) for e in events) if d is not None]
        return calls, done

    async def _read(self, page: Page, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
        out: list[dict[str, Any]] = []
        for _ in range(self.max_pages):
            items, nxt = await page(self.run_id, cursor, self.page_size)
            out.extend(items)
            if items:
                cursor = str(items[-1]["cursor"])
            if nxt is None:
                break
            cursor = str(nxt)
        return out, cursor

    def _call(self, rec: dict[str, Any]) -> ToolCallFields | None:
        agent = rec.get("agent_id")
        if rec.get("run_id") not in (None, self.run_id) or not isinstance(agent, str):
            return None
        task = self.task_of(agent)
        if not self._belongs(task) or rec.get("ts") is None or not rec.get("tool"):
            return None
        return ToolCallFields(
            audit_id=str(rec["cursor"]), agent_id=agent, task_id=task, tool=str(rec["tool"]),
            action_type=str(rec.get("action_type") or ""), target=str(rec.get("target") or "")[:MAX_TARGET],
            outcome=str(rec.get("outcome") or ""), rule=_text(rec.get("rule")), reason=_text(rec.get("reason")),
            approval_id=_text(rec.get("approval_id")), at_ms=int(rec["ts"]),
            decided_by=_text(rec.get("decided_by")), decision_reason=_text(rec.get("decision_reason")),
            shown_sha256=_text(rec.get("shown_sha256")), quota_warned=rec.get("quota_warned") == 1,
            retry_after_ms=int(rec["retry_after_ms"]) if isinstance(rec.get("retry_after_ms"), int) and
            rec["retry_after_ms"] > 0 else None,
        )

    def _completion(self, ev: dict[str, Any]) -> CompletionFields | None:
        agent = ev.get("agent_id")
        if ev.get("kind") not in (None, "tool_completed") or not isinstance(agent, str):
            return None
        task = self.task_of(agent)
        if not self._belongs(task) or ev.get("ts") is None or not ev.get("tool"):
            return None
        success = ev.get("success")
        return CompletionFields(
            event_id=str(ev["cursor"]), agent_id=agent, task_id=task, tool=str(ev["tool"]),
            ok=success is True or success == "true", detail=str(ev.get("error") or "")[:MAX_DETAIL],
            at_ms=int(ev["ts"]),
        )
