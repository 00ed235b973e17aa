"""A small HTTP/1.1 keep-alive load generator on raw asyncio streams.

httpx costs more CPU per request than the servers being measured, so on a 2-core machine it would
measure itself. This sends pre-encoded requests and reads responses by Content-Length.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class Result:
    requests: int
    seconds: float
    latencies_ms: list[float]
    statuses: dict[int, int]
    bodies: list[bytes]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def pct(self, p: float) -> float:
        xs = sorted(self.latencies_ms)
        return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def encode(host: str, port: int, path: str, body: dict[str, Any], headers: dict[str, str]) -> bytes:
    payload = json.dumps(body).encode()
    head = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", "Content-Type: application/json",
            f"Content-Length: {len(payload)}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    return status, await reader.readexactly(length)


async def run(host: str, port: int, requests: list[bytes], concurrency: int, keep: int = 0) -> Result:
    """Send every request once over ``concurrency`` connections; keep the first ``keep`` bodies."""
    queue = list(reversed(range(len(requests))))
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    bodies: list[bytes] = []

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while queue:
                i = queue.pop()
                t0 = time.perf_counter()
                writer.write(requests[i])
                status, body = await _read_response(reader)
                latencies.append((time.perf_counter() - t0) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                if len(bodies) < keep:
                    bodies.append(body)
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Result(len(requests), time.perf_counter() - started, latencies, statuses, bodies)
