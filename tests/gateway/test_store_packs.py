"""Each run's copy of which global pack is in force (gateway/store/packs.py): decisions read the copy, so it must
never be older than the pack an install has answered for, whatever runs, installs and decisions interleave."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import fakeredis

from gateway.store import keys, packs, runs
from gateway.store.backend import Backend

RULES = [{"name": "allow-all", "priority": 1, "action": "allow"}]


def _backend(now: list[int]) -> Backend:
    redis = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer(), decode_responses=True)
    return Backend(redis, clock=lambda: now[0])


def _run(coro: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro())


async def _copy(backend: Backend, run_id: str) -> tuple[str | None, int]:
    serial, version = await backend.redis.hmget(keys.run(run_id), ["g_serial", "g_version"])
    return version, int(serial or 0)


def test_every_install_has_a_larger_serial_even_after_the_store_lost_the_pack() -> None:
    now = [1_000]

    async def main() -> None:
        backend = _backend(now)
        first = await packs.install_global_rules(backend, RULES, "v1", "files", force=False)
        second = await packs.install_global_rules(backend, RULES, "v2", "api", force=True)
        assert first == ("v1", 1_000) and second == ("v2", 1_001)  # the clock did not move: previous + 1
        # 'absent' installs nothing while a pack is in force, and says which one is
        assert await packs.install_global_rules(backend, RULES, "v3", "files", force=False) == ("v2", 1_001)
        await backend.redis.delete(keys.GLOBAL_RULES)  # the store lost it
        now[0] = 5_000
        assert await packs.install_global_rules(backend, RULES, "v3", "files", force=False) == ("v3", 5_000)

    _run(main)


def test_an_install_reaches_every_run_and_a_copy_is_never_lowered() -> None:
    now = [1_000]

    async def main() -> None:
        backend = _backend(now)
        await packs.install_global_rules(backend, RULES, "v1", "files", force=False)
        for run_id in ("a", "b"):
            await runs.create(backend, run_id, agent_key_hash="", quota=None, rules=None, rules_version="0")
        assert await _copy(backend, "a") == await _copy(backend, "b") == ("v1", 1_000)
        await packs.install_global_rules(backend, RULES, "v2", "api", force=True)
        assert await _copy(backend, "a") == await _copy(backend, "b") == ("v2", 1_001)
        # a late copy of an older install (two installs racing) leaves the newer one in place
        await backend.durable(packs.copy_to_run(backend, "a", "v1", 1_000))
        assert await _copy(backend, "a") == ("v2", 1_001)

    _run(main)


def test_a_run_created_while_a_pack_is_installed_gets_the_new_pack() -> None:
    """The run is indexed, reads the old pack, and only then does the install write and copy the new one: the
    install finds the run in the index, and the run's own (older) copy does not undo the install's."""
    now = [1_000]

    async def main() -> None:
        backend = _backend(now)
        await packs.install_global_rules(backend, RULES, "v1", "files", force=False)
        real_in_force = packs.in_force

        async def in_force_then_install(b: Backend) -> tuple[str, int] | None:
            found = await real_in_force(b)  # the run read v1 …
            await packs.install_global_rules(b, RULES, "v2", "api", force=True)  # … then v2 came
            return found

        packs.in_force = in_force_then_install  # type: ignore[assignment]
        try:
            await runs.create(backend, "late", agent_key_hash="", quota=None, rules=None, rules_version="0")
        finally:
            packs.in_force = real_in_force  # type: ignore[assignment]
        assert await _copy(backend, "late") == ("v2", 1_001)
        assert (await runs.get(backend, "late"))["status"] == "active"

    _run(main)
