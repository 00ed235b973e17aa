"""Agent processes, each in its own session, so that one signal to the process group reaches everything an
agent started (shells, test runners, background jobs) and not just the process we spawned.

A process can leave the group (`setsid`, a double fork into a new session); it still carries the
environment it was started with. So every agent process gets a random tag in its environment
(``ACTEON_PROCESS_TAG``), and stopping an agent also stops every process that carries its tag. One that
also throws its environment away (`env -i setsid …`) is caught by the orchestrator being a *child
subreaper* (Linux ``prctl``): orphans reparent to it instead of init, and whatever is still its child when
the run ends is stopped (:func:`stop_orphans`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_POLL_S = 0.02  # how often to look whether a signalled group is gone
_KILL_WAIT_S = 2.0  # bound on waiting for SIGKILLed processes to die (only a process stuck in the kernel takes long)
TAG_VARIABLE = "ACTEON_PROCESS_TAG"


@dataclass
class ProcResult:
    returncode: int | None
    timed_out: bool
    # run_in_group re-raises CancelledError instead of returning, so this is False in its results; it is here
    # for callers that record a result for an agent they cancelled.
    cancelled: bool
    stdout_path: Path
    stderr_path: Path
    duration_s: float


async def run_in_group(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stdout_path: Path,
    stderr_path: Path,
    timeout_s: float | None,
    stdin: bytes | None = None,
    grace_s: float = 2.0,
    on_start: Callable[[int], None] | None = None,
) -> ProcResult:
    """Run ``argv`` in a new session with its output in files and wait for it.

    On timeout or cancellation the whole process group gets SIGTERM, then SIGKILL after ``grace_s``, and the
    child is always reaped; a cancellation is re-raised afterwards. Processes the child left behind in its
    group after a normal exit are stopped the same way, so no agent outlives its subtask. ``on_start`` gets
    the child's pid (= its process group id) as soon as it exists, so a caller can journal it.
    """
    started = time.monotonic()
    tag = secrets.token_hex(8)
    env = {**env, TAG_VARIABLE: tag}
    stdout_path.parent.mkdir(parents=True, exist_ok=True)
    stderr_path.parent.mkdir(parents=True, exist_ok=True)
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    # The child has its own copies of the file descriptors; ours are closed above.
    timed_out = False
    try:
        if on_start is not None:
            on_start(proc.pid)
        try:
            async with asyncio.timeout(timeout_s):
                await proc.communicate(stdin)
        except TimeoutError:
            timed_out = True
    finally:
        # Shielded: a second cancellation while we clean up must not leave the group running.
        await asyncio.shield(asyncio.ensure_future(_stop_group(proc, grace_s)))
        await asyncio.shield(asyncio.ensure_future(asyncio.to_thread(kill_tagged, tag, grace_s)))
    return ProcResult(
        returncode=proc.returncode,
        timed_out=timed_out,
        cancelled=False,
        stdout_path=stdout_path,
        stderr_path=stderr_path,
        duration_s=time.monotonic() - started,
    )


async def _stop_group(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    pgid = proc.pid  # start_new_session: the child leads its own group
    if proc.returncode is not None and not group_alive(pgid):
        return  # the usual case: it exited and left nothing behind
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), grace_s)
    await _group_exit(pgid, deadline - time.monotonic())
    _signal_group(pgid, signal.SIGKILL)
    await proc.wait()
    # SIGKILL is delivered asynchronously: wait until the rest of the group has actually died too, so that
    # when we return nothing of the agent runs any more.
    await _group_exit(pgid, _KILL_WAIT_S)


async def _group_exit(pgid: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    # Nothing signals the exit of a process we did not spawn, so the group is polled.
    while group_alive(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(_POLL_S)


_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux); False where that is not possible."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def foreign_children() -> list[int]:
    """Live children of this process in another session than ours. Agents run in sessions of their own, so
    their orphans (reparented here) are in another session; this process's own helpers (an embedded
    gateway's analysis workers) share its session and are left alone."""
    parent, session = os.getpid(), os.getsid(0)
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _read_stat(int(entry.name))
            if (fields is not None and int(fields[4 - 3]) == parent and fields[0] not in ("Z", "X")
                    and int(fields[6 - 3]) != session):
                found.append(int(entry.name))
    return found


def stop_orphans(grace_s: float = 2.0) -> int:
    """SIGTERM, then SIGKILL, the agents' orphans still alive at the end of a run (reparented here as the
    subreaper; see :func:`foreign_children`), then reap them. Returns how many there were."""
    pids = _terminate(foreign_children, grace_s)
    for pid in pids:  # reap exactly those (waitpid(-1) could take a child someone else waits for)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    return len(pids)


def _terminate(find: Callable[[], list[int]], grace_s: float) -> list[int]:
    """SIGTERM what ``find`` finds, SIGKILL what it still finds after ``grace_s``; returns the first finding."""
    pids = find()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    left = pids
    while left and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        left = find()
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return pids


def tagged(tag: str) -> list[int]:
    """Live processes (of ours: others' environments are unreadable) started with this agent tag."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            fields = _read_stat(int(entry.name))
            if fields is not None and fields[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def kill_tagged(tag: str, grace_s: float = 2.0) -> int:
    """SIGTERM, then after ``grace_s`` SIGKILL, every process carrying the tag (those that left the agent's
    process group with `setsid` or a double fork). Returns how many there were."""
    return len(_terminate(lambda: tagged(tag), grace_s))


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _read_stat(pid: int) -> list[str] | None:
    """Fields 3 onwards of /proc/<pid>/stat (index 0 is field 3, the state), or None if the pid is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # Field 2 is the command name in parentheses and may itself contain spaces and ')'.
    return text[text.rindex(")") + 2 :].split()


def process_start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); None if gone."""
    fields = _read_stat(pid)
    return int(fields[22 - 3]) if fields is not None else None


def is_same_process(pid: int, start_time: int) -> bool:
    """True if ``pid`` is alive and started at ``start_time``: a recycled pid has another start time."""
    fields = _read_stat(pid)
    return fields is not None and fields[0] not in ("Z", "X") and int(fields[22 - 3]) == start_time


def kill_group(pgid: int, grace_s: float = 2.0) -> None:
    """SIGTERM the group, then SIGKILL it once it outlives ``grace_s``. Blocks: for synchronous callers."""
    _signal_group(pgid, signal.SIGTERM)
    _wait_group_exit(pgid, grace_s)
    _signal_group(pgid, signal.SIGKILL)
    _wait_group_exit(pgid, _KILL_WAIT_S)  # SIGKILL is delivered asynchronously


def _wait_group_exit(pgid: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(_POLL_S)


def reap_orphan(pgid: int, leader_start_time: int | None) -> bool:
    """Kill what is left of an agent's process group after its orchestrator died (``kill -9``); True if
    anything was killed. The group must still be ours: its leader alive with the recorded start time, or,
    with the leader gone, every member started no earlier than the leader did (a recycled pid would have
    been reused by a newer leader, which would be alive and fail the first check)."""
    if not group_alive(pgid):
        return False
    leader = _read_stat(pgid)
    if leader is not None and leader[0] not in ("Z", "X"):
        if leader_start_time is None or int(leader[22 - 3]) != leader_start_time:
            return False  # the pid was recycled: not our agent
    elif leader_start_time is not None:
        starts = _group_start_times(pgid)
        if not starts or min(starts) < leader_start_time:
            return False
    kill_group(pgid)
    return True


def _group_start_times(pgid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _read_stat(int(entry.name))
            if fields is not None and int(fields[5 - 3]) == pgid and fields[0] not in ("Z", "X"):
                out.append(int(fields[22 - 3]))
    return out


def group_alive(pgid: int) -> bool:
    """True while the process group has a member that is not a zombie.

    ``os.killpg(pgid, 0)`` also succeeds for a group of zombies, which linger until whoever inherited them
    reaps them (an init that reaps lazily takes about a second); they can no longer do anything, so they
    do not count.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, and belongs to someone else
    states = _group_states(pgid)
    return states is None or any(state not in ("Z", "X") for state in states)


def _group_states(pgid: int) -> list[str] | None:
    """The state letters of the group's members, or None without a /proc to read them from."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    states = []
    for entry in proc.iterdir():
        if entry.name.isdigit():
            fields = _read_stat(int(entry.name))
            if fields is not None and int(fields[5 - 3]) == pgid:
                states.append(fields[0])
    return states
