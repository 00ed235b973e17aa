"""What a person watching ``acteon-swarm run`` sees: a live table of the plan's tasks on a terminal, one line
per status change anywhere else (a log file or a CI console gets no cursor tricks)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

COLOURS = {"done": "green", "running": "cyan", "failed": "red", "blocked": "red", "cancelled": "red",
           "skipped": "yellow", "ready": "white", "pending": "dim", "waiting": "magenta", "throttled": "yellow"}
# What a running task's agent may be doing besides running: shown in place of "running" until it runs again.
ACTIVITIES = ("waiting", "throttled")


class Progress(Protocol):
    """What the runner reports to: task status changes, what a running task waits for, run-level notes."""

    def __call__(self, task_id: str, status: str, reason: str) -> None: ...

    def activity(self, task_id: str, shown: str, detail: str) -> None: ...

    def note(self, text: str) -> None: ...


@dataclass
class _Row:
    role: str
    status: str = "pending"
    reason: str = ""
    started: float | None = None
    ended: float | None = None


@dataclass
class TaskBoard:
    """The tasks' current statuses and timings; ``render`` draws them. The clock is injectable for tests."""

    rows: dict[str, _Row] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def for_tasks(cls, tasks: list[tuple[str, str]], clock: Callable[[], float] = time.monotonic) -> TaskBoard:
        return cls(rows={tid: _Row(role) for tid, role in tasks}, clock=clock, started=clock())

    def update(self, task_id: str, status: str, reason: str) -> None:
        row = self.rows.setdefault(task_id, _Row(role="?"))  # a task the refiner added
        now = self.clock()
        if status == "running" and row.status not in ("running", *ACTIVITIES):
            row.started, row.ended = now, None
        elif status not in ("pending", "ready", "running") and row.started is not None and row.ended is None:
            row.ended = now
        row.status, row.reason = status, reason

    def activity(self, task_id: str, shown: str, detail: str) -> None:
        """A running task waits for a human or a throttle (``shown``: waiting/throttled), or runs again. Only a
        running task changes: a finished task's status and its last reason are kept."""
        row = self.rows.get(task_id)
        if row is None or row.status not in ("running", *ACTIVITIES):
            return
        row.status = shown
        row.reason = detail if shown in ACTIVITIES else ""

    def note(self, text: str) -> None:
        """A run-level line under the table (an alert, a refiner decision); the last few are kept."""
        self.notes = [*self.notes[-4:], text]

    def render(self) -> Group:
        now = self.clock()
        counts: dict[str, int] = {}
        table = Table(box=None, pad_edge=False, header_style="bold")
        for col in ("task", "role", "status", "time", "detail"):
            table.add_column(col, no_wrap=col != "detail", overflow="ellipsis")
        for tid, row in self.rows.items():
            counts[row.status] = counts.get(row.status, 0) + 1
            elapsed = "" if row.started is None else _duration((row.ended or now) - row.started)
            table.add_row(tid, row.role, Text(row.status, style=COLOURS.get(row.status, "white")), elapsed,
                          Text(row.reason[:120], style="dim"))
        summary = " · ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        parts: list[Any] = [Text(f"{_duration(now - self.started)}  {summary}", style="bold"), table]
        parts += [Text(n, style="yellow") for n in self.notes]
        return Group(*parts)


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s"


class LiveProgress:
    """The board redrawn in place on a terminal (rich Live, four refreshes a second for the clocks)."""

    def __init__(self, board: TaskBoard, console: Console) -> None:
        self.board = board
        self._live = Live(get_renderable=board.render, console=console, refresh_per_second=4, transient=False)

    def __call__(self, task_id: str, status: str, reason: str) -> None:
        self.board.update(task_id, status, reason)

    def activity(self, task_id: str, shown: str, detail: str) -> None:
        self.board.activity(task_id, shown, detail)

    def note(self, text: str) -> None:
        self.board.note(text)

    def __enter__(self) -> LiveProgress:
        self._live.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._live.stop()


class LinePrinter:
    """One line per status change (no cursor movement): for logs and pipes."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, task_id: str, status: str, reason: str) -> None:
        if status in ("ready", "pending"):
            return
        colour = COLOURS.get(status, "white")
        self.console.print(f"[{colour}]{status:<9}[/] {task_id}" + (f"  [dim]{reason}[/]" if reason else ""),
                           highlight=False)

    def activity(self, task_id: str, shown: str, detail: str) -> None:
        if shown in ACTIVITIES:  # a line when a task starts waiting; running again shows in the next change
            self(task_id, shown, detail)

    def note(self, text: str) -> None:
        self.console.print(f"[yellow]{text}[/]", highlight=False)
