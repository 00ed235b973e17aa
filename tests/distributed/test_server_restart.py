"""Acceptance 8: the Temporal server killed with SIGKILL mid-run and restarted on the same SQLite file:
the run completes and no subtask finishes twice. (Its own module: it kills its module's server.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.distributed.conftest import TemporalServer, Workers
from tests.distributed.test_executors import journal, task
from tests.distributed.test_failures import finished_once, make_ws, start_run
from tests.support import wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_a_temporal_server_killed_mid_run_comes_back_and_the_run_completes(
        temporal: TemporalServer, workers: Workers, gateway: str, tmp_path: Path) -> None:
    firsts = [task(f"t{i}", f"echo {i} >> ran-{i}.txt; sleep 4") for i in range(4)]
    ws, state, p = make_ws(tmp_path, [*firsts, task("last", "cat ran-*.txt > all.txt", [t["id"] for t in firsts])])
    workers.start("box-1", slots=4)
    workers.start("box-2", slots=4)
    proc = start_run(workers, gateway, state, p, "server-kill")
    try:
        wait_until(lambda: len(list(ws.glob("ran-*.txt"))) == 4, timeout_s=60, what="four subtasks running")
        temporal.kill()  # SIGKILL, mid-run
        temporal.start()  # the same port, the same SQLite file
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    report = json.loads(out)
    assert report["status"] == "done", err
    assert finished_once(journal(state, "server-kill")) == {f"t{i}.t{i}-1": 1 for i in range(4)} | {"last.last-1": 1}
    # Every subtask's work is there. (A server down longer than the heartbeat timeout would run an attempt
    # again, which Temporal allows and the journal shows as one finish; the restart here is quicker.)
    assert set((ws / "all.txt").read_text().split()) == {"0", "1", "2", "3"}
