"""DAG scheduler: starts each task the moment its dependencies are done, within the agent and role caps.

It knows nothing about how a task runs (``run_task`` is injected), nor what happens once it ran (``after_task``,
the refiner's turn: it runs while the task still holds its slot, before the outcome is recorded, so dependents
wait for it; returning a reason runs the task again in the same slot), nor about journals (``on_change``
receives every status change). Everything happens on one event loop, so the state needs no locks: the
main loop sleeps on an ``asyncio.Event`` that every state change sets, and recomputes what can start.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_args

from acteon_core.globs import scopes_overlap
from acteon_core.vocabulary import DEAD_ENDS, TaskEnd
from acteon_core.vocabulary import TaskStatus as Status

# A task's states, which of them are dead ends and which are final: acteon_core.vocabulary.

_T = TypeVar("_T")


@dataclass
class TaskSpec:
    id: str
    role: str
    priority: int = 100  # lower first
    depends_on: tuple[str, ...] = ()
    order: int = 0  # plan order, the final tie-breaker
    # Globs the task writes (acteon_core/globs.py): two tasks whose scopes overlap never run at the same time.
    write_scope: tuple[str, ...] = ()
    parked: str | None = None  # why the task must wait for a person; None: it may start when ready
    # Agents the task runs at once (a lens swarm runs several members): it takes that many of max_agents,
    # so max_agents stays a bound on live agents. Capped at max_agents.
    slots: int = 1


@dataclass
class TaskOutcome:
    status: TaskEnd
    detail: str = ""
    output: str = ""  # what the task's last agent answered (the refiner reads it)


def _ignore(task_id: str, status: Status, reason: str) -> None:
    pass


class Scheduler:
    def __init__(
        self,
        tasks: list[TaskSpec],
        *,
        max_agents: int,
        role_caps: dict[str, int],
        run_task: Callable[[TaskSpec], Awaitable[TaskOutcome]],
        on_change: Callable[[str, Status, str], None] = _ignore,
        after_task: Callable[[TaskSpec, TaskOutcome], Awaitable[str | None]] | None = None,
        initial: dict[str, Status] | None = None,
    ) -> None:
        if max_agents < 1:
            raise ValueError(f"max_agents must be at least 1, got {max_agents}")
        for role, cap in role_caps.items():
            if cap < 1:
                raise ValueError(f"role cap for {role!r} must be at least 1, got {cap}")
        self._specs: dict[str, TaskSpec] = {}
        for spec in tasks:
            if spec.id in self._specs:
                raise ValueError(f"duplicate task id {spec.id!r}")
            self._specs[spec.id] = dataclasses.replace(spec, depends_on=tuple(spec.depends_on),
                                                       slots=max(1, min(spec.slots, max_agents)))
        for spec in self._specs.values():
            for dep in spec.depends_on:
                if dep not in self._specs:
                    raise ValueError(f"task {spec.id!r} depends on unknown task {dep!r}")
        # Dependencies always precede dependents in this list, so one pass propagates blocking transitively.
        self._topo = _topological_order(self._specs)

        self._max_agents = max_agents
        self._role_caps = dict(role_caps)
        self._run_task = run_task
        self._on_change = on_change
        self._after_task = after_task

        self._wake = asyncio.Event()
        self._status: dict[str, Status] = dict.fromkeys(self._specs, "pending")
        self._reason: dict[str, str] = dict.fromkeys(self._specs, "")
        for task_id, status in (initial or {}).items():
            if task_id not in self._specs:
                raise ValueError(f"initial status given for unknown task {task_id!r}")
            if status not in get_args(Status):
                raise ValueError(f"initial status of task {task_id!r} is not a status: {status!r}")
            if status in ("running", "waiting_approval", "ready", "parked"):
                # Interrupted work is redone: the previous attempt's agent is gone. A parked task is looked at
                # again: it may have been approved meanwhile.
                self._set(task_id, "pending", f"requeued on resume (was {status})")
            else:
                self._status[task_id] = status

        self._running_total = 0
        self._running_by_role: dict[str, int] = {}
        self._running_scopes: dict[str, tuple[str, ...]] = {}  # running tasks that declared a write scope
        self.peak_running = 0
        self.peak_by_role: dict[str, int] = {}

        # Agents of running tasks that gave their slot back while they wait for a person (task id -> how many),
        # and those whose wait is over, in the order they queued to take a slot back.
        self._waiting: dict[str, int] = {}
        self._resuming: list[tuple[str, asyncio.Future[None]]] = []
        # The interruptible piece of work (run_task or after_task) each live task is awaiting.
        self._inflight: dict[str, asyncio.Future[Any]] = {}
        self._workers: set[asyncio.Task[None]] = set()
        self._worker_error: BaseException | None = None
        self._cancel_reason: str | None = None
        self._started = False

    # ----------------------------------------------------------------------------------------- queries

    @property
    def statuses(self) -> dict[str, Status]:
        return dict(self._status)

    @property
    def reasons(self) -> dict[str, str]:
        """The reason given with each task's latest status change."""
        return dict(self._reason)

    # ------------------------------------------------------------------------------------------ the loop

    async def run(self, deadline: float | None = None, now: Callable[[], float] = time.monotonic) -> dict[str, Status]:
        """Run until nothing can start and nothing runs, and return the final statuses.

        ``deadline`` is a ``now()`` value. Between state changes the loop sleeps at most until the deadline,
        taking ``now()`` differences as seconds; an injected clock is also consulted after every change.
        """
        if self._started:
            raise RuntimeError("Scheduler.run can only be called once")
        self._started = True
        try:
            while True:
                if self._worker_error is not None:
                    raise self._worker_error
                if deadline is not None and self._cancel_reason is None and now() >= deadline:
                    self.cancel("run deadline")
                # Cleared before looking at the state: any change from here on sets it again, so none is missed.
                self._wake.clear()
                self._update_pending()
                self._start_ready()
                if not self._workers:
                    return self.statuses
                timeout = None if deadline is None or self._cancel_reason else max(0.0, deadline - now())
                try:
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()
                except TimeoutError:
                    pass  # the deadline check at the top of the loop handles it
        except BaseException:
            # Our own cancellation (or a bug in a callback): never leave agents running behind us.
            self.cancel("scheduler stopped")
            if self._workers:
                await asyncio.wait(self._workers)
            raise

    def _update_pending(self) -> None:
        """Block pending tasks behind a dead end, mark those whose dependencies are all done ready."""
        for task_id in self._topo:
            if self._status[task_id] != "pending":
                continue
            deps = self._specs[task_id].depends_on
            dead = next((d for d in deps if self._status[d] in DEAD_ENDS), None)
            if dead is not None:
                self._set(task_id, "blocked", self._block_reason(dead))
            elif self._cancel_reason is None and all(self._status[d] == "done" for d in deps):
                parked = self._specs[task_id].parked
                if parked is not None:
                    self._set(task_id, "parked", parked)
                else:
                    self._set(task_id, "ready", "dependencies done")

    def _block_reason(self, dep: str) -> str:
        if self._status[dep] == "blocked":
            # Name the root cause too, so a task deep in the chain still says what went wrong.
            return f"dependency {dep} is blocked ({self._reason[dep]})"
        return f"dependency {dep} is {self._status[dep]}"

    def _start_ready(self) -> None:
        if self._cancel_reason is not None:
            return
        self._give_back_slots()
        ready = sorted(
            (self._specs[t] for t, s in self._status.items() if s == "ready"), key=lambda s: (s.priority, s.order)
        )
        free = self._max_agents - self._running_total
        if not ready or free <= 0:
            return
        chosen = self._choose(ready, free)
        for spec in chosen:
            self._start(spec)
        for spec in ready:
            if spec not in chosen and spec.write_scope:
                why = self._scope_wait(spec)
                if why and self._reason[spec.id] != why:
                    self._set(spec.id, "ready", why)

    def _give_back_slots(self) -> None:
        """Agents whose wait is over take their slots back before any ready task starts, in the order they
        queued, as long as the caps allow."""
        while self._resuming and self._running_total < self._max_agents:
            task_id, granted = self._resuming[0]
            spec = self._specs[task_id]
            whole = self._waiting.get(task_id, 0) == spec.slots  # the task's role slot was given back too
            if whole and self._running_by_role.get(spec.role, 0) >= self._role_caps.get(spec.role, self._max_agents):
                return
            self._resuming.pop(0)
            if granted.done():  # its waiter was cancelled meanwhile, and took its slot back itself
                continue
            self._take_slot_back(task_id, "resumed: a person decided")
            granted.set_result(None)

    def _take_slot_back(self, task_id: str, reason: str) -> None:
        spec = self._specs[task_id]
        if self._waiting[task_id] == spec.slots:
            self._running_by_role[spec.role] = self._running_by_role.get(spec.role, 0) + 1
            self._set(task_id, "running", reason)
        self._running_total += 1
        self.peak_running = max(self.peak_running, self._running_total)
        self._waiting[task_id] -= 1

    async def unslotted(self, task_id: str, work: Awaitable[_T], reason: str) -> _T:
        """Await ``work`` (a running task's agent waiting for a person) without holding its slot: other tasks
        may use it meanwhile, and the task is ``waiting_approval`` while all its agents wait. Then the slot is
        taken back, before any ready task starts, once one is free. The task keeps its write scope all along
        (its worktree holds unfinished work). A cancel takes the slot back at once (the task's end needs it)."""
        spec = self._specs[task_id]
        self._waiting[task_id] = self._waiting.get(task_id, 0) + 1
        self._running_total -= 1
        if self._waiting[task_id] == spec.slots:
            self._running_by_role[spec.role] -= 1
            self._set(task_id, "waiting_approval", reason)
        self._wake.set()
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            result = await work
            self._resuming.append((task_id, granted))
            self._wake.set()
            await granted
            return result
        finally:
            if not granted.done() or granted.cancelled():
                granted.cancel()
                self._take_slot_back(task_id, "stopped waiting")

    def _fits(self, spec: TaskSpec, roles: dict[str, int], scopes: dict[str, tuple[str, ...]]) -> bool:
        if roles.get(spec.role, 0) >= self._role_caps.get(spec.role, self._max_agents):
            return False
        return not spec.write_scope or all(_overlap(spec.write_scope, sc) is None for sc in scopes.values())

    def _choose(self, ready: list[TaskSpec], free: int) -> list[TaskSpec]:
        """The tasks to start now: as many as the caps and the write scopes allow (no two with overlapping
        scopes, none overlapping a running task), preferring lower priority values. Small sets are searched
        exhaustively for the largest such set (first in priority order among equals); long queues are
        filled greedily in priority order."""
        roles = dict(self._running_by_role)
        scopes = dict(self._running_scopes)
        candidates = [s for s in ready if self._fits(s, roles, scopes)]
        if len(candidates) > _EXHAUSTIVE or not any(s.write_scope for s in candidates):
            chosen: list[TaskSpec] = []
            used = 0
            for spec in candidates:
                if used + spec.slots <= free and self._fits(spec, roles, scopes):
                    chosen.append(spec)
                    used += spec.slots
                    roles[spec.role] = roles.get(spec.role, 0) + 1
                    if spec.write_scope:
                        scopes[spec.id] = spec.write_scope
            return chosen
        best: list[TaskSpec] = []

        def search(i: int, picked: list[TaskSpec], used: int) -> None:
            nonlocal best
            if len(picked) > len(best):
                best = list(picked)
            if i == len(candidates) or used == free or len(picked) + len(candidates) - i <= len(best):
                return
            spec = candidates[i]
            # With it first: priority order wins among equal sizes.
            if used + spec.slots <= free and self._fits(spec, roles, scopes):
                roles[spec.role] = roles.get(spec.role, 0) + 1
                if spec.write_scope:
                    scopes[spec.id] = spec.write_scope
                picked.append(spec)
                search(i + 1, picked, used + spec.slots)
                picked.pop()
                roles[spec.role] -= 1
                scopes.pop(spec.id, None)
            search(i + 1, picked, used)

        search(0, [], 0)
        return sorted(best, key=lambda s: (s.priority, s.order))

    def _scope_wait(self, spec: TaskSpec) -> str:
        for other, scope in self._running_scopes.items():
            hit = _overlap(spec.write_scope, scope)
            if hit is not None:
                return (f"waiting for scope: {hit[0]!r} overlaps {hit[1]!r} of running task {other} "
                        f"(both could write {hit[2]})")
        return ""

    def _start(self, spec: TaskSpec) -> None:
        self._running_total += spec.slots
        self._running_by_role[spec.role] = self._running_by_role.get(spec.role, 0) + 1
        if spec.write_scope:
            self._running_scopes[spec.id] = spec.write_scope
        self.peak_running = max(self.peak_running, self._running_total)
        self.peak_by_role[spec.role] = max(self.peak_by_role.get(spec.role, 0), self._running_by_role[spec.role])
        self._set(spec.id, "running", "started")
        worker = asyncio.create_task(self._work(spec), name=f"task {spec.id}")
        self._workers.add(worker)
        worker.add_done_callback(self._worker_done)

    def _worker_done(self, worker: asyncio.Task[None]) -> None:
        self._workers.discard(worker)
        if not worker.cancelled() and worker.exception() is not None and self._worker_error is None:
            self._worker_error = worker.exception()
        self._wake.set()

    async def _work(self, spec: TaskSpec) -> None:
        while True:
            result = await self._interruptible(spec.id, self._call_run_task(spec))
            again = await self._after(spec, result) if result is not None else None
            if again is None:
                break
            self._set(spec.id, "running", again)  # the same slot, at once
        outcome = result if result is not None else TaskOutcome("cancelled", self._cancel_reason or "cancelled")
        self._running_total -= spec.slots
        self._running_by_role[spec.role] -= 1
        self._running_scopes.pop(spec.id, None)
        self._set(spec.id, outcome.status, outcome.detail)
        self._wake.set()

    async def _after(self, spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        """The after_task hook on a finished attempt: why to run it again, or None. Its failure is reported
        and ignored (the outcome stands); a cancel interrupts it."""
        if self._after_task is None or self._cancel_reason is not None:
            return None
        try:
            return await self._interruptible(spec.id, self._after_task(spec, outcome))
        except Exception as exc:
            self._on_change(spec.id, "running", f"after_task error (ignored): {_describe(exc)}")
            return None

    async def _call_run_task(self, spec: TaskSpec) -> TaskOutcome:
        try:
            return await self._run_task(spec)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return TaskOutcome("failed", _describe(exc))

    async def _interruptible(self, task_id: str, work: Awaitable[_T]) -> _T | None:
        """Await ``work`` as its own task, so that cancel() interrupts just it; None when it was cancelled."""
        inner: asyncio.Future[_T] = asyncio.ensure_future(work)
        self._inflight[task_id] = inner
        try:
            return await inner
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if inner.cancelled() and (current is None or not current.cancelling()):
                return None  # cancel() stopped the work; the bookkeeping around it carries on
            raise
        finally:
            del self._inflight[task_id]

    def _set(self, task_id: str, status: Status, reason: str) -> None:
        self._status[task_id] = status
        self._reason[task_id] = reason
        self._on_change(task_id, status, reason)
        self._wake.set()

    # ---------------------------------------------------------------------------------- cancel and edits

    def cancel(self, reason: str) -> None:
        """Start nothing more, cancel the running work, and mark the tasks that never started cancelled."""
        if self._cancel_reason is not None:
            return
        self._cancel_reason = reason
        for task_id in self._topo:
            if self._status[task_id] in ("pending", "ready"):
                # it never ran: say so, rather than borrow a signal it never got (`cancelled (SIGTERM)`)
                self._set(task_id, "cancelled", f"never started (the run stopped: {reason})")
        for inner in self._inflight.values():
            inner.cancel()
        self._wake.set()

    def skip(self, ids: list[str], reason: str) -> None:
        """Skip pending/ready tasks; their dependents become blocked (skipping never counts as done)."""
        unique = list(dict.fromkeys(ids))
        for task_id in unique:
            self._require_editable(task_id, "skip")
        for task_id in unique:
            self._set(task_id, "skipped", reason)
        self._update_pending()

    def reprioritize(self, changes: dict[str, int]) -> None:
        for task_id in changes:
            self._require_editable(task_id, "reprioritize")
        for task_id, priority in changes.items():
            self._specs[task_id] = dataclasses.replace(self._specs[task_id], priority=priority)
        self._wake.set()

    def add_task(self, spec: TaskSpec) -> None:
        if self._cancel_reason is not None:
            raise ValueError(f"cannot add task {spec.id!r}: the run is cancelled ({self._cancel_reason})")
        if spec.id in self._specs:
            raise ValueError(f"cannot add task {spec.id!r}: the id is already in use")
        for dep in spec.depends_on:
            if dep not in self._specs:
                raise ValueError(f"cannot add task {spec.id!r}: unknown dependency {dep!r}")
            if self._status[dep] in DEAD_ENDS:
                raise ValueError(f"cannot add task {spec.id!r}: dependency {dep!r} is {self._status[dep]}")
        self._specs[spec.id] = dataclasses.replace(spec, depends_on=tuple(spec.depends_on),
                                                   slots=max(1, min(spec.slots, self._max_agents)))
        self._topo.append(spec.id)  # its dependencies already exist, so they come earlier: still topological
        self._status[spec.id] = "pending"
        self._set(spec.id, "pending", "added")

    def _require_editable(self, task_id: str, action: str) -> None:
        if task_id not in self._specs:
            raise ValueError(f"cannot {action} unknown task {task_id!r}")
        if self._status[task_id] not in ("pending", "ready"):
            raise ValueError(f"cannot {action} task {task_id!r}: it is {self._status[task_id]}, not pending")


# Up to this many startable tasks, the largest compatible set is searched for exhaustively.
_EXHAUSTIVE = 16


@functools.lru_cache(maxsize=4096)
def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, str, str] | None:
    return scopes_overlap(a, b)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _topological_order(specs: dict[str, TaskSpec]) -> list[str]:
    """Depth-first order with dependencies first; raises ValueError naming a cycle."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    for root in specs:
        if root in state:
            continue
        state[root] = 1
        path = [root]
        stack = [iter(specs[root].depends_on)]
        while stack:
            dep = next(stack[-1], None)
            if dep is None:
                stack.pop()
                done = path.pop()
                state[done] = 2
                order.append(done)
            elif state.get(dep) == 1:
                cycle = [*path[path.index(dep) :], dep]
                raise ValueError(f"dependency cycle: {' -> '.join(cycle)}")
            elif dep not in state:
                state[dep] = 1
                path.append(dep)
                stack.append(iter(specs[dep].depends_on))
    return order
