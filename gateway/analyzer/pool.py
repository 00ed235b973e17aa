"""The worker's side: a few analysis children, a deadline per command, a cache in front.

Children are plain subprocesses talking frames over pipes (``wire.py``), not a
``ProcessPoolExecutor``: that pool cannot kill one runaway task, and one crashed child breaks it for
good. Here a child that overruns its deadline is killed and replaced, and only the call that sent it
learns about it. The pool is synchronous and thread-safe; ``afacts`` runs it on a thread so the event
loop keeps serving (health probes, other agents) while a command is analysed.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gateway.analyzer.wire import HEADER, MAX_FRAME, facts_from_wire, request
from gateway.normalize import Facts, command_facts, unparseable_facts
from gateway.shell.analysis import Attached
from gateway.shell.limits import ANALYSIS_MEMORY_BYTES, ANALYSIS_TIMEOUT_S, prescan

_CACHE_ENTRIES = 4096
_CACHE_MAX_COMMAND = 4096  # longer commands are rare and would make the cache's memory unbounded
_CACHE_MAX_FILES = 16384  # attached programs (acteon_core/attachments.py) kept with a cached verdict, at most
_SOURCE_ROOT = str(Path(__file__).resolve().parent.parent.parent)


class _Failure(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Child:
    """One analysis process. Not thread-safe: the pool lends it to one thread at a time."""

    def __init__(self, argv: list[str]) -> None:
        # The child gets no secrets: not the admin key, not the store's address (a parser exploit
        # would find nothing to steal), only what Python needs to import the gateway.
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": _SOURCE_ROOT, "LC_ALL": "C.UTF-8"}
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            bufsize=0, close_fds=True, env=env,
        )
        self.ready = False

    def ask(self, body: bytes, timeout_s: float, start_timeout_s: float) -> bytes:
        if not self.ready:  # start-up (imports) is not the command's fault: its own, longer deadline
            started = self._read(time.monotonic() + start_timeout_s, "analysis process did not start in time")
            if started != b"ready":
                raise _Failure("analysis process answered garbage")
            self.ready = True
        assert self.proc.stdin is not None
        data = HEADER.pack(len(body)) + body
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.proc.stdin.fileno(), view):]
        except OSError:
            raise self._died() from None
        return self._read(time.monotonic() + timeout_s, f"analysis took longer than {round(timeout_s * 1000)} ms")

    def _read(self, deadline: float, overdue: str) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        need = HEADER.size
        size: int | None = None
        while len(buf) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise _Failure(overdue)
            chunk = os.read(fd, max(need - len(buf), 65536))
            if not chunk:
                raise self._died()
            buf += chunk
            if size is None and len(buf) >= HEADER.size:
                (size,) = HEADER.unpack_from(buf)
                if size > MAX_FRAME:
                    raise _Failure("analysis process answered garbage")
                need = HEADER.size + size
        return bytes(buf[HEADER.size:need])

    def _died(self) -> _Failure:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return _Failure("analysis process stopped answering")
        if code < 0:
            return _Failure(f"analysis crashed ({signal.Signals(-code).name})")
        return _Failure(f"analysis process exited ({code})")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored; bounded anyway
            self.proc.wait(timeout=5.0)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


@dataclass
class AnalyzerStats:
    analysed: int = 0  # commands sent to a child
    cached: int = 0
    failures: int = 0  # timeouts, crashes, out-of-memory: each cost one child
    respawns: int = 0


class Analyzer:
    """Shell analysis for one gateway worker. ``facts`` blocks; ``afacts`` awaits it on a thread."""

    def __init__(
        self,
        size: int = 2,
        *,
        timeout_s: float = ANALYSIS_TIMEOUT_S,
        memory_bytes: int = ANALYSIS_MEMORY_BYTES,
        start_timeout_s: float = 30.0,
        child: list[str] | None = None,
    ) -> None:
        """``child``: the command line of a child (tests put a misbehaving one here)."""
        self.size = size
        self.timeout_s = timeout_s
        self.memory_bytes = memory_bytes
        self.start_timeout_s = start_timeout_s
        self.child = child or [sys.executable, "-m", "gateway.analyzer.child", str(memory_bytes)]
        self.stats = AnalyzerStats()
        self._idle: queue.LifoQueue[_Child] = queue.LifoQueue()  # LIFO: the warmest child first
        self._children: set[_Child] = set()
        self._lock = threading.Lock()
        self._cache: collections.OrderedDict[tuple[str, str | None, str, tuple[str, ...], Attached], Facts] = (
            collections.OrderedDict()
        )
        self._started = False
        self._closed = False

    def start(self) -> None:
        """Start the children now (they import the parser in parallel with the caller's start-up)."""
        with self._lock:
            if self._started or self._closed:
                return
            self._started = True
            for _ in range(self.size):
                self._idle.put(self._spawn_locked())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            children, self._children = list(self._children), set()
        for child in children:
            child.kill()

    def cached(self, command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
               files: Attached = ()) -> Facts | None:
        key = (command, workdir, home, secret_paths, files)
        with self._lock:
            facts = self._cache.get(key)
            if facts is not None:
                self._cache.move_to_end(key)
                self.stats.cached += 1
        return facts

    async def afacts(self, command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
                     files: Attached = ()) -> Facts:
        facts = self.cached(command, workdir, home, secret_paths, files)
        if facts is not None:
            return facts
        return await asyncio.to_thread(self.facts, command, workdir, home, secret_paths, files)

    def facts(self, command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
              files: Attached = ()) -> Facts:
        """The facts of one command. Never raises: every failure is an unparseable verdict."""
        facts = self.cached(command, workdir, home, secret_paths, files)
        if facts is not None:
            return facts
        if prescan(command) is not None:
            # Over a limit before any parsing: the verdict costs a few string scans, no child needed.
            return command_facts(command, workdir, home, secret_paths)
        self.start()
        facts = self._in_child(command, workdir, home, secret_paths, files)
        if len(command) <= _CACHE_MAX_COMMAND and sum(len(t or "") for _, t in files) <= _CACHE_MAX_FILES:
            # Failures are cached too: an agent repeating a parser-killing command costs one child.
            with self._lock:
                self._cache[(command, workdir, home, secret_paths, files)] = facts
                if len(self._cache) > _CACHE_ENTRIES:
                    self._cache.popitem(last=False)
        return facts

    def _in_child(self, command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
                  files: Attached) -> Facts:
        try:
            child = self._idle.get(timeout=self.start_timeout_s)
        except queue.Empty:
            return unparseable_facts(command, "no analysis process is available")
        try:
            answer = child.ask(request(command, workdir, home, secret_paths, files), self.timeout_s,
                               self.start_timeout_s)
            facts = facts_from_wire(answer)
        except _Failure as failure:
            self._replace(child)
            return unparseable_facts(command, failure.reason)
        except Exception:  # a malformed answer is a broken child, not an allow
            self._replace(child)
            return unparseable_facts(command, "analysis process answered garbage")
        with self._lock:
            self.stats.analysed += 1
        if child.proc.poll() is not None:  # it answered and exited (out of memory): start afresh
            self._replace(child)
        else:
            self._idle.put(child)
        return facts

    def _replace(self, child: _Child) -> None:
        child.kill()
        with self._lock:
            self._children.discard(child)
            self.stats.failures += 1
            if self._closed:
                return
            self.stats.respawns += 1
            fresh = self._spawn_locked()
        self._idle.put(fresh)

    def _spawn_locked(self) -> _Child:
        child = _Child(self.child)
        self._children.add(child)
        return child


_shared: Analyzer | None = None
_shared_lock = threading.Lock()


def shared_analyzer() -> Analyzer:
    """This process's analyzer: one per gateway worker, shared by every app the process builds."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Analyzer()
            atexit.register(_shared.close)
        return _shared
