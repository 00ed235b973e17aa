"""kill -9 of the master under load (docs/ha.md): two gateway processes, 32 concurrent clients, a Sentinel
failover. The gateways find the new master on their own within a bound; what was acknowledged as a person's
decision or a rule pack is in force after it; the counters and the audit lose at most the decisions of the
last replication lag, which the test measures and bounds."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.failover_load import (
    ALLOW_ALL,
    CLIENTS,
    acknowledge,
    assert_recovered,
    load_and_kill,
    writes_go_through_again,
)
from tests.redis_ha import Sentinels, running
from tests.support import gateway_process

pytestmark = [pytest.mark.redis, pytest.mark.slow]
ADMIN_KEY = "failover-admin-key"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
LOST_BOUND = CLIENTS  # acknowledged decisions the new master may not have: one in flight per client at most


@pytest.fixture
def ha(tmp_path: Path) -> Iterator[Sentinels]:
    with running(tmp_path) as sentinels:
        yield sentinels


@pytest.mark.parametrize("failure", ["kill -9", "SIGSTOP"])
def test_a_master_lost_under_load(ha: Sentinels, tmp_path: Path, failure: str) -> None:
    """kill -9 closes the master's connections at once; SIGSTOP leaves them open and silent, as a master cut
    off by the network does: calls on them end at the store timeout."""
    env = {"ACTEON_REDIS_URL": ha.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "state")}
    with gateway_process(env) as a, gateway_process(env) as b, httpx.Client(base_url=a, headers=ADMIN,
                                                                           timeout=10) as c:
        before = acknowledge(c, "decided")  # a person's decision and a new rule pack, both acknowledged
        r = c.post("/v1/runs", json={"run_id": "load", "rules": ALLOW_ALL,
                                     "quota": {"max_actions": 1_000_000, "window_s": 3600}})
        key = r.json()["agent_key"]

        old_port = ha.master_port()
        # The replication lag under this load, sampled until the kill: how far the replica trails, in bytes
        # and in decisions (the stream's growth per decision acknowledged) — what a failover may lose.
        samples: list[tuple[int, int]] = []

        def sample() -> None:
            while not killed_at:
                now = ha.replication(old_port)
                if now is not None:
                    samples.append(now)
                time.sleep(0.005)

        killed_at: list[float] = []
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        load, _ = load_and_kill([a, b], key, "load", ha.kill_master if failure == "kill -9" else ha.freeze_master,
                                killed_at)
        sampler.join(timeout=10)
        new_port = ha.wait_failover(old_port)
        assert new_port != old_port

        assert_recovered(load, killed_at[0], failure)

        before.in_force([a, b], ADMIN)  # what was acknowledged is in force after the failover, on both gateways

        # The old master comes back, empty, as the new master's replica: approvals and packs go through again.
        ha.revive()
        with httpx.Client(base_url=b, headers=ADMIN, timeout=10) as other:
            writes_go_through_again(c, other, "decided", before.agent)

        # Counters and the audit: at most the decisions of the last replication lag are gone.
        executed = load.executed()
        used = c.get("/v1/runs/load").json()["quota"]["used"]
        counted = c.get("/v1/runs/load/stats").json()["executed"]
        with redis.Redis(port=new_port, password=ha.password) as r:
            audited = int(r.xlen("acteon:{load}:audit"))
        print(f"executed {executed}; quota used {used}; stats {counted}; audit {audited}")
        before_kill = sum(1 for t, _, status, outcome in load.answers
                          if t < killed_at[0] and status == 200 and outcome == "executed")
        if len(samples) > 1 and before_kill:
            per_decision = (samples[-1][0] - samples[0][0]) / before_kill
            worst = max(gap for _, gap in samples)
            print(f"replication lag: at most {worst} bytes, {worst / per_decision:.1f} decisions "
                  f"({per_decision:.0f} bytes each, {len(samples)} samples)")
        for kept in (used, counted, audited):
            assert executed - LOST_BOUND <= kept <= executed + CLIENTS  # + answers lost on the way back


def test_the_notification_subscription_leaves_a_frozen_master(ha: Sentinels) -> None:
    """A master that hangs never closes its connections: the gateway's subscription (approvals for the console
    and long polls, new rule packs) notices the silence, and subscribes again on the master now in place."""
    from gateway.notify import Notifier
    from gateway.store.backend import Backend, connect

    async def main() -> list[str]:
        heard: list[str] = []

        async def no_rules() -> None:
            return None

        notifier = Notifier(Backend(connect(ha.url)), no_rules)
        notifier.on_approval.append(lambda approval_id, _new: heard.append(approval_id))
        notifier.start()

        async def publish_until_heard(port: int, name: str) -> None:
            with redis.Redis(port=port, password=ha.password) as r:
                deadline = time.monotonic() + 30
                while name not in heard and time.monotonic() < deadline:
                    await asyncio.to_thread(r.publish, "acteon:notify", f"approval-new:{name}")
                    await asyncio.sleep(0.2)  # readiness polling: the assertion is on what was heard, not when

        try:
            await publish_until_heard(ha.master_port(), "before")
            old = await asyncio.to_thread(ha.freeze_master)
            new = await asyncio.to_thread(ha.wait_failover, old)
            await publish_until_heard(new, "after")
        finally:
            await notifier.stop()
        return heard

    heard = asyncio.run(main())
    assert "before" in heard and "after" in heard
