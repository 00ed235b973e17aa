"""A process an agent starts in a new session (`setsid`, a double fork) does not survive
`cancel`, nor the end of its subtask: it carries its agent's tag in its environment."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from pathlib import Path

from tests.orchestrator.test_run import cli, gw, plan, start_cli, task, write_plan  # noqa: F401 - gw: fixture
from tests.support import wait_until


def pids_of(marker: str) -> list[int]:
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def sessions(pids: list[int]) -> set[int]:
    return {int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[3]) for p in pids
            if Path(f"/proc/{p}/stat").exists()}


def test_cancel_stops_processes_that_left_the_agents_session(tmp_path: Path, gw) -> None:  # noqa: F811
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    marker = f"acteon-escape-{uuid.uuid4().hex[:8]}"
    escape = (f"setsid sh -c 'sleep 301; : {marker}' < /dev/null > /dev/null 2>&1 & "
              f"(setsid sh -c \"sh -c 'sleep 302; : {marker}' & exit\" &) ; sleep 300")
    p = write_plan(tmp_path, plan(ws, [task("a", escape)]))
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "esc", "--json", env=gw)
    try:
        wait_until(lambda: len(pids_of(marker)) == 2, timeout_s=30, what="the escaped sleepers")
        assert len(sessions(pids_of(marker))) == 2  # each in a session of its own, not the agent's group
        r = cli("cancel", "--run", "esc", "--state-dir", str(state), "--json", env=gw)
        assert r.returncode == 0, r.stderr
        wait_until(lambda: not pids_of(marker), timeout_s=10, what="the escaped processes to be gone")
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in pids_of(marker):
            subprocess.run(["kill", "-9", str(pid)])


def test_an_escaped_process_does_not_outlive_a_finished_subtask(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = f"acteon-left-{uuid.uuid4().hex[:8]}"
    leave = f"setsid sh -c 'sleep 303; : {marker}' < /dev/null > /dev/null 2>&1 &"
    p = write_plan(tmp_path, plan(ws, [task("a", leave)]))
    try:
        r = cli("run", "--plan", str(p), "--state-dir", str(tmp_path / "state"), "--json", env={"ACTEON_URL": ""})
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["status"] == "done"
        deadline = time.monotonic() + 5
        while pids_of(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids_of(marker) == []
    finally:
        for pid in pids_of(marker):
            subprocess.run(["kill", "-9", str(pid)])


def test_a_process_that_also_drops_its_environment_does_not_outlive_the_run(tmp_path: Path) -> None:
    """`env -i setsid …` leaves the group and the tag behind; the orchestrator, as the child subreaper,
    inherits the orphan and stops it when the run ends."""
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = f"acteon-bare-{uuid.uuid4().hex[:8]}"
    leave = f"env -i setsid sh -c 'sleep 305; : {marker}' < /dev/null > /dev/null 2>&1 &"
    p = write_plan(tmp_path, plan(ws, [task("a", leave)]))
    try:
        r = cli("run", "--plan", str(p), "--state-dir", str(tmp_path / "state"), "--json", env={"ACTEON_URL": ""})
        assert r.returncode == 0, r.stderr
        deadline = time.monotonic() + 5
        while pids_of(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids_of(marker) == []
    finally:
        for pid in pids_of(marker):
            subprocess.run(["kill", "-9", str(pid)])
