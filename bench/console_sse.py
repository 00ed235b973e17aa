"""The console's live feed under load: does watching slow deciding?

    python bench/console_sse.py [--clients 50] [--rate 100] [--seconds 30]

A gateway process (one worker) on a real redis-server. Dispatches are paced at ``--rate`` per second for
``--seconds`` in alternated phases, ``--rounds`` times: with no console open (the reference, measured in
the same run), then with ``--clients`` signed-in browsers' worth of Server-Sent Events streams on the run's
page (its live decision feed), read by a separate process so the readers' CPU does not land in the load
generator. Printed: the dispatch latency p50/p99 of every phase, the ratio of the median p99s (target:
with clients ≤ 1.5 × without), and whether every client received every decision of its phase.

On a 2-core machine everything shares the cores: the gateway, Redis, the load generator and the readers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.loadgen import _read_response, encode  # noqa: E402
from tests.support import RedisServer, gateway_process  # noqa: E402

ADMIN_KEY = "bench-admin-" + secrets.token_hex(8)


def session_cookie(url: str, key: str) -> str:
    with httpx.Client(base_url=url, timeout=10) as c:
        csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/console/login").text)
        assert csrf is not None
        r = c.post("/console/login", data={"key": key, "csrf": csrf.group(1)})
        assert r.status_code == 303, r.text
        return str(c.cookies["acteon_session"])


async def _reader(host: str, port: int, path: str, cookie: str, counts: list[int], i: int, ready: asyncio.Event,
                  opened: list[int], total: int) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
                  f"Cookie: acteon_session={cookie}\r\n\r\n").encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    opened[0] += 1
    if opened[0] == total:
        ready.set()
    # Count events in raw reads (a marker split across two reads is caught by keeping the tail): the readers
    # share the two cores with what is measured, so they must cost as little as a socket read.
    marker = b"\nevent: decision"
    tail = b""
    while True:
        data = await reader.read(1 << 16)
        if not data:
            return
        buf = tail + data
        counts[i] += buf.count(marker)
        tail = buf[-(len(marker) - 1):]


def readers_process(url: str, path: str, cookie: str, clients: int, conn: Any) -> None:
    """Open ``clients`` streams, say when all are open, then report per-client counts when asked."""
    host, port = url.removeprefix("http://").split(":")

    async def main() -> None:
        counts = [0] * clients
        ready = asyncio.Event()
        opened = [0]
        tasks = [asyncio.create_task(_reader(host, int(port), path, cookie, counts, i, ready, opened, clients))
                 for i in range(clients)]
        await asyncio.wait_for(ready.wait(), 60)
        conn.send("open")
        while True:
            msg = await asyncio.to_thread(conn.recv)
            if msg == "counts":
                conn.send(list(counts))
            elif msg == "stop":
                break
        for t in tasks:
            t.cancel()

    try:  # the readers share the cores with what is measured: the cheapest event loop there is
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())


async def paced(host: str, port: int, requests: list[bytes], rate: float, connections: int = 16) -> list[float]:
    """Send ``requests`` at ``rate`` per second (by the schedule, not as fast as possible); latencies in ms."""
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
    latencies: list[float] = []
    start = time.perf_counter() + 0.2

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        while (item := await queue.get()) is not None:
            due, req = item
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            t0 = time.perf_counter()
            writer.write(req)
            await writer.drain()
            status, _body = await _read_response(reader)
            assert status == 200, status
            latencies.append((time.perf_counter() - t0) * 1000)
        writer.close()

    for i, req in enumerate(requests):
        queue.put_nowait((start + i / rate, req))
    for _ in range(connections):
        queue.put_nowait(None)
    await asyncio.gather(*(worker() for _ in range(connections)))
    return latencies


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=3, help="quiet/watched phase pairs, alternated")
    args = ap.parse_args()
    n = int(args.rate * args.seconds)
    quiet_p99: list[float] = []
    watched_p99: list[float] = []
    quiet_p50: list[float] = []
    watched_p50: list[float] = []
    complete: list[bool] = []
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        redis = RedisServer().start()
        stack.callback(redis.stop)
        url = stack.enter_context(gateway_process({"ACTEON_REDIS_URL": redis.url, "ACTEON_ADMIN_KEY": ADMIN_KEY,
                                                   "ACTEON_STATE_DIR": str(Path(tmp) / "state")}))
        host, port = url.removeprefix("http://").split(":")
        admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        operator = httpx.post(f"{url}/v1/operators", json={"name": "bench", "role": "viewer"},
                              headers=admin).json()["operator_key"]
        cookie = session_cookie(url, operator)

        def requests(run_id: str) -> list[bytes]:
            key = httpx.post(f"{url}/v1/runs", json={"run_id": run_id}, headers=admin).json()["agent_key"]
            # Reads of files in the workspace by many agents: executed, and under every per-agent throttle.
            return [encode(host, int(port), "/v1/dispatch", {
                "run_id": run_id, "agent_id": f"agent-{i % 500}", "provider": "claude", "tool": "Read",
                "input": {"file_path": f"/work/src/module_{i}.py"}, "cwd": "/work"},
                {"Authorization": f"Bearer {key}"}) for i in range(n)]

        asyncio.run(paced(host, int(port), requests("warm-up")[:300], 200))
        for r in range(args.rounds):
            quiet = asyncio.run(paced(host, int(port), requests(f"quiet-{r}"), args.rate))
            run_id = f"watched-{r}"
            reqs = requests(run_id)
            parent, child = multiprocessing.Pipe()
            proc = multiprocessing.Process(target=readers_process,
                                           args=(url, f"/console/live/runs/{run_id}", cookie, args.clients, child))
            proc.start()
            assert parent.recv() == "open"
            watched = asyncio.run(paced(host, int(port), reqs, args.rate))
            deadline = time.monotonic() + 30
            counts: list[int] = []
            while time.monotonic() < deadline:
                parent.send("counts")
                counts = parent.recv()
                if min(counts) >= n:
                    break
                time.sleep(0.2)
            parent.send("stop")
            proc.join(10)
            quiet_p99.append(pct(quiet, 99))
            watched_p99.append(pct(watched, 99))
            quiet_p50.append(statistics.median(quiet))
            watched_p50.append(statistics.median(watched))
            complete.append(bool(counts) and min(counts) == n == max(counts))
            print(f"round {r + 1}: p99 {quiet_p99[-1]:.2f} ms without, {watched_p99[-1]:.2f} ms with "
                  f"{args.clients} clients ({watched_p99[-1] / quiet_p99[-1]:.2f}x); every client got all {n}: "
                  f"{complete[-1]}", file=sys.stderr)
    ratio = statistics.median(watched_p99) / statistics.median(quiet_p99)
    result = {
        "clients": args.clients, "rate_per_s": args.rate, "seconds": args.seconds, "rounds": args.rounds,
        "decisions_per_phase": n,
        "without_clients_ms": {"p50": [round(x, 2) for x in quiet_p50], "p99": [round(x, 2) for x in quiet_p99]},
        "with_clients_ms": {"p50": [round(x, 2) for x in watched_p50], "p99": [round(x, 2) for x in watched_p99]},
        "p99_ratio_per_round": [round(w / q, 2) for w, q in zip(watched_p99, quiet_p99, strict=True)],
        "p99_ratio_of_medians": round(ratio, 2), "target_p99_ratio": 1.5,
        "every_client_got_every_event": all(complete),
    }
    print(json.dumps(result, indent=2))
    print(f"dispatch p99 with {args.clients} console clients / without (median of {args.rounds} alternated rounds): "
          f"{ratio:.2f}x (target <= 1.5); every client got every decision in every round: {all(complete)}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
