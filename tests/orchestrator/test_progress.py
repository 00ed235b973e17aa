"""The live task table a person sees during ``acteon-swarm run`` on a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from orchestrator.show.progress import LinePrinter, LiveProgress, TaskBoard


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


def test_a_running_task_shows_what_it_waits_for_and_a_finished_task_keeps_its_reason() -> None:
    """Waiting for approval is not "started"/"running", a throttled agent does not look
    hung, and a later decision never overwrites the reason a task ended with."""
    clock = Clock()
    board = TaskBoard.for_tasks([("deploy", "executor"), ("lint", "executor")], clock=clock)
    board.update("deploy", "running", "")
    board.activity("deploy", "waiting", "deploy.deploy-1: approval apr-1: git push origin main")
    board.update("lint", "running", "")
    board.activity("lint", "throttled", "lint.lint-1: rate limit, retry in 12 s: ruff check .")
    clock.now += 30
    lines = {line.split()[0]: line for line in text_of(board).splitlines() if line.split()}
    assert "waiting" in lines["deploy"] and "apr-1: git push origin main" in lines["deploy"]
    assert "0m30s" in lines["deploy"]  # the clock keeps counting while it waits
    assert "throttled" in lines["lint"] and "retry in 12 s" in lines["lint"]
    board.activity("deploy", "running", "")
    assert board.rows["deploy"].status == "running" and board.rows["deploy"].reason == ""
    board.update("deploy", "failed", "a human rejected this call: not on a Friday")
    board.activity("deploy", "running", "")  # a late decision of the same agent
    assert board.rows["deploy"].status == "failed"
    assert board.rows["deploy"].reason == "a human rejected this call: not on a Friday"


def test_the_line_printer_says_when_a_task_starts_waiting() -> None:
    out = io.StringIO()
    printer = LinePrinter(Console(file=out, width=200, color_system=None))
    printer.activity("deploy", "waiting", "approval apr-1: git push")
    printer.activity("deploy", "running", "")
    assert out.getvalue().splitlines() == ["waiting   deploy  approval apr-1: git push"]
