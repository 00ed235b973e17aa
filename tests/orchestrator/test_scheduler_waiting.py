"""A running task's agent that waits for a person gives its slot back (``Scheduler.unslotted``): other tasks run
meanwhile, never more agents than max_agents, and the waiting one takes a slot back before any ready task."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec
from tests.orchestrator.test_scheduler import until


class Waiting:
    """Tasks that, when told to (``asks``), wait for a person (``decided``) without their slot, then work until
    the test opens their gate. Counts live agents: a waiting agent is not live."""

    def __init__(self, tasks: list[TaskSpec], *, max_agents: int, asks: set[str]) -> None:
        self.asks = asks
        self.decided: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.gates: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.live: set[str] = set()
        self.peak = 0
        self.order: list[str] = []  # agents becoming live, in order
        self.journal: list[tuple[str, str, str]] = []
        self.max_agents = max_agents
        self.scheduler = Scheduler(tasks, max_agents=max_agents, role_caps={}, run_task=self.run_task,
                                   on_change=lambda i, s, r: self.journal.append((i, s, r)))

    def _live(self, task_id: str) -> None:
        self.live.add(task_id)
        self.order.append(task_id)
        self.peak = max(self.peak, len(self.live))

    async def run_task(self, spec: TaskSpec) -> TaskOutcome:
        self._live(spec.id)
        if spec.id in self.asks:
            self.live.discard(spec.id)
            await self.scheduler.unslotted(spec.id, self.decided[spec.id].wait(), "waiting for approval apr-1")
            self._live(spec.id)
        try:
            await self.gates[spec.id].wait()
        finally:
            self.live.discard(spec.id)
        return TaskOutcome("done", "ok")

    def status(self, task_id: str) -> str:
        return self.scheduler.statuses[task_id]


async def test_a_waiting_task_frees_its_slot_and_takes_one_back_before_ready_tasks() -> None:
    tasks = [TaskSpec("a", "coder", order=0), TaskSpec("b", "coder", order=1), TaskSpec("c", "coder", order=2)]
    h = Waiting(tasks, max_agents=1, asks={"a"})
    run = asyncio.create_task(h.scheduler.run())
    await until(lambda: h.status("a") == "waiting_approval", "a waits")
    await until(lambda: "b" in h.live, "b uses the slot a gave back")
    assert h.status("c") == "ready"  # one slot: c waits for it
    h.decided["a"].set()  # a person decided while b still runs: a queues for a slot
    await until(lambda: h.scheduler.reasons["c"] == "dependencies done" and "b" in h.live, "settled")
    assert h.status("a") == "waiting_approval" and "a" not in h.live
    h.gates["b"].set()
    await until(lambda: "a" in h.live, "a takes the slot back")
    assert h.status("a") == "running" and h.status("c") == "ready"  # before c, which was ready first
    h.gates["a"].set()
    await until(lambda: "c" in h.live, "c runs last")
    h.gates["c"].set()
    assert await run == {"a": "done", "b": "done", "c": "done"}
    assert h.order == ["a", "b", "a", "c"] and h.peak == 1
    assert ("a", "running", "resumed: a person decided") in h.journal


async def test_never_more_agents_than_max_agents_with_many_waiting() -> None:
    tasks = [TaskSpec(f"t{i}", "coder", order=i) for i in range(8)]
    h = Waiting(tasks, max_agents=3, asks={"t0", "t1", "t2", "t3"})
    run = asyncio.create_task(h.scheduler.run())
    await until(lambda: len(h.live) == 3 and all(h.status(f"t{i}") == "waiting_approval" for i in range(4)),
                "four waiting, three working")
    for i in range(4):
        h.decided[f"t{i}"].set()
    for _ in range(8):  # finish whatever is live, one at a time, and check the bound at every step
        await until(lambda: len(h.live) > 0, "an agent is live")
        assert len(h.live) <= 3
        h.gates[sorted(h.live)[0]].set()
        await asyncio.sleep(0)
    await until(lambda: run.done(), "the run ends")
    assert set(run.result().values()) == {"done"} and h.peak == 3


async def test_a_cancel_while_waiting_ends_the_task_cancelled() -> None:
    h = Waiting([TaskSpec("a", "coder"), TaskSpec("b", "coder", order=1)], max_agents=1, asks={"a"})
    run = asyncio.create_task(h.scheduler.run())
    await until(lambda: h.status("a") == "waiting_approval" and "b" in h.live, "a waits, b runs")
    h.scheduler.cancel("stopped by a person")
    result = await run
    assert result == {"a": "cancelled", "b": "cancelled"}
