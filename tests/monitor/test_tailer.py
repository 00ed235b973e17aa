"""The tailer against a real gateway process: new records once, journal-exact fields, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.events import SubtaskStarted, ToolCall, ToolCompleted
from orchestrator.gatewayclient import GatewayClient
from orchestrator.rundir import RunDir
from orchestrator.watch.tailer import Tailer


def body(run_id: str, agent: str, command: str, provider: str = "claude-code") -> dict[str, Any]:
    return {"run_id": run_id, "agent_id": agent, "provider": provider, "tool": "Bash",
            "input": {"command": command}, "cwd": "/work/proj"}


async def calls(gw: GatewayClient, key: str, run_id: str, agent: str, *commands: str, **kw: Any) -> list[str]:
    return [(await gw.dispatch(key, body(run_id, agent, c, **kw)))["outcome"] for c in commands]


async def test_poll_returns_new_calls_and_completions_once(gw: GatewayClient, run_id: str) -> None:
    key = await gw.create_run(run_id, [], None)
    assert await calls(gw, key, run_id, "t1.s1", "ls", "rm -rf /") == ["executed", "suppressed"]
    await calls(gw, key, run_id, "t2.s1", "echo hi", provider="orchestrator")  # command engine: kept
    await gw.event(key, run_id, {"agent_id": "t1.s1", "tool": "Bash", "success": True, "duration_ms": 5})
    await gw.event(key, run_id, {"agent_id": "t2.s1", "tool": "Bash", "success": False, "error": "exit 2"})

    tailer = Tailer(gw, run_id)
    got, done = await tailer.poll()
    assert [(c["agent_id"], c["task_id"], c["target"], c["outcome"]) for c in got] == [
        ("t1.s1", "t1", "ls", "executed"), ("t1.s1", "t1", "rm -rf /", "suppressed"),
        ("t2.s1", "t2", "echo hi", "executed")]
    assert got[1]["rule"] == "block-destructive-commands" and got[1]["reason"]
    assert got[0]["action_type"] == "execute_command" and got[0]["approval_id"] is None
    assert all(isinstance(c["at_ms"], int) and c["at_ms"] > 1_600_000_000_000 for c in got)
    assert [(d["agent_id"], d["task_id"], d["ok"], d["detail"]) for d in done] == [
        ("t1.s1", "t1", True, ""), ("t2.s1", "t2", False, "exit 2")]
    assert await tailer.poll() == ([], [])

    await calls(gw, key, run_id, "t1.s1", "pwd")
    got, done = await tailer.poll()
    assert [c["target"] for c in got] == ["pwd"] and done == []


async def test_fields_are_exactly_the_journal_events_and_resume_skips_what_was_journaled(
    gw: GatewayClient, run_id: str, tmp_path: Path
) -> None:
    key = await gw.create_run(run_id, [], None)
    long = "echo " + "x" * 2000
    await calls(gw, key, run_id, "t1.s1", "ls", long)
    await gw.event(key, run_id, {"agent_id": "t1.s1", "tool": "Bash", "success": True})
    rd = RunDir(tmp_path, run_id)
    rd.create()
    got, done = await Tailer(gw, run_id).poll()
    assert len(got[1]["target"]) == 500
    for c in got:
        rd.record(ToolCall, **c)  # extra="forbid": the dicts are exactly the events' fields
    for d in done:
        rd.record(ToolCompleted, **d)

    await calls(gw, key, run_id, "t1.s1", "whoami")
    await gw.event(key, run_id, {"agent_id": "t1.s1", "tool": "Bash", "success": False})
    resumed = Tailer.from_journal(gw, run_id, rd.read_events())
    got, done = await resumed.poll()
    assert [c["target"] for c in got] == ["whoami"] and [d["ok"] for d in done] == [False]

    empty = Tailer.from_journal(gw, run_id, [])  # nothing journaled yet: everything
    got, done = await empty.poll()
    assert len(got) == 3 and len(done) == 2


async def test_large_backlogs_page_through_and_max_pages_spreads_them(gw: GatewayClient, run_id: str) -> None:
    key = await gw.create_run(run_id, [], None)
    await calls(gw, key, run_id, "t1.s1", *[f"echo {i}" for i in range(7)])
    got, _ = await Tailer(gw, run_id, page_size=2).poll()
    assert [c["target"] for c in got] == [f"echo {i}" for i in range(7)]
    slow = Tailer(gw, run_id, page_size=2, max_pages=2)
    seen = []
    for _ in range(3):
        got, _ = await slow.poll()
        assert len(got) <= 4
        seen += [c["target"] for c in got]
    assert seen == [f"echo {i}" for i in range(7)]


async def test_task_ids_keep_only_this_plans_agents_and_resolve_dotted_ids(
    gw: GatewayClient, run_id: str
) -> None:
    key = await gw.create_run(run_id, [], None)
    await calls(gw, key, run_id, "a.b.c", "ls")  # task "a.b", subtask "c"
    await calls(gw, key, run_id, "operator", "ls")  # no task of the plan
    await calls(gw, key, run_id, "late.s1", "ls")  # a task the refiner adds later
    tailer = Tailer(gw, run_id, task_ids=["a", "a.b"])
    got, _ = await tailer.poll()
    assert [(c["agent_id"], c["task_id"]) for c in got] == [("a.b.c", "a.b")]

    tailer = Tailer(gw, run_id, task_ids=["a", "a.b"])
    tailer.add_task("late")
    got, _ = await tailer.poll()
    assert [(c["agent_id"], c["task_id"]) for c in got] == [("a.b.c", "a.b"), ("late.s1", "late")]

    # The journal's SubtaskStarted says exactly which task an agent works for.
    started = SubtaskStarted(ts="t", seq=0, task_id="a", subtask_id="b.c", agent_id="a.b.c", engine="command")
    got, _ = await Tailer.from_journal(gw, run_id, [started]).poll()
    assert [(c["agent_id"], c["task_id"]) for c in got] == [("a.b.c", "a"), ("operator", None), ("late.s1", "late")]


async def test_client_pages_match_the_gateway(gw: GatewayClient, run_id: str) -> None:
    key = await gw.create_run(run_id, [], None)
    await calls(gw, key, run_id, "t1.s1", "ls", "pwd", "id")
    records, nxt = await gw.audit_page(run_id, None, 2)
    assert [r["target"] for r in records] == ["ls", "pwd"] and nxt == records[-1]["cursor"]
    records, nxt = await gw.audit_page(run_id, nxt, 2)
    assert [r["target"] for r in records] == ["id"] and nxt is None
    await gw.event(key, run_id, {"agent_id": "t1.s1", "tool": "Bash", "success": True, "size": 3})
    events, nxt = await gw.events_page(run_id, None, 10)
    assert nxt is None and (events[0]["success"], events[0]["size"]) == (True, 3)


async def test_who_approved_a_call_is_journaled_with_it(gw: GatewayClient, run_id: str, tmp_path: Path) -> None:
    """The run folder's copy of the audit keeps the decider and the shown-content hash, so
    `audit --json` and the twin still say who approved once an embedded gateway is gone."""
    key = await gw.create_run(run_id, [], None)
    pending = await gw.dispatch(key, body(run_id, "t1.s1", "git push origin main"))
    assert pending["outcome"] == "pending_approval"
    await gw.resolve(pending["approval_id"], True, "alice", "reviewed the diff")
    assert (await gw.dispatch(key, body(run_id, "t1.s1", "git push origin main")))["outcome"] == "executed"
    got, _ = await Tailer(gw, run_id).poll()
    executed = [c for c in got if c["outcome"] == "executed"]
    assert executed and executed[0]["decided_by"] == "alice" and executed[0]["approval_id"] == pending["approval_id"]
    assert executed[0]["decision_reason"] == "reviewed the diff"  # why, as the person wrote it
    rd = RunDir(tmp_path, run_id)
    rd.create()
    for c in got:
        rd.record(ToolCall, **c)
    kept = [e for e in rd.read_events() if isinstance(e, ToolCall) and e.outcome == "executed"]
    assert (kept[0].decided_by, kept[0].decision_reason) == ("alice", "reviewed the diff")
