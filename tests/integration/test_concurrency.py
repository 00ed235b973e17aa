"""Exactness under concurrency: two gateway processes on one real Redis, and on a Redis Cluster of three masters
and three replicas, many concurrent clients.

A throttle of N, a quota of N and a cross-agent dedup each admit exactly N (or exactly one agent),
trial after trial, and refused calls consume nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests import redis_cluster
from tests.support import RedisServer, gateway_process, require

pytestmark = pytest.mark.redis
ADMIN_KEY = "concurrency-admin-key"
CLIENTS = 48
TRIALS = 3


@contextmanager
def _store(kind: str) -> Iterator[str]:
    if kind == "cluster":
        with redis_cluster.running() as cluster:
            yield cluster.url
        return
    server = RedisServer()
    require("redis-server on PATH", server.binary is not None)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module", params=["redis", pytest.param("cluster", marks=pytest.mark.slow)])
def two_gateways(request, tmp_path_factory) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    with _store(request.param) as url:
        env = {"ACTEON_REDIS_URL": url, "ACTEON_ADMIN_KEY": ADMIN_KEY,
               "ACTEON_STATE_DIR": str(tmp_path_factory.mktemp("state"))}
        with gateway_process(env) as a, gateway_process(env) as b:
            yield [a, b]


async def _create_run(url: str, run_id: str, **body: object) -> str:
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as c:
        r = await c.post("/v1/runs", json={"run_id": run_id, **body})
        assert r.status_code == 201, r.text
        return str(r.json()["agent_key"])


async def _storm(urls: list[str], key: str, bodies: list[dict[str, object]]) -> list[str]:
    """Send every body at once, alternating between the gateways; return the outcomes."""
    limits = httpx.Limits(max_connections=CLIENTS)
    clients = [httpx.AsyncClient(base_url=u, headers={"Authorization": f"Bearer {key}"}, limits=limits,
                                 timeout=30) for u in urls]
    start = asyncio.Event()

    async def one(i: int, body: dict[str, object]) -> str:
        await start.wait()
        r = await clients[i % len(clients)].post("/v1/dispatch", json=body)
        assert r.status_code == 200, r.text
        return str(r.json()["outcome"])

    try:
        tasks = [asyncio.create_task(one(i, b)) for i, b in enumerate(bodies)]
        await asyncio.sleep(0)  # let every task reach the start line
        start.set()
        return list(await asyncio.gather(*tasks))
    finally:
        for c in clients:
            await c.aclose()


def _body(run_id: str, agent: str, **inp: object) -> dict[str, object]:
    tool = "Write" if "file_path" in inp else "Bash"
    return {"run_id": run_id, "agent_id": agent, "provider": "claude-code", "tool": tool, "input": inp,
            "cwd": "/work/proj"}


THROTTLE_N = """
rules:
  - {name: run-throttle, priority: 1, action: throttle, limit: 7, window_s: 3600, per: run}
  - {name: allow-all, priority: 2, action: allow}
"""


@pytest.mark.parametrize("trial", range(TRIALS))
def test_throttle_admits_exactly_n(two_gateways, trial) -> None:
    async def main() -> None:
        run = f"thr-{trial}"
        key = await _create_run(two_gateways[0], run, rules=THROTTLE_N)
        bodies = [_body(run, f"agent-{i}", command=f"echo {i}") for i in range(CLIENTS)]
        outcomes = await _storm(two_gateways, key, bodies)
        assert outcomes.count("executed") == 7
        assert outcomes.count("throttled") == CLIENTS - 7
        # refused calls consumed nothing: exactly 7 entries sit in the window
        again = await _storm(two_gateways, key, bodies[:5])
        assert again == ["throttled"] * 5

    asyncio.run(main())


@pytest.mark.parametrize("trial", range(TRIALS))
def test_quota_admits_exactly_n(two_gateways, trial) -> None:
    async def main() -> None:
        run = f"quota-{trial}"
        allow_all = "rules:\n  - {name: allow-all, priority: 1, action: allow}\n"
        key = await _create_run(two_gateways[1], run, rules=allow_all,
                                quota={"max_actions": 11, "window_s": 3600})
        outcomes = await _storm(two_gateways, key, [_body(run, f"a{i}", command="true") for i in range(CLIENTS)])
        assert outcomes.count("executed") == 11
        assert outcomes.count("quota_exceeded") == CLIENTS - 11
        async with httpx.AsyncClient(base_url=two_gateways[0],
                                     headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as c:
            quota = (await c.get(f"/v1/runs/{run}")).json()["quota"]
        assert quota["used"] == 11  # the 37 refusals consumed nothing

    asyncio.run(main())


@pytest.mark.parametrize("trial", range(TRIALS))
def test_cross_agent_dedup_admits_exactly_one_agent(two_gateways, trial) -> None:
    async def main() -> None:
        run = f"dedup-{trial}"
        key = await _create_run(two_gateways[0], run)
        bodies = [_body(run, f"agent-{i}", file_path="/work/proj/shared.py", content=str(i)) for i in range(CLIENTS)]
        outcomes = await _storm(two_gateways, key, bodies)
        assert outcomes.count("executed") == 1
        assert outcomes.count("deduplicated") == CLIENTS - 1

    asyncio.run(main())


def test_default_pack_throttle_and_stats_add_up(two_gateways) -> None:
    async def main() -> None:
        run = "stats"
        key = await _create_run(two_gateways[0], run)
        outcomes = await _storm(two_gateways, key, [_body(run, "one-agent", command="ls") for _ in range(CLIENTS)])
        assert outcomes.count("executed") == 12  # throttle-agent-commands: 12 per minute per agent
        async with httpx.AsyncClient(base_url=two_gateways[1],
                                     headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as c:
            stats = (await c.get(f"/v1/runs/{run}/stats")).json()
            audit = (await c.get(f"/v1/runs/{run}/audit?limit=1000")).json()["records"]
        assert stats["dispatched"] == len(audit) == CLIENTS
        assert stats["executed"] == 12 and stats["throttled"] == CLIENTS - 12

    asyncio.run(main())


# --- scope claims -----------------------------------------------------------------------------------

CLAIMERS = 32
OVERLAPPING = ["src/**", "src/api/*.py", "**/*.py", "src/api/users.py", "src/*/users.py", "**"]


async def _claim(c: httpx.AsyncClient, repo: str, owner: str, globs: list[str], ttl_s: float = 30) -> httpx.Response:
    return await c.post("/v1/claims", json={"repo": repo, "owner": owner, "globs": globs, "ttl_s": ttl_s})


@pytest.mark.parametrize("trial", range(TRIALS))
def test_32_claimers_on_overlapping_globs_exactly_one_holds(two_gateways, trial) -> None:
    async def main() -> None:
        repo = f"/repos/exact-{trial}/.git"
        clients = [httpx.AsyncClient(base_url=u, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30)
                   for u in two_gateways]
        start = asyncio.Event()

        async def one(i: int) -> int:
            await start.wait()
            r = await _claim(clients[i % 2], repo, f"run{i}/t", [OVERLAPPING[i % len(OVERLAPPING)]])
            assert r.status_code in (201, 409), r.text
            return r.status_code

        try:
            tasks = [asyncio.create_task(one(i)) for i in range(CLAIMERS)]
            await asyncio.sleep(0)
            start.set()
            codes = await asyncio.gather(*tasks)
            held = (await clients[1].get("/v1/claims", params={"repo": repo})).json()["claims"]
        finally:
            for c in clients:
                await c.aclose()
        assert codes.count(201) == 1 and codes.count(409) == CLAIMERS - 1
        assert len(held) == 1

    asyncio.run(main())


@pytest.mark.slow
def test_claimers_taking_turns_never_hold_overlapping_claims_at_once(two_gateways) -> None:
    """Each of 32 claimers claims until granted, holds, releases; at no moment do two hold at once, and every
    grant carries a larger fencing token than the one before."""

    async def main() -> None:
        repo = "/repos/turns/.git"
        clients = [httpx.AsyncClient(base_url=u, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30)
                   for u in two_gateways]
        holders = 0
        peak = 0
        tokens: list[int] = []

        async def one(i: int) -> None:
            nonlocal holders, peak
            c = clients[i % 2]
            while True:
                r = await _claim(c, repo, f"run{i}/t", [OVERLAPPING[i % len(OVERLAPPING)]])
                if r.status_code == 201:
                    break
                assert r.status_code == 409, r.text
                await asyncio.sleep(0.002)
            got = r.json()
            holders += 1
            peak = max(peak, holders)
            tokens.append(got["token"])
            await asyncio.sleep(0.005)
            holders -= 1
            released = await c.delete(f"/v1/claims/{got['claim_id']}", params={"repo": repo, "token": got["token"]})
            assert released.json()["released"] is True

        try:
            await asyncio.gather(*(one(i) for i in range(CLAIMERS)))
        finally:
            for c in clients:
                await c.aclose()
        assert peak == 1 and len(tokens) == CLAIMERS
        assert tokens == sorted(tokens) and len(set(tokens)) == CLAIMERS

    asyncio.run(main())


@pytest.mark.parametrize("trial", range(TRIALS))
def test_sub_agent_cap_admits_exactly_n(two_gateways, trial) -> None:
    async def main() -> None:
        run = f"spawn-{trial}"
        allow_all = "rules:\n  - {name: allow-all, priority: 1, action: allow}\n"
        key = await _create_run(two_gateways[0], run, rules=allow_all, agents={"max_live": 5, "max_depth": 2})
        bodies = [{**_body(run, f"a{i}"), "tool": "Agent", "tool_use_id": f"toolu_{i}",
                   "input": {"description": "d", "prompt": "p"}} for i in range(CLIENTS)]
        outcomes = await _storm(two_gateways, key, bodies)
        assert outcomes.count("executed") == 5 and outcomes.count("suppressed") == CLIENTS - 5

    asyncio.run(main())


MINTERS = 24


@pytest.mark.parametrize("trial", range(TRIALS))
def test_two_workers_minting_one_attempt_get_exactly_one_key_and_the_loser_is_cut_off(two_gateways, trial) -> None:
    """Two machines that both believe they own a subtask mint its next attempt at once, through both gateway
    processes: exactly one key is minted per attempt, and once attempt 2 exists every call of attempt 1's
    agent is superseded on either gateway."""
    run_id = f"attempts-{trial}"

    async def main() -> None:
        await _create_run(two_gateways[0], run_id)
        admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        async with httpx.AsyncClient(headers=admin, timeout=30) as c:
            worker_keys = []
            for name in (f"box-a-{trial}", f"box-b-{trial}"):
                r = await c.post(f"{two_gateways[0]}/v1/workers", json={"name": name})
                worker_keys.append(r.json()["worker_key"])
        clients = [httpx.AsyncClient(base_url=u, headers={"Authorization": f"Bearer {k}"}, timeout=30)
                   for u, k in zip(two_gateways, worker_keys, strict=True)]
        start = asyncio.Event()

        async def mint(i: int, attempt: int) -> tuple[int, str]:
            await start.wait()
            r = await clients[i % 2].post(f"/v1/runs/{run_id}/attempts", json={"agent_id": "a.1", "attempt": attempt})
            assert r.status_code in (201, 409), r.text
            return r.status_code, r.json().get("agent_key", "")

        try:
            tasks = [asyncio.create_task(mint(i, 1)) for i in range(MINTERS)]
            await asyncio.sleep(0)
            start.set()
            first = await asyncio.gather(*tasks)
            start.clear()
            tasks = [asyncio.create_task(mint(i, 2)) for i in range(MINTERS)]
            await asyncio.sleep(0)
            start.set()
            second = await asyncio.gather(*tasks)
        finally:
            for c in clients:
                await c.aclose()
        assert [code for code, _ in first].count(201) == 1 and [code for code, _ in second].count(201) == 1
        old = next(key for code, key in first if code == 201)
        new = next(key for code, key in second if code == 201)
        body = _body(run_id, "a.1", command="ls")
        assert set(await _storm(two_gateways, old, [body] * 8)) == {"superseded"}
        assert set(await _storm(two_gateways, new, [body] * 8)) == {"executed"}

    asyncio.run(main())
