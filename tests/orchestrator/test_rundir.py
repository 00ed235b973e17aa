"""The run directory: an append-only, validated journal; atomic run.json and checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator import events as E
from orchestrator import rundir as R


def test_journal_round_trip_and_replay(tmp_path: Path) -> None:
    rd = R.RunDir(tmp_path, "r1")
    rd.create()
    rd.record(E.RunStarted, run_id="r1", plan_id="p", engine="command", pid=1)
    rd.record(E.TaskStatusChanged, task_id="a", status="running")
    rd.record(E.TaskStatusChanged, task_id="b", status="running")
    rd.record(E.TaskStatusChanged, task_id="a", status="done")
    rd.record(E.SubtaskFinished, task_id="a", subtask_id="s", agent_id="a.s", ok=True, duration_s=0.5)
    events = rd.read_events()
    assert [e.seq for e in events] == [0, 1, 2, 3, 4]
    assert rd.task_statuses() == {"a": "done", "b": "running"}
    # a new writer continues the sequence (resume after a crash)
    again = R.RunDir(tmp_path, "r1")
    again.record(E.RunFinished, status="done")
    assert again.read_events()[-1].seq == 5


@pytest.mark.parametrize("bad", [
    "not json at all",
    '{"type": "task_status", "ts": "x", "seq": 1, "task_id": "a", "status": "exploded"}',
    '{"type": "mystery", "ts": "x", "seq": 1}',
    '{"type": "task_status", "ts": "x", "seq": 1, "task_id": "a", "status": "done", "extra": 1}',
])
def test_a_bad_journal_line_is_an_error_naming_its_line(tmp_path: Path, bad: str) -> None:
    rd = R.RunDir(tmp_path, "r1")
    rd.create()
    rd.record(E.TaskStatusChanged, task_id="a", status="running")
    with rd.journal_file.open("a") as f:
        f.write(bad + "\n")
    with pytest.raises(E.JournalError, match=r"events\.jsonl:2: "):
        rd.read_events()


def test_run_file_and_checkpoint_are_written_whole(tmp_path: Path) -> None:
    rd = R.RunDir(tmp_path, "r1")
    rd.create()
    rd.write_run(pid=42, status="running")
    rd.write_run(status="done")
    assert rd.read_run() == {"run_id": "r1", "pid": 42, "status": "done"}
    rd.write_checkpoint({"a": "done"})
    assert json.loads(rd.checkpoint_file.read_text())["tasks"] == {"a": "done"}
    assert not list(rd.path.glob(".*"))  # no temp files left behind
    assert oct(rd.path.stat().st_mode & 0o777) == "0o700"


def test_list_runs_newest_first(tmp_path: Path) -> None:
    import os

    for i, name in enumerate(["old", "new"]):
        rd = R.RunDir(tmp_path, name)
        rd.create()
        rd.write_run(status="done")
        os.utime(rd.run_file, (1000 + i, 1000 + i))
    assert [r.run_id for r in R.list_runs(tmp_path)] == ["new", "old"]
