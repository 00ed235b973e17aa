"""Scheduler makespan against its lower bound on a seeded random DAG of sleep tasks.

    python bench/scheduler.py [--tasks 240] [--max-agents 8] [--seed 7] [--priority critical-path|flat]
                              [--inprocess]

Each task is a real `sleep` subprocess run through run_in_group in its own process group (the stand-in for
the command engine), or with --inprocess an asyncio.sleep. No schedule can beat
max(critical path, total work / max_agents); the target is a makespan within 10 % of it.

The scheduler orders ready tasks by the plan's priority, then plan order. By default the plan gives each
task the priority a planner with duration estimates would: longest remaining path first. `--priority flat`
leaves every priority equal, so plan order alone decides: greedy list scheduling then loses a few per cent
more on DAGs whose critical path is close to total work / max_agents, as here.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator.process import run_in_group  # noqa: E402
from orchestrator.run.scheduler import Scheduler, TaskOutcome, TaskSpec  # noqa: E402

ROLES = ["coder", "researcher", "reviewer"]


@dataclass
class Dag:
    specs: list[TaskSpec]
    duration_s: dict[str, float]


def random_dag(rng: random.Random, n: int, roles: list[str]) -> Dag:
    specs, duration = [], {}
    for i in range(n):
        # Up to three dependencies, mostly on recent tasks so that chains (and a real critical path) form.
        window = list(range(max(0, i - 30), i))
        deps = rng.sample(window, k=min(len(window), rng.randint(0, 3)))
        specs.append(TaskSpec(f"t{i}", rng.choice(roles), 100, tuple(f"t{d}" for d in sorted(deps)), i))
        duration[f"t{i}"] = rng.randint(20, 200) / 1000
    return Dag(specs, duration)


def with_critical_path_priorities(dag: Dag) -> Dag:
    """Priority = minus the longest path (ms) from the task to the end of the plan: that path first."""
    children: dict[str, list[str]] = {spec.id: [] for spec in dag.specs}
    for spec in dag.specs:
        for dep in spec.depends_on:
            children[dep].append(spec.id)
    remaining: dict[str, float] = {}
    for spec in reversed(dag.specs):
        remaining[spec.id] = dag.duration_s[spec.id] + max((remaining[c] for c in children[spec.id]), default=0.0)
    specs = [dataclasses.replace(spec, priority=-round(remaining[spec.id] * 1000)) for spec in dag.specs]
    return Dag(specs, dag.duration_s)


def critical_path_s(dag: Dag) -> float:
    finish: dict[str, float] = {}
    for spec in dag.specs:  # plan order is topological: dependencies are always earlier tasks
        finish[spec.id] = dag.duration_s[spec.id] + max((finish[d] for d in spec.depends_on), default=0.0)
    return max(finish.values())


async def run(dag: Dag, max_agents: int, inprocess: bool, workdir: Path) -> tuple[float, Scheduler]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    async def run_task(spec: TaskSpec) -> TaskOutcome:
        duration = dag.duration_s[spec.id]
        if inprocess:
            await asyncio.sleep(duration)
            return TaskOutcome("done")
        logs = workdir / spec.id
        result = await run_in_group(["sleep", f"{duration:.3f}"], cwd=workdir, env=env,
                                    stdout_path=logs / "stdout", stderr_path=logs / "stderr", timeout_s=30)
        return TaskOutcome("done" if result.returncode == 0 else "failed", f"exit {result.returncode}")

    scheduler = Scheduler(dag.specs, max_agents=max_agents, role_caps={}, run_task=run_task)
    started = time.monotonic()
    statuses = await scheduler.run()
    makespan = time.monotonic() - started
    not_done = {t: s for t, s in statuses.items() if s != "done"}
    if not_done:
        raise SystemExit(f"tasks did not finish: {not_done}")
    return makespan, scheduler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=240)
    parser.add_argument("--max-agents", type=int, default=8)
    parser.add_argument("--roles", type=int, default=3, choices=[2, 3])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--priority", choices=["critical-path", "flat"], default="critical-path")
    parser.add_argument("--inprocess", action="store_true", help="asyncio.sleep instead of sleep subprocesses")
    args = parser.parse_args()

    dag = random_dag(random.Random(args.seed), args.tasks, ROLES[: args.roles])
    if args.priority == "critical-path":
        dag = with_critical_path_priorities(dag)
    total_work = sum(dag.duration_s.values())
    critical = critical_path_s(dag)
    bound = max(critical, total_work / args.max_agents)
    with tempfile.TemporaryDirectory(prefix="acteon-bench-") as tmp:
        makespan, scheduler = asyncio.run(run(dag, args.max_agents, args.inprocess, Path(tmp)))

    mode = "in-process asyncio.sleep" if args.inprocess else "sleep subprocesses (run_in_group)"
    print(f"tasks: {args.tasks}  roles: {args.roles}  max_agents: {args.max_agents}  seed: {args.seed}  "
          f"priority: {args.priority}  mode: {mode}")
    print(f"total work:       {total_work:8.3f} s   (/ max_agents: {total_work / args.max_agents:.3f} s)")
    print(f"critical path:    {critical:8.3f} s")
    print(f"lower bound:      {bound:8.3f} s")
    print(f"makespan:         {makespan:8.3f} s")
    print(f"ratio:            {makespan / bound:8.3f}   (target <= 1.10)")
    print(f"peak concurrency: {scheduler.peak_running:8d}   (cap {args.max_agents})  by role: {scheduler.peak_by_role}")


if __name__ == "__main__":
    main()
