"""Agent processes: the whole process group goes on timeout and on cancellation, grandchildren included."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from orchestrator.process import (
    ProcResult,
    group_alive,
    is_same_process,
    kill_group,
    process_start_time,
    reap_orphan,
    run_in_group,
)

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
# The shell records its own pid (== the group id) and its background grandchild's pid, then waits.
SPAWNS_GRANDCHILD = 'echo $$ > leader.pid; sleep 300 & echo $! > grandchild.pid; sleep 300'


def gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for init to reap it: it can run nothing any more."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def read_pid(path: Path) -> int | None:
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text else None


async def wait_for_pid(path: Path) -> int:
    """Waits for the shell to write a pid file (a few milliseconds after it starts)."""
    for _ in range(500):
        pid = read_pid(path)
        if pid is not None:
            return pid
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never written")


async def run(tmp_path: Path, script: str, *, env: dict[str, str] = ENV, timeout_s: float | None,
              grace_s: float = 2.0, stdin: bytes | None = None) -> ProcResult:
    return await run_in_group(["sh", "-c", script], cwd=tmp_path, env=env, stdout_path=tmp_path / "out" / "stdout",
                              stderr_path=tmp_path / "out" / "stderr", timeout_s=timeout_s, grace_s=grace_s,
                              stdin=stdin)


async def test_output_exit_code_stdin_env_and_cwd(tmp_path: Path) -> None:
    result = await run(tmp_path, 'cat; echo " $FOO $(pwd)"; echo oops >&2; exit 3', stdin=b"fed",
                       timeout_s=10, env={**ENV, "FOO": "bar"})
    assert (result.returncode, result.timed_out, result.cancelled) == (3, False, False)
    assert result.stdout_path.read_text() == f"fed bar {tmp_path}\n"
    assert result.stderr_path.read_text() == "oops\n"
    assert result.duration_s < 5


async def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await run(tmp_path, SPAWNS_GRANDCHILD, timeout_s=0.5, grace_s=1.0)
    assert result.timed_out and result.returncode is not None and result.returncode < 0
    assert time.monotonic() - started < 3
    leader, grandchild = int((tmp_path / "leader.pid").read_text()), int((tmp_path / "grandchild.pid").read_text())
    assert not group_alive(leader)
    assert gone(leader) and gone(grandchild)


async def test_a_group_that_ignores_sigterm_gets_sigkill_after_the_grace(tmp_path: Path) -> None:
    started = time.monotonic()
    # An ignored signal stays ignored across fork and exec, so the grandchild ignores SIGTERM too.
    result = await run(tmp_path, f"trap '' TERM; {SPAWNS_GRANDCHILD}", timeout_s=0.3, grace_s=0.3)
    assert result.timed_out and result.returncode == -9
    assert 0.6 <= time.monotonic() - started < 3
    assert gone(int((tmp_path / "grandchild.pid").read_text()))


async def test_cancellation_kills_the_group_and_is_re_raised(tmp_path: Path) -> None:
    task = asyncio.create_task(run(tmp_path, SPAWNS_GRANDCHILD, timeout_s=None, grace_s=1.0))
    leader = await wait_for_pid(tmp_path / "leader.pid")
    grandchild = await wait_for_pid(tmp_path / "grandchild.pid")
    assert group_alive(leader)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not group_alive(leader)
    assert gone(leader) and gone(grandchild)


async def test_processes_left_behind_after_a_normal_exit_are_stopped(tmp_path: Path) -> None:
    result = await run(tmp_path, "sleep 300 & echo $! > grandchild.pid; exit 0", timeout_s=10, grace_s=1.0)
    assert (result.returncode, result.timed_out) == (0, False)
    assert gone(int((tmp_path / "grandchild.pid").read_text()))


async def test_a_missing_program_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await run_in_group(["/nonexistent/agent"], cwd=tmp_path, env=ENV, stdout_path=tmp_path / "o",
                           stderr_path=tmp_path / "e", timeout_s=1)


def test_kill_group_stops_a_group_synchronously() -> None:
    child = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"], start_new_session=True)
    try:
        assert group_alive(child.pid)
        kill_group(child.pid, grace_s=1.0)
        assert child.wait(timeout=5) < 0
        assert not group_alive(child.pid)
        kill_group(child.pid, grace_s=0.1)  # a group that is already gone is not an error
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_is_same_process_checks_the_start_time() -> None:
    me = os.getpid()
    start = process_start_time(me)
    assert start is not None and start > 0
    assert is_same_process(me, start)
    assert not is_same_process(me, start + 1)  # what a recycled pid looks like

    dead = subprocess.Popen(["true"])
    dead.wait()
    assert process_start_time(dead.pid) is None
    assert not is_same_process(dead.pid, start)


def test_a_zombie_is_not_the_same_process() -> None:
    child = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    start = process_start_time(child.pid)
    assert child.stdin is not None
    child.stdin.close()  # cat exits; until we wait() for it, it is a zombie
    for _ in range(500):
        if gone(child.pid):
            break
        time.sleep(0.01)
    try:
        assert start is not None and process_start_time(child.pid) == start
        assert not is_same_process(child.pid, start)
    finally:
        child.wait()


def test_reap_orphan_kills_a_recorded_group_but_never_a_recycled_pid() -> None:
    child = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"], start_new_session=True)
    try:
        start = process_start_time(child.pid)
        assert start is not None
        # A different start time is what a recycled pid looks like: it is someone else's process.
        assert not reap_orphan(child.pid, start + 1)
        assert group_alive(child.pid)
        assert reap_orphan(child.pid, start)
        assert not group_alive(child.pid)
        assert not reap_orphan(child.pid, start)  # already gone: nothing to do
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


async def test_on_start_gets_the_group_id_while_the_agent_runs(tmp_path: Path) -> None:
    seen: list[int] = []
    result = await run_in_group(["sh", "-c", "echo $$ > me.pid"], cwd=tmp_path, env=ENV,
                                stdout_path=tmp_path / "out", stderr_path=tmp_path / "err", timeout_s=10,
                                on_start=seen.append)
    assert result.returncode == 0
    assert seen == [int((tmp_path / "me.pid").read_text())]
