"""The digital twin on a big run: graph build and ready-query times, Oxigraph store against rdflib's memory store.

    python bench/graph.py [--tasks 2000] [--calls 100000] [--seed 7] [--repeat 3] [--skip-memory-queries]

Writes the journal of one synthetic finished run into a temporary state directory: a seeded random DAG of
tasks (one subtask each, three roles), ~calls tool-call decisions spread over the tasks' time windows with a
realistic outcome mix (throttled, suppressed, deduplicated, approvals…), a completion for every executed
call, findings and their use, refiner decisions with skips, and monitor alerts. Every line is an event
model serialised exactly as RunDir.append writes it (without one fsync per line) and the journal is read
back through RunDir.read_events, so it is validated like any other.

Then, for each store, in the same process: the build (journal → projection → store), loading the cached
graph.nq instead, and every ready query (median of --repeat runs, the row count checked equal across
stores). Machines are noisy; compare the ratios.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator import events as E  # noqa: E402
from orchestrator import rundir as R  # noqa: E402
from orchestrator.graph import twin as T  # noqa: E402
from orchestrator.graph.queries import READY, run_query  # noqa: E402
from orchestrator.graph.store import STORES, open_dataset, parse_nquads  # noqa: E402
from orchestrator.plan.file import save_plan  # noqa: E402
from orchestrator.plan.model import Plan  # noqa: E402

ROLES = ["coder", "researcher", "reviewer"]
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
# outcome, weight, rule
OUTCOMES = [("executed", 80, "allow-default"), ("throttled", 8, "throttle-shell"), ("suppressed", 5, "block-rm-rf"),
            ("deduplicated", 3, "dedup-writes"), ("pending_approval", 2, "approve-push"),
            ("quota_exceeded", 1, "run-quota"), ("rerouted", 1, "reroute-fetch")]
TOOLS = [("Bash", "execute_command", "pytest -q tests/"), ("Write", "write_file", "src/module.py"),
         ("Read", "read_file", "README.md"), ("WebFetch", "web_fetch", "https://example.org/doc")]


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds")


def synthetic_run(state: Path, run_id: str, n_tasks: int, n_calls: int, seed: int) -> dict[str, int]:
    """Write plan.json, run.json and events.jsonl of a finished run; returns event counts by type."""
    rng = random.Random(seed)
    tasks, start, end = [], {}, {}
    for i in range(n_tasks):
        window = list(range(max(0, i - 30), i))
        deps = sorted(rng.sample(window, k=min(len(window), rng.randint(0, 3))))
        tasks.append({"id": f"t{i}", "name": f"task {i}", "assigned_role": rng.choice(ROLES), "priority": 100,
                      "depends_on": [f"t{d}" for d in deps],
                      "subtasks": [{"id": f"s{i}", "name": f"step {i}", "command": "true"}]})
        # Unlimited agents: a task starts when its last dependency ends.
        start[i] = max((end[d] for d in deps), default=T0) + timedelta(milliseconds=rng.randint(5, 50))
        end[i] = start[i] + timedelta(seconds=rng.uniform(20, 200))
    plan = Plan.model_validate({"id": "bench-plan", "objective": "benchmark the twin", "tasks": tasks,
                                "scope": {"working_directory": "/tmp", "max_agents": 8}})
    rd = R.RunDir(state, run_id)
    rd.create()
    save_plan(plan, rd.plan_file)
    rd.write_run(status="done", engine="command", plan_id=plan.id)

    timed: list[tuple[datetime, int, type[Any], dict[str, Any]]] = []  # (when, tie-break, class, fields)

    def at(when: datetime, cls: type[Any], **fields: Any) -> None:
        timed.append((when, len(timed), cls, fields))

    # The refiner skips 1 % of the tasks, among those nothing depends on (a skip never unblocks anything).
    needed = {dep for t in tasks for dep in t["depends_on"]}
    leaves = [i for i in range(n_tasks // 2, n_tasks) if f"t{i}" not in needed]
    skipped = set(rng.sample(leaves, k=min(len(leaves), max(1, n_tasks // 100))))
    at(T0, E.RunStarted, run_id=run_id, plan_id=plan.id, engine="command", pid=4242)
    weights = [w for _, w, _ in OUTCOMES]
    ran = [i for i in range(n_tasks) if i not in skipped]
    per_task, remainder = divmod(n_calls, len(ran))
    audit = 0
    for i in range(n_tasks):
        tid, sid, agent = f"t{i}", f"s{i}", f"t{i}.s{i}"
        if i in skipped:
            at(start[i], E.TaskStatusChanged, task_id=tid, status="skipped", reason="skipped by the refiner")
            continue
        at(start[i], E.TaskStatusChanged, task_id=tid, status="running")
        at(start[i], E.SubtaskStarted, task_id=tid, subtask_id=sid, agent_id=agent, engine="command")
        span = (end[i] - start[i]).total_seconds()
        for _ in range(per_task + (1 if ran.index(i) < remainder else 0)):
            when = start[i] + timedelta(seconds=rng.uniform(0, span))
            outcome, _, rule = rng.choices(OUTCOMES, weights)[0]
            tool, action, target = rng.choice(TOOLS)
            audit += 1
            ms = int(when.timestamp() * 1000)
            at(when, E.ToolCall, audit_id=f"{ms}-{audit}", agent_id=agent, task_id=tid, tool=tool, action_type=action,
               target=f"{target} #{audit % 97}", outcome=outcome, rule=rule,
               reason=None if outcome == "executed" else f"{outcome} by {rule}",
               approval_id=f"ap-{audit}" if outcome == "pending_approval" else None, at_ms=ms)
            if outcome == "executed":
                at(when + timedelta(milliseconds=300), E.ToolCompleted, event_id=f"c{audit}", agent_id=agent,
                   task_id=tid, tool=tool, ok=rng.random() > 0.05, at_ms=ms + 300)
        if i % 10 == 3:
            at(end[i] - timedelta(seconds=1), E.Finding, finding_id=f"{run_id}/{i}", agent_id=agent, task_id=tid,
               topics=["tests", ROLES[i % 3]], text=f"finding of task {i}")
        if i % 7 == 5 and i > 20:
            used = [f"{run_id}/{j}" for j in range(3, i - 10, 10)][-3:]
            if used:
                at(start[i], E.FindingsUsed, task_id=tid, agent_id=agent, finding_ids=used)
        if i % 97 == 11:
            at(start[i] + timedelta(seconds=span / 2), E.Alert, kind="runaway", agent_id=agent, task_id=tid,
               detail="more than 20 actions in a minute", action="throttle")
        at(end[i], E.SubtaskFinished, task_id=tid, subtask_id=sid, agent_id=agent, ok=True, returncode=0,
           duration_s=span)
        at(end[i], E.TaskStatusChanged, task_id=tid, status="done")
    for i in sorted(skipped):
        after = max(0, i - 1)
        at(start[i] - timedelta(milliseconds=1), E.RefinerDecision, after_task=f"t{after}", action="skip",
           skipped=[f"t{i}"], reason=f"t{i} is covered by t{after}")
    at(max(end.values()) + timedelta(seconds=1), E.RunFinished, status="done")

    timed.sort(key=lambda e: (e[0], e[1]))
    counts: dict[str, int] = {}
    with rd.journal_file.open("w", encoding="utf-8") as f:
        for seq, (when, _, cls, fields) in enumerate(timed):
            event = cls(ts=iso(when), seq=seq, **fields)  # validated like RunDir.record's
            f.write(event.model_dump_json() + "\n")
            counts[event.type] = counts.get(event.type, 0) + 1
    return counts


def timed(fn: Any) -> tuple[float, Any]:
    gc.collect()
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each query (the median is shown)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="acteon-bench-graph-") as tmp:
        state = Path(tmp)
        t_write, counts = timed(lambda: synthetic_run(state, "bench", args.tasks, args.calls, args.seed))
        rd = R.RunDir(state, "bench")
        t_read, events = timed(rd.read_events)
        t_project, triples = timed(lambda: T.run_triples(rd))
        T.write_run_graph(rd)
        size_mb = T.graph_file(rd).stat().st_size / 1e6
        print(f"journal: {len(events):,} events ({counts.get('tool_call', 0):,} tool calls, "
              f"{counts.get('tool_completed', 0):,} completions, {args.tasks:,} tasks), written in {t_write:.1f} s")
        print(f"read + validate journal: {t_read:.2f} s; projection (journal -> {len(triples):,} triples): "
              f"{t_project:.2f} s; graph.nq {size_mb:.0f} MB")
        del events, triples

        figures: dict[str, dict[str, float]] = {}
        rows: dict[str, dict[str, int]] = {}
        for store in STORES:
            f = figures[store] = {}
            t, ds = timed(lambda store=store: _build(store, rd))
            f["build"] = t
            print(f"\n[{store}] build from the journal: {t:.2f} s ({len(ds):,} triples)")
            del ds
            t, ds = timed(lambda store=store: _load_cached(store, rd))
            f["load graph.nq"] = t
            print(f"[{store}] load graph.nq:            {t:.2f} s")
            rows[store] = {}
            for name, q in READY.items():
                times = []
                for _ in range(args.repeat):
                    t, result = timed(lambda q=q, ds=ds: run_query(ds, q.sparql))
                    times.append(t)
                rows[store][name] = len(result.bindings)
                f[name] = statistics.median(times)
                print(f"[{store}] {name:<24} {f[name] * 1000:10.1f} ms  ({rows[store][name]} rows)")
            del ds

        if rows["oxigraph"] != rows["memory"]:
            raise SystemExit(f"the stores disagree on row counts: {rows}")
        print(f"\n{'':<26}{'oxigraph':>12}{'memory':>12}{'oxigraph/memory':>18}")
        for key in figures["oxigraph"]:
            o, m = figures["oxigraph"][key], figures["memory"][key]
            unit, scale = ("s", 1) if key in ("build", "load graph.nq") else ("ms", 1000)
            print(f"{key:<26}{o * scale:>10.2f}{unit:<2}{m * scale:>10.2f}{unit:<2}{o / m:>18.3f}")


def _build(store: Any, rd: R.RunDir) -> Any:
    ds = open_dataset(store)
    T.build_run_graph(ds, rd)
    return ds


def _load_cached(store: Any, rd: R.RunDir) -> Any:
    ds = open_dataset(store)
    parse_nquads(ds, T.graph_file(rd))
    return ds


if __name__ == "__main__":
    main()
