"""The live task table a person sees during ``acteon-swarm run`` on a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from orchestrator.progress import LinePrinter, LiveProgress, TaskBoard


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def text_of(board: TaskBoard) -> str:
    console = Console(file=io.StringIO(), width=140, record=True, color_system=None)
    console.print(board.render())
    return console.export_text()


def test_the_board_shows_each_task_its_status_and_how_long_it_ran() -> None:
    clock = Clock()
    board = TaskBoard.for_tasks([("build", "coder"), ("test", "executor"), ("docs", "coder")], clock=clock)
    board.update("build", "running", "")
    clock.now += 75
    board.update("build", "done", "")
    board.update("test", "running", "")
    clock.now += 5
    board.update("docs", "blocked", "dependency 'x' failed")
    out = text_of(board)
    lines = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "done" in lines["build"] and "1m15s" in lines["build"]  # frozen when it finished
    assert "running" in lines["test"] and "0m05s" in lines["test"]  # still counting
    assert "blocked" in lines["docs"] and "dependency 'x' failed" in lines["docs"]
    assert out.splitlines()[0].startswith("1m20s") and "1 blocked · 1 done · 1 running" in out


def test_tasks_added_during_the_run_and_notes_appear() -> None:
    board = TaskBoard.for_tasks([("a", "coder")], clock=Clock())
    board.update("a-r1", "ready", "")  # the refiner added it
    for i in range(7):
        board.note(f"alert {i}")
    out = text_of(board)
    assert "a-r1" in out
    assert "alert 6" in out and "alert 2" in out and "alert 1" not in out  # only the last five notes


def test_the_live_display_and_the_line_printer_both_take_updates() -> None:
    sink = io.StringIO()
    console = Console(file=sink, width=100, force_terminal=True, color_system=None)
    board = TaskBoard.for_tasks([("a", "coder")])
    with LiveProgress(board, console) as live:
        live("a", "running", "")
        live.note("monitor: stuck agent a.1")
    assert board.rows["a"].status == "running" and board.notes == ["monitor: stuck agent a.1"]
    assert "running" in sink.getvalue()

    lines = io.StringIO()
    printer = LinePrinter(Console(file=lines, width=100, color_system=None))
    printer("a", "ready", "")  # not worth a line
    printer("a", "failed", "exit 1")
    assert lines.getvalue().split() == ["failed", "a", "exit", "1"]
