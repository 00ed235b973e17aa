"""Two small runs written through RunDir, with timestamps fixed so durations (and the critical path) are
known: r1 does the work, r2 (later) uses r1's findings. The expected answer of every ready query is
spelled out in test_graph_queries.py against these journals."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.graph.store import STORES
from orchestrator.plan.file import save_plan
from orchestrator.plan.model import Plan

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MS0 = int(T0.timestamp() * 1000)


class Journal:
    """Events at chosen times (seconds after T0), numbered by the run directory's own sequence."""

    def __init__(self, state: Path, run_id: str, tasks: list[dict[str, Any]]) -> None:
        self.rd = R.RunDir(state, run_id)
        self.rd.create()
        self.rd.write_run(status="done", engine="command")
        plan_id = f"plan-{run_id}" if run_id.isalnum() else "plan"  # plan ids are stricter than run ids
        plan = Plan.model_validate({"id": plan_id, "objective": "test the twin", "tasks": tasks,
                                    "scope": {"working_directory": "/tmp"}})
        save_plan(plan, self.rd.plan_file)
        self.audit = 0

    def at(self, second: float, cls: type[Any], **fields: Any) -> None:
        ts = (T0 + timedelta(seconds=second)).isoformat(timespec="milliseconds")
        self.rd.append(cls(ts=ts, seq=self.rd.next_seq(), **fields))

    def call(self, second: float, agent: str, outcome: str, rule: str | None, target: str = "ls",
             approval_id: str | None = None, **extra: Any) -> None:
        self.audit += 1
        self.at(second, E.ToolCall, audit_id=f"{MS0 + int(second * 1000)}-{self.audit}", agent_id=agent,
                task_id=agent.split(".")[0], tool="Bash", action_type="execute_command", target=target,
                outcome=outcome, rule=rule, reason=None if outcome == "executed" else f"{outcome} by {rule}",
                approval_id=approval_id, at_ms=MS0 + int(second * 1000), **extra)

    def task(self, start: float, end: float, tid: str, status: str = "done") -> None:
        agent = f"{tid}.{tid}1"
        self.at(start, E.TaskStatusChanged, task_id=tid, status="running")
        self.at(start, E.SubtaskStarted, task_id=tid, subtask_id=f"{tid}1", agent_id=agent, engine="command")
        self.at(end, E.SubtaskFinished, task_id=tid, subtask_id=f"{tid}1", agent_id=agent, ok=status == "done",
                returncode=0 if status == "done" else 1, duration_s=end - start)
        self.at(end, E.TaskStatusChanged, task_id=tid, status=status)


def task(tid: str, role: str, deps: list[str] | None = None) -> dict[str, Any]:
    return {"id": tid, "name": f"task {tid}", "assigned_role": role, "depends_on": deps or [],
            "subtasks": [{"id": f"{tid}1", "name": f"step {tid}", "command": "true"}]}


def write_runs(state: Path) -> dict[str, R.RunDir]:
    """r1: a(10 s) → b(30 s) and c(5 s) → d(10 s); e skipped by the refiner. Critical path a, b, d (50 s).
    r2: x(7 s), which used r1's findings."""
    j = Journal(state, "r1", [task("a", "coder"), task("b", "coder", ["a"]), task("c", "reviewer", ["a"]),
                              task("d", "reviewer", ["b", "c"]), task("e", "reviewer", ["c"])])
    j.at(0, E.RunStarted, run_id="r1", plan_id="plan-r1", engine="command", pid=100)
    j.task(0, 10, "a")
    j.call(1, "a.a1", "executed", "allow-default", "ls")
    j.call(2, "a.a1", "throttled", "throttle-shell", "make")
    j.call(3, "a.a1", "throttled", "throttle-shell", "make test")
    j.at(4, E.ToolCompleted, event_id="done-1", agent_id="a.a1", task_id="a", tool="Bash", ok=True,
         at_ms=MS0 + 4000)
    j.at(10.5, E.RefinerDecision, after_task="a", action="continue", reason="model timed out", fallback=True)
    j.task(10, 40, "b")
    for k in range(4):
        j.call(11 + k, "b.b1", "throttled", "throttle-shell", f"pytest -k t{k}")
    j.call(16, "b.b1", "suppressed", "block-rm-rf", "rm -rf /")
    j.at(20, E.Finding, finding_id="r1/1", agent_id="b.b1", task_id="b", topics=["tests", "flaky"],
         text="test_io is flaky under load")
    j.at(21, E.Finding, finding_id="r1/2", topics=["ops"], text="CI runners have 2 cores")  # a human's
    j.at(25, E.Alert, kind="runaway", agent_id="b.b1", task_id="b", detail="24 actions in a minute",
         action="throttle")
    j.task(10, 15, "c")
    j.call(12, "c.c1", "pending_approval", "approve-push", "git push", approval_id="ap-1")
    j.call(14, "c.c1", "executed", "approve-push", "git push", approval_id="ap-1", decided_by="alice",
           decision_reason="release day",
           shown_sha256="ab" * 32)
    j.at(15.5, E.RefinerDecision, after_task="c", action="skip", skipped=["e"], reason="e is covered by c")
    j.at(15.5, E.TaskStatusChanged, task_id="e", status="skipped", reason="refiner: e is covered by c")
    j.task(40, 50, "d")
    j.call(41, "d.d1", "deduplicated", "dedup-writes", "echo x > f")
    j.call(42, "d.d1", "quota_exceeded", None, "echo y > g")
    j.at(50, E.RunFinished, status="done")

    k = Journal(state, "r2", [task("x", "coder")])
    k.at(100, E.RunStarted, run_id="r2", plan_id="plan-r2", engine="command", pid=200)
    k.at(100, E.TaskStatusChanged, task_id="x", status="running")
    k.at(100, E.SubtaskStarted, task_id="x", subtask_id="x1", agent_id="x.x1", engine="command")
    k.at(100, E.FindingsUsed, task_id="x", agent_id="x.x1", finding_ids=["r1/1", "r1/2"])
    k.call(101, "x.x1", "throttled", "throttle-shell", "make")
    k.at(107, E.SubtaskFinished, task_id="x", subtask_id="x1", agent_id="x.x1", ok=True, returncode=0,
         duration_s=7)
    k.at(107, E.TaskStatusChanged, task_id="x", status="done")
    k.at(107, E.RunFinished, status="done")
    return {"r1": j.rd, "r2": k.rd}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    write_runs(tmp_path)
    return tmp_path


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> Iterator[str]:
    yield str(request.param)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # rdflib 7.6's SPARQL engine calls its own deprecated Dataset.default_context / contexts(): noise about
    # the library's internals, not about this project's code.
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.filterwarnings("ignore:Dataset.default_context is deprecated"))
            item.add_marker(pytest.mark.filterwarnings("ignore:Dataset.contexts is deprecated"))
            item.add_marker(pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated"))  # its JSON-LD parser
