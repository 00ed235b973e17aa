"""Where memories come from: the run journals and ``<state_dir>/memory/manual.jsonl``.

Everything the index holds is derived here from validated journal lines, so deleting the index and
reading the same files again gives the same memories (same ids, texts and timestamps).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from orchestrator.events import Finding, ToolCall, ToolCompleted, line_error, now_iso
from orchestrator.memory.model import Memory
from orchestrator.rundir import RunDir

T = TypeVar("T")

MAX_TEXT = 2000  # characters of one memory's text (findings are bounded the same way when parsed)
MAX_TOPICS = 8
MAX_TOPIC_LEN = 64


class ManualFinding(Finding):
    """A finding added by a human outside any run (``memory add`` without ``--run``). A run's findings
    take their workspace from the run's plan; these carry their own."""

    workspace: str


def normalize_workspace(path: str | Path) -> str:
    """A workspace as the index stores it: absolute, symlinks resolved ("" stays unknown). A relative
    path is taken from the current directory, so compare workspaces only after this."""
    text = str(path)
    if not text:
        return ""
    return str(Path(text).expanduser().resolve())


def normalize_topics(topics: Any) -> tuple[str, ...]:
    """Topics trimmed, lower-cased, de-duplicated in order, at most :data:`MAX_TOPICS` of at most
    :data:`MAX_TOPIC_LEN` characters; empty ones and ones SQLite cannot store (lone surrogates) dropped."""
    out: list[str] = []
    for raw in topics:
        topic = " ".join(str(raw).split()).lower()[:MAX_TOPIC_LEN].strip()
        if not topic or topic in out:
            continue
        try:
            topic.encode("utf-8")
        except UnicodeEncodeError:
            continue
        out.append(topic)
        if len(out) == MAX_TOPICS:
            break
    return tuple(out)


def run_workspace(run_dir: RunDir) -> str:
    """The run's ``scope.working_directory`` from its plan.json, normalized; "" when unreadable. Read as
    plain JSON: validating the whole plan would need the roles of the config it ran with."""
    try:
        data = json.loads(run_dir.plan_file.read_text(encoding="utf-8"))
        wd = data["scope"]["working_directory"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return normalize_workspace(wd) if isinstance(wd, str) else ""


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def memory_from_event(event: Any, run_id: str, workspace: str) -> Memory | None:
    """The memory a journal event holds, if any: findings are semantic; gateway decisions and
    completion events are the episodic memories of the agent that made the call."""
    if isinstance(event, ManualFinding):
        return Memory(event.finding_id, "semantic", "", normalize_workspace(event.workspace), event.agent_id,
                      event.task_id, normalize_topics(event.topics), _clip(event.text), event.ts)
    if isinstance(event, Finding):
        return Memory(event.finding_id, "semantic", run_id, workspace, event.agent_id, event.task_id,
                      normalize_topics(event.topics), _clip(event.text), event.ts)
    if isinstance(event, ToolCall):
        text = f"{event.tool} {event.target}".rstrip() + f" -> {event.outcome}"
        if event.rule:
            text += f" (rule {event.rule})"
        if event.reason:
            text += f": {event.reason}"
        return Memory(f"{run_id}/{event.audit_id}", "episodic", run_id, workspace, event.agent_id, event.task_id,
                      normalize_topics([event.tool, event.action_type, event.outcome]), _clip(text), event.ts)
    if isinstance(event, ToolCompleted):
        text = f"{event.tool} {'succeeded' if event.ok else 'failed'}" + (f": {event.detail}" if event.detail else "")
        return Memory(f"{run_id}/evt/{event.event_id}", "episodic", run_id, workspace, event.agent_id,
                      event.task_id, normalize_topics([event.tool, "ok" if event.ok else "failed"]), _clip(text),
                      event.ts)
    return None


# --- reading journals incrementally ---------------------------------------------------------------


def parse_manual(line: bytes) -> ManualFinding:
    return ManualFinding.model_validate_json(line)


def read_lines(
    path: Path, offset: int, line_no: int, parse: Callable[[bytes], T]
) -> Iterator[tuple[T | None, int, int]]:
    """Each complete line of ``path`` after byte ``offset`` (the line before it being ``line_no``),
    parsed: ``(value or None for a blank line, end offset, its line number)``. A line still being
    written (no newline yet) is left for the next call. A bad line raises :class:`JournalError` naming
    the file and line, like :meth:`RunDir.read_events`."""
    try:
        with path.open("rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return
    end = data.rfind(b"\n")
    if end < 0:
        return
    for raw in data[: end + 1].splitlines(keepends=True):
        offset += len(raw)
        line_no += 1
        if not raw.strip():
            yield None, offset, line_no
            continue
        try:
            value = parse(raw)
        except ValidationError as e:
            raise line_error(path, line_no, e) from None
        yield value, offset, line_no


# --- manual.jsonl ---------------------------------------------------------------------------------


def manual_file(state_dir: Path) -> Path:
    return state_dir / "memory" / "manual.jsonl"


def append_manual(state_dir: Path, text: str, topics: tuple[str, ...], workspace: str) -> ManualFinding:
    """Append a human's finding to manual.jsonl (owner-only, fsync'd: like a journal, it is a source the
    index is rebuilt from). The id is random: two people adding at once must not collide."""
    path = manual_file(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        seq = sum(1 for _ in path.open("rb"))
    except FileNotFoundError:
        seq = 0
    record = ManualFinding(ts=now_iso(), seq=seq, finding_id=f"manual/{secrets.token_hex(6)}", topics=list(topics),
                           text=text, workspace=normalize_workspace(workspace))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (record.model_dump_json() + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return record
