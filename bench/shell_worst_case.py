"""Worst-case shell analysis: pathological commands sent to a real one-worker gateway.

    python bench/shell_worst_case.py [--reps 5] [--json]

Each generator builds commands of growing size n (dcg issue 189's nested `$(` payload, long and
dangling pipelines, deep nesting, unclosed arrays, `cd` chains, 1 MB inputs, the cases of the outside
review). Each command is measured twice:

* the decision: the gateway's own decision path in this process — the isolated analysis
  (``gateway.analyzer``, real child processes, no cache) and the default pack's evaluation — timed
  without any HTTP client overhead;
* over HTTP: dispatched (dry run) to a real one-worker gateway on its own (distinct cwd, so no cache
  answers it) while a prober hits /v1/health every 10 ms.

Per generator it prints p50/p99/max decision time, the HTTP p99, the verdicts, the slowest health probe
meanwhile (the event loop must never be blocked), and the worker's and analysis children's peak memory.

Targets (docs/performance.md): p99 <= 5 ms for dcg-189 with n <= 2,000; every 1 MB input decided in <= 100 ms; worker
RSS growth <= 256 MB; health never slower than 100 ms; no input over a limit allowed. The reference is
the same path on an ordinary command (`ls -la src`), measured in the same run, printed as a ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.dispatch import pid_on_port  # noqa: E402
from tests.support import RedisServer, free_port, gateway_process  # noqa: E402

ADMIN_KEY = "bench-admin-key"
SIZES = (1, 10, 50, 100, 200, 500, 1000, 2000)
MEGABYTE = 1_000_000  # under the gateway's 1 MiB body limit once wrapped in JSON

GENERATORS: dict[str, Callable[[int], str]] = {
    "dcg-189 nested $(": lambda n: "echo " + "$(echo " * n + "x" + ")" * n,
    "unclosed $(": lambda n: "echo " + "$(" * n,
    "pipeline": lambda n: "cat f | " * n + "wc -l",
    "dangling pipeline": lambda n: "a | " * n,
    "unclosed arrays a=(": lambda n: "a=(" * n,
    "cd chain": lambda n: "cd a;" * n,
    "deep subshells": lambda n: "(" * n + "true" + ")" * n,
    "deep braces": lambda n: "{ " * n + "true; " + "}; " * n,
    "unclosed if": lambda n: "if a; then " * n,
    "nested bash -c": lambda n: "bash -c " * n + "x",
}

ONE_MEGABYTE: dict[str, str] = {
    "1 MB word": "echo " + "a" * MEGABYTE,
    "1 MB commands": "a;" * (MEGABYTE // 2),
    "1 MB pipeline": "a | " * (MEGABYTE // 4),
    "1 MB quoted": "echo '" + "x" * MEGABYTE + "'",
    "1 MB here-document": "cat <<EOF\n" + "line | with a table cell |\n" * (MEGABYTE // 30) + "EOF\n",
    # the outside review's cases
    "review: 20k dangling pipeline": "a | " * 20_000,
    "review: a=( x 40,000": "a=(" * 40_000,
    "review: 256 KB of cd a;": "cd a;" * (256 * 1024 // 5),
    "review: 80 KB request": "cd a;" * (80 * 1024 // 5),
}


def vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children_of(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out.extend(int(x) for x in text)
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


class DecisionPath:
    """The gateway's decision path without HTTP: isolated analysis (no cache hits) + the default pack."""

    def __init__(self) -> None:
        from gateway.analyzer import Analyzer
        from gateway.rules.loader import load_dir

        self.analyzer = Analyzer(size=2)
        self.analyzer.start()
        self.pack = load_dir(ROOT / "rules")
        self.counter = 0

    def decide(self, command: str) -> tuple[float, str, bool]:
        """(milliseconds, verdict, limit hit) for one command."""
        from gateway.normalize import normalize
        from gateway.rules.engine import evaluate

        self.counter += 1
        cwd = f"/work/proj{self.counter}"  # a new cache key every time: measure the analysis itself
        started = time.perf_counter()
        facts = self.analyzer.facts(command, cwd, "/home/agent", ())
        call = normalize(run_id="default", agent_id="bench", role=None, provider="claude-code", tool="Bash",
                         input={"command": command}, cwd=cwd, home="/home/agent", shell_facts=facts)
        evaluation = evaluate(self.pack, call)
        elapsed = (time.perf_counter() - started) * 1000
        verdict = evaluation.terminal.action if evaluation.terminal else "default-deny"
        return elapsed, verdict, facts.limit is not None


async def over_http(url: str, workloads: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Per workload: HTTP p99 and the slowest concurrent health probe."""
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    counter = 0
    out: dict[str, dict[str, float]] = {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http, httpx.AsyncClient(
        base_url=url, timeout=30
    ) as prober:
        probes: list[float] = []
        stop = asyncio.Event()

        async def probe() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                await prober.get("/v1/health")
                probes.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.01)

        async def dispatch(command: str) -> float:
            nonlocal counter
            counter += 1
            body = {"run_id": "default", "agent_id": "bench", "provider": "claude-code", "tool": "Bash",
                    "input": {"command": command}, "cwd": f"/work/proj{counter}"}
            started = time.perf_counter()
            r = await http.post("/v1/dispatch", json=body, headers=auth, params={"dry_run": "true"})
            elapsed = (time.perf_counter() - started) * 1000
            if r.status_code != 200:
                raise RuntimeError(f"dispatch answered {r.status_code}: {r.text[:200]}")
            if r.json()["allowed"] and "not analysed" in r.json()["reason"]:
                raise RuntimeError("an input over a limit was allowed")
            return elapsed

        for _ in range(20):  # warm up: children started, code paths hot
            await dispatch("ls -la src")
        prober_task = asyncio.create_task(probe())
        for name, commands in workloads.items():
            probes.clear()
            times = [await dispatch(c) for c in commands]
            out[name] = {"http_p99_ms": round(pct(times, 99), 2), "health_max_ms": round(max(probes, default=0.0), 2)}
        stop.set()
        await prober_task
    return out


def measure(url: str, reps: int) -> dict[str, dict[str, object]]:
    workloads: dict[str, list[str]] = {"reference: ls -la src": ["ls -la src"] * (len(SIZES) * reps)}
    for name, make in GENERATORS.items():
        workloads[name] = [make(n) for n in SIZES for _ in range(reps)]
    for name, command in ONE_MEGABYTE.items():
        workloads[name] = [command] * reps
    path = DecisionPath()
    rows: dict[str, dict[str, object]] = {}
    try:
        for _ in range(50):
            path.decide("ls -la src")
        for name, commands in workloads.items():
            times: list[float] = []
            verdicts: dict[str, int] = {}
            over_limit_allowed = 0
            for command in commands:
                elapsed, verdict, limit = path.decide(command)
                times.append(elapsed)
                verdicts[verdict] = verdicts.get(verdict, 0) + 1
                over_limit_allowed += int(limit and verdict == "allow")
            rows[name] = {"samples": len(times), "p50_ms": round(statistics.median(times), 3),
                          "p99_ms": round(pct(times, 99), 3), "max_ms": round(max(times), 3),
                          "verdicts": verdicts, "over_limit_allowed": over_limit_allowed}
    finally:
        path.analyzer.close()
    for name, extra in asyncio.run(over_http(url, workloads)).items():
        rows[name].update(extra)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="commands per size n (and per 1 MB input)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    with ExitStack() as stack:
        server = RedisServer().start()
        stack.callback(server.stop)
        state = tempfile.mkdtemp(prefix="acteon-bench-")
        port = free_port()
        url = stack.enter_context(gateway_process(
            {"ACTEON_REDIS_URL": server.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": state}, port))
        pid = pid_on_port(port)
        worker_before = vm_hwm_mb(pid)
        rows = measure(url, args.reps)
        worker_after = vm_hwm_mb(pid)
        child_peaks = [vm_hwm_mb(c) for c in children_of(pid)]
    reference = rows["reference: ls -la src"]
    megabyte = [r for n, r in rows.items() if n in ONE_MEGABYTE]
    allowed = {n: r["over_limit_allowed"] for n, r in rows.items() if r["over_limit_allowed"]}
    figures = {
        "generators": rows,
        "worker_peak_rss_growth_mb": round(worker_after - worker_before, 1),
        "worker_peak_rss_mb": round(worker_after, 1),
        "analysis_children_peak_rss_mb": [round(x, 1) for x in child_peaks],
        "targets": {
            "dcg189_p99_le_5ms_for_n_le_2000": float(rows["dcg-189 nested $("]["p99_ms"]) <= 5.0,  # type: ignore[arg-type]
            "1mb_inputs_le_100ms": max(r["max_ms"] for r in megabyte) <= 100.0,  # type: ignore[index]
            "worker_rss_growth_le_256mb": worker_after - worker_before <= 256,
            "health_never_over_100ms": max(r["health_max_ms"] for r in rows.values()) <= 100.0,  # type: ignore[index]
            "no_input_over_a_limit_allowed": not allowed,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"shell worst case: one-worker gateway, sizes n in {SIZES}, {args.reps} commands per size")
        print(f"  {'generator':<31} {'decision ms: p50':>16} {'p99':>7} {'max':>7} {'p99/ref':>8} {'HTTP p99':>9}"
              f" {'health max':>11}  verdicts")
        ref99 = float(reference["p99_ms"])  # type: ignore[arg-type]
        for name, r in rows.items():
            print(f"  {name:<31} {r['p50_ms']:>16.2f} {r['p99_ms']:>7.2f} {r['max_ms']:>7.2f}"  # type: ignore[index]
                  f" {float(r['p99_ms']) / ref99:>8.1f} {r['http_p99_ms']:>9.2f}"  # type: ignore[arg-type, index]
                  f" {r['health_max_ms']:>9.2f}ms  {r['verdicts']}")  # type: ignore[index]
        print(f"  worker peak RSS {worker_after:.0f} MB (growth {worker_after - worker_before:.1f} MB);"
              f" analysis children peak {', '.join(f'{x:.0f}' for x in child_peaks)} MB")
        for target, ok in figures["targets"].items():  # type: ignore[attr-defined]
            print(f"  {'ok  ' if ok else 'MISS'} {target}")
        if allowed:
            print(f"  ALLOWED OVER A LIMIT: {allowed}")
    return 0 if all(figures["targets"].values()) else 1  # type: ignore[attr-defined]


if __name__ == "__main__":
    raise SystemExit(main())
