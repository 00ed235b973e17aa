"""The DAG scheduler with instrumented in-process tasks: gates the test opens decide when a task ends, so
nothing here sleeps for real and every interleaving is deterministic."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from acteon_core.vocabulary import TaskStatus as Status
from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec


async def until(condition: Callable[[], bool], what: str = "condition") -> None:
    """Let the event loop run until ``condition`` holds (no wall-clock sleeping)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never happened: {what}")


def specs(*items: tuple[Any, ...]) -> list[TaskSpec]:
    """(id, role, priority, deps) tuples, numbered in plan order."""
    return [TaskSpec(id=i, role=r, priority=p, depends_on=tuple(d), order=n) for n, (i, r, p, d) in enumerate(items)]


class Harness:
    """Runs a Scheduler whose tasks record concurrency and wait for the test (``gated``) or just yield."""

    def __init__(
        self,
        tasks: list[TaskSpec],
        *,
        max_agents: int = 8,
        role_caps: dict[str, int] | None = None,
        gated: bool = True,
        fail: Iterable[str] = (),
        explode: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        self.gates: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.gated = gated
        self.fail, self.explode = set(fail), set(explode)
        self.deps = {t.id: t.depends_on for t in tasks}
        self.started: list[str] = []
        self.running: set[str] = set()
        self.done: set[str] = set()
        self.interrupted: list[str] = []
        self.violations: list[str] = []
        self.journal: list[tuple[str, Status, str]] = []
        self.max_agents, self.role_caps = max_agents, role_caps or {}
        self.roles = {t.id: t.role for t in tasks}
        self.yields: dict[str, int] = {}
        self.scheduler = Scheduler(
            tasks, max_agents=max_agents, role_caps=self.role_caps, run_task=self.run_task,
            on_change=lambda i, s, r: self.journal.append((i, s, r)), **kwargs,
        )

    async def run_task(self, spec: TaskSpec) -> TaskOutcome:
        # Recorded rather than asserted here: the scheduler turns exceptions in run_task into failed tasks.
        if not all(d in self.done for d in spec.depends_on):
            self.violations.append(f"{spec.id} started before its dependencies")
        self.started.append(spec.id)
        self.running.add(spec.id)
        self.roles[spec.id] = spec.role
        same_role = sum(1 for t in self.running if self.roles[t] == spec.role)
        if len(self.running) > self.max_agents or same_role > self.role_caps.get(spec.role, self.max_agents):
            self.violations.append(f"{spec.id} started with {sorted(self.running)} running")
        try:
            if self.gated:
                await self.gates[spec.id].wait()
            for _ in range(self.yields.get(spec.id, 1)):
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            self.interrupted.append(spec.id)
            raise
        finally:
            self.running.discard(spec.id)
        if spec.id in self.explode:
            raise RuntimeError(f"boom in {spec.id}")
        if spec.id in self.fail:
            return TaskOutcome("failed", "told to fail")
        self.done.add(spec.id)
        return TaskOutcome("done", "ok")

    def start(self, **kwargs: Any) -> asyncio.Task[dict[str, Status]]:
        return asyncio.create_task(self.scheduler.run(**kwargs))

    def release(self, *ids: str) -> None:
        for i in ids:
            self.gates[i].set()

    def reason(self, task_id: str) -> str:
        return self.scheduler.reasons[task_id]


def random_dag(rng: random.Random, n: int, roles: list[str]) -> list[TaskSpec]:
    tasks = []
    for i in range(n):
        deps = rng.sample(range(i), k=min(i, rng.randint(0, 3)))
        tasks.append(TaskSpec(f"t{i}", rng.choice(roles), rng.randint(1, 5), tuple(f"t{d}" for d in deps), i))
    return tasks


# ------------------------------------------------------------------------------------------ concurrency


@pytest.mark.parametrize("seed", range(12))
async def test_random_dags_never_exceed_the_caps_and_finish(seed: int) -> None:
    rng = random.Random(seed)
    tasks = random_dag(rng, 60, ["coder", "reviewer", "researcher"])
    caps = {"coder": rng.randint(1, 4), "reviewer": rng.randint(1, 3)}  # researcher: only max_agents
    fail = {t.id for t in tasks if rng.random() < 0.08}
    h = Harness(tasks, max_agents=rng.randint(2, 6), role_caps=caps, gated=False, fail=fail)
    h.yields = {t.id: rng.randint(1, 6) for t in tasks}  # uneven lengths, so the interleavings vary

    statuses = await h.scheduler.run()

    assert h.violations == []
    assert h.scheduler.peak_running <= h.max_agents
    for role, peak in h.scheduler.peak_by_role.items():
        assert peak <= caps.get(role, h.max_agents)
    # The final state is exactly what the failures imply: a task runs iff all its dependencies are done.
    for t in tasks:
        if any(statuses[d] != "done" for d in t.depends_on):
            assert statuses[t.id] == "blocked"
            assert h.reason(t.id).startswith("dependency ")
        else:
            assert statuses[t.id] == ("failed" if t.id in fail else "done")
    assert sorted(h.started) == sorted(t.id for t in tasks if statuses[t.id] in ("done", "failed"))


async def test_fills_every_slot_when_enough_work_is_ready() -> None:
    h = Harness(specs(*[(f"t{i}", "coder", 1, ()) for i in range(10)]), max_agents=3)
    run = h.start()
    await until(lambda: len(h.running) == 3)
    h.release(*[f"t{i}" for i in range(10)])
    assert set((await run).values()) == {"done"}
    assert h.scheduler.peak_running == 3


async def test_a_task_starts_as_soon_as_its_dependencies_are_done_no_waves() -> None:
    h = Harness(specs(("long1", "coder", 1, ()), ("long2", "coder", 1, ()), ("a", "coder", 1, ()),
                      ("b", "reviewer", 1, ("a",))))
    run = h.start()
    await until(lambda: h.running == {"long1", "long2", "a"})
    h.release("a")
    await until(lambda: "b" in h.running, "b starts while the long tasks still run")
    assert {"long1", "long2"} <= h.running
    h.release("b", "long1", "long2")
    assert set((await run).values()) == {"done"}


async def test_priority_then_plan_order() -> None:
    tasks = [TaskSpec("late", "coder", 5, (), 0), TaskSpec("first", "coder", 1, (), 3),
             TaskSpec("tie-b", "coder", 2, (), 2), TaskSpec("tie-a", "coder", 2, (), 1)]
    h = Harness(tasks, max_agents=1, gated=False)
    await h.scheduler.run()
    assert h.started == ["first", "tie-a", "tie-b", "late"]


async def test_a_capped_role_does_not_hold_back_other_roles() -> None:
    h = Harness(specs(("c1", "coder", 1, ()), ("c2", "coder", 2, ()), ("r1", "reviewer", 3, ())),
                max_agents=2, role_caps={"coder": 1})
    run = h.start()
    await until(lambda: h.running == {"c1", "r1"})
    h.release("c1", "c2", "r1")
    await run
    assert h.started == ["c1", "r1", "c2"]


# ------------------------------------------------------------------------------------ failure handling


async def test_a_failed_parent_blocks_its_dependents_transitively() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ("b",)),
                      ("d", "coder", 1, ())), gated=False, fail={"a"})
    statuses = await h.scheduler.run()
    assert statuses == {"a": "failed", "b": "blocked", "c": "blocked", "d": "done"}
    assert [s for i, s, _ in h.journal if i == "a"] == ["ready", "running", "failed"]
    assert h.reason("b") == "dependency a is failed"
    assert "dependency b is blocked" in h.reason("c") and "dependency a is failed" in h.reason("c")
    assert ("c", "blocked", h.reason("c")) in h.journal
    assert "b" not in h.started and "c" not in h.started


async def test_an_exception_in_run_task_fails_that_task_only() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ())),
                gated=False, explode={"a"})
    statuses = await h.scheduler.run()
    assert statuses == {"a": "failed", "b": "blocked", "c": "done"}
    assert h.reason("a") == "RuntimeError: boom in a"


# -------------------------------------------------------------------------------------- after_task hook


async def test_after_task_holds_the_slot_and_the_dependents_until_it_returns() -> None:
    """The refiner's turn: the task still counts as running (its slot and its dependents wait), and its outcome
    is recorded only when the hook returns."""
    hook_gate = asyncio.Event()
    hooked: list[str] = []

    async def after(spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        hooked.append(spec.id)
        if spec.id == "a":
            await hook_gate.wait()
        return None

    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("other", "coder", 2, ())),
                max_agents=1, after_task=after)
    run = h.start()
    await until(lambda: h.running == {"a"})
    h.release("a")
    await until(lambda: hooked == ["a"])
    for _ in range(50):
        await asyncio.sleep(0)
    assert h.started == ["a"], "nothing starts in the slot the hook holds"
    assert h.scheduler.statuses["a"] == "running" and h.scheduler.statuses["b"] == "pending"
    hook_gate.set()
    await until(lambda: h.running == {"b"})
    assert h.scheduler.statuses["a"] == "done"
    h.release("b", "other")
    assert await run == {"a": "done", "b": "done", "other": "done"}
    assert h.started == ["a", "b", "other"] and h.violations == []


async def test_a_reason_from_after_task_runs_the_task_again_in_its_slot() -> None:
    """A refiner's RETRY: the task runs again at once, in the slot it holds; the reason is journaled."""
    attempts: list[str] = []

    async def after(spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        attempts.append(spec.id)
        return "retried by the refiner" if attempts.count("a") == 1 and spec.id == "a" else None

    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("other", "coder", 2, ())),
                max_agents=1, gated=False, after_task=after)
    assert await h.scheduler.run() == {"a": "done", "b": "done", "other": "done"}
    assert h.started == ["a", "a", "b", "other"] and h.violations == []
    assert ("a", "running", "retried by the refiner") in h.journal
    assert [s for i, s, _ in h.journal if i == "a"].count("done") == 1


async def test_a_refiner_skip_in_after_task_blocks_the_skipped_tasks_dependents() -> None:
    async def after(spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        if spec.id == "a":
            h.scheduler.skip(["b"], "refiner: not needed")
        return None

    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ("b",))),
                gated=False, after_task=after)
    statuses = await h.scheduler.run()
    assert statuses == {"a": "done", "b": "skipped", "c": "blocked"}
    assert h.reason("b") == "refiner: not needed"
    assert h.reason("c") == "dependency b is skipped"
    assert h.started == ["a"]


async def test_an_exception_in_after_task_is_reported_and_ignored() -> None:
    async def after(spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        raise ValueError("refiner crashed")

    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",))), gated=False, after_task=after)
    assert await h.scheduler.run() == {"a": "done", "b": "done"}
    assert ("a", "running", "after_task error (ignored): ValueError: refiner crashed") in h.journal


# ------------------------------------------------------------------------------------------ plan edits


async def test_skip_validation() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",))))
    with pytest.raises(ValueError, match="unknown task 'zz'"):
        h.scheduler.skip(["zz"], "x")
    run = h.start()
    await until(lambda: h.running == {"a"})
    with pytest.raises(ValueError, match="it is running"):
        h.scheduler.skip(["a"], "x")
    with pytest.raises(ValueError, match="unknown"):
        h.scheduler.skip(["b", "zz"], "x")
    assert h.scheduler.statuses["b"] == "pending"  # a rejected edit changes nothing
    h.release("a", "b")
    await run
    with pytest.raises(ValueError, match="it is done"):
        h.scheduler.skip(["b"], "x")


async def test_skip_before_the_run_never_releases_dependents() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ("a", "b"))),
                gated=False)
    h.scheduler.skip(["a"], "not needed")
    assert await h.scheduler.run() == {"a": "skipped", "b": "blocked", "c": "blocked"}
    assert h.started == []


async def test_reprioritize_changes_the_start_order_and_is_validated() -> None:
    h = Harness(specs(("gate", "coder", 0, ()), ("x", "coder", 1, ("gate",)), ("y", "coder", 2, ("gate",)),
                      ("z", "coder", 3, ("gate",))), max_agents=1)
    run = h.start()
    await until(lambda: h.running == {"gate"})
    with pytest.raises(ValueError, match="cannot reprioritize task 'gate': it is running"):
        h.scheduler.reprioritize({"gate": 9})
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        h.scheduler.reprioritize({"z": 0, "nope": 1})
    h.scheduler.reprioritize({"z": 0})
    h.release("gate", "x", "y", "z")
    await run
    assert h.started == ["gate", "z", "x", "y"]


async def test_add_task_validation() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ())),
                gated=False, fail={"a"})
    h.scheduler.skip(["c"], "no")
    with pytest.raises(ValueError, match="already in use"):
        h.scheduler.add_task(TaskSpec("a", "coder"))
    with pytest.raises(ValueError, match="unknown dependency 'nope'"):
        h.scheduler.add_task(TaskSpec("n", "coder", depends_on=("nope",)))
    with pytest.raises(ValueError, match="dependency 'c' is skipped"):
        h.scheduler.add_task(TaskSpec("n", "coder", depends_on=("c",)))
    await h.scheduler.run()
    for dead in ("a", "b"):  # failed, blocked
        with pytest.raises(ValueError, match=f"dependency '{dead}' is"):
            h.scheduler.add_task(TaskSpec("n", "coder", depends_on=(dead,)))


async def test_a_task_added_by_the_refiner_runs_after_its_dependencies() -> None:
    async def after(spec: TaskSpec, outcome: TaskOutcome) -> str | None:
        if spec.id == "a":
            h.scheduler.add_task(TaskSpec("review-a", "reviewer", 1, ("a",), 10))
        return None

    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 5, ("a",))), max_agents=1, gated=False, after_task=after)
    statuses = await h.scheduler.run()
    assert statuses == {"a": "done", "b": "done", "review-a": "done"}
    assert h.started == ["a", "review-a", "b"]
    assert ("review-a", "pending", "added") in h.journal


def test_the_plan_is_validated_up_front() -> None:
    async def never(spec: TaskSpec) -> TaskOutcome:
        raise AssertionError

    def build(tasks: list[TaskSpec], **kw: Any) -> Scheduler:
        return Scheduler(tasks, max_agents=kw.pop("max_agents", 2), role_caps=kw.pop("role_caps", {}),
                         run_task=never, **kw)

    with pytest.raises(ValueError, match="duplicate task id 'a'"):
        build(specs(("a", "coder", 1, ()), ("a", "coder", 1, ())))
    with pytest.raises(ValueError, match="'a' depends on unknown task 'x'"):
        build(specs(("a", "coder", 1, ("x",))))
    with pytest.raises(ValueError, match="dependency cycle: a -> b -> c -> a"):
        build(specs(("a", "coder", 1, ("b",)), ("b", "coder", 1, ("c",)), ("c", "coder", 1, ("a",))))
    with pytest.raises(ValueError, match="max_agents"):
        build(specs(("a", "coder", 1, ())), max_agents=0)
    with pytest.raises(ValueError, match="role cap for 'coder'"):
        build(specs(("a", "coder", 1, ())), role_caps={"coder": 0})
    with pytest.raises(ValueError, match="unknown task 'zz'"):
        build(specs(("a", "coder", 1, ())), initial={"zz": "done"})


# --------------------------------------------------------------------------------------------- resume


async def test_resume_never_reruns_done_tasks_and_reruns_interrupted_ones() -> None:
    tasks = specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",)), ("c", "coder", 1, ("a",)),
                  ("d", "coder", 1, ("b", "c")), ("old-fail", "coder", 1, ()), ("e", "coder", 1, ("old-fail",)))
    h = Harness(tasks, gated=False, initial={"a": "done", "b": "running", "c": "ready", "old-fail": "failed"})
    h.done.add("a")
    assert ("b", "pending", "requeued on resume (was running)") in h.journal
    statuses = await h.scheduler.run()
    assert statuses == {"a": "done", "b": "done", "c": "done", "d": "done", "old-fail": "failed", "e": "blocked"}
    assert sorted(h.started) == ["b", "c", "d"]


# ------------------------------------------------------------------------------------ cancel, deadline


async def test_cancel_interrupts_running_tasks_and_cancels_the_rest() -> None:
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ()), ("c", "coder", 1, ("a",)),
                      ("d", "coder", 1, ())), max_agents=2)
    run = h.start()
    await until(lambda: h.running == {"a", "b"})
    h.scheduler.cancel("user asked")
    statuses = await run
    assert statuses == dict.fromkeys("abcd", "cancelled")
    assert sorted(h.interrupted) == ["a", "b"]
    assert all(h.reason(t) == "user asked" for t in "ab")  # running: interrupted for that reason
    assert all(h.reason(t) == "never started (the run stopped: user asked)" for t in "cd")
    with pytest.raises(ValueError, match="the run is cancelled"):
        h.scheduler.add_task(TaskSpec("late", "coder"))


async def test_the_deadline_cancels_everything_still_running() -> None:
    clock = [0.0]
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ()), ("c", "coder", 1, ("a",)),
                      ("d", "coder", 1, ("b",))))
    run = h.start(deadline=10.0, now=lambda: clock[0])
    await until(lambda: h.running == {"a", "b"})
    h.release("a")
    await until(lambda: h.running == {"b", "c"})
    clock[0] = 10.5
    h.release("c")  # any state change wakes the loop, which then sees the deadline
    statuses = await run
    assert statuses == {"a": "done", "b": "cancelled", "c": "done", "d": "cancelled"}
    assert h.reason("b") == "run deadline" and h.reason("d") == "never started (the run stopped: run deadline)"
    assert h.interrupted == ["b"]


async def test_the_deadline_fires_on_its_own_when_nothing_else_happens() -> None:
    loop = asyncio.get_running_loop()
    h = Harness(specs(("a", "coder", 1, ()), ("b", "coder", 1, ("a",))))
    statuses = await h.start(deadline=loop.time() + 0.05, now=loop.time)
    assert statuses == {"a": "cancelled", "b": "cancelled"}


async def test_cancelling_run_itself_interrupts_the_agents() -> None:
    h = Harness(specs(("a", "coder", 1, ()),))
    run = h.start()
    await until(lambda: h.running == {"a"})
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert h.interrupted == ["a"]
    assert h.scheduler.statuses == {"a": "cancelled"}
