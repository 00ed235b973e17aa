"""The worker's record of the agent groups it runs: after a ``kill -9`` of the worker, its next start kills
the groups left behind — and only those (a recycled pid is never mistaken for an agent)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from orchestrator.process import group_alive
from tests.support import require


@pytest.fixture
def ledger_class():  # type: ignore[no-untyped-def]
    require("temporalio (pip install '.[distributed]')", importlib.util.find_spec("temporalio") is not None)
    from orchestrator.executors.temporal.activity import GroupLedger

    return GroupLedger


def agent() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "60"], start_new_session=True)


def test_a_restart_kills_the_groups_left_behind_and_forgets_them(tmp_path: Path, ledger_class) -> None:  # type: ignore[no-untyped-def]
    ledger = ledger_class(tmp_path / "w" / "agent-groups.jsonl")
    left, finished = agent(), agent()
    ledger.add(left.pid)
    ledger.add(finished.pid)
    ledger.remove(finished.pid)  # its subtask ended normally: not an orphan
    with (tmp_path / "w" / "agent-groups.jsonl").open("a") as f:
        f.write('{"pgid": 12')  # the line a kill -9 cut short
    try:
        assert ledger_class(tmp_path / "w" / "agent-groups.jsonl").reap() == [left.pid]
        left.wait(timeout=10)
        assert not group_alive(left.pid) and group_alive(finished.pid)
        assert ledger.reap() == []  # forgotten once reaped
    finally:
        for p in (left, finished):
            p.kill()
            p.wait()


def test_a_recycled_pid_is_not_killed(tmp_path: Path, ledger_class) -> None:  # type: ignore[no-untyped-def]
    someone_else = agent()
    try:
        (tmp_path / "agent-groups.jsonl").write_text(f'{{"pgid": {someone_else.pid}, "start_time": 1}}\n')
        assert ledger_class(tmp_path / "agent-groups.jsonl").reap() == []
        assert group_alive(someone_else.pid)
    finally:
        someone_else.kill()
        someone_else.wait()
