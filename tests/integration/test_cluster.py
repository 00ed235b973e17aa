"""The gateway on a Redis Cluster (docs/ha.md): three masters and three replicas, real processes on loopback, every
one password-protected. A person's decision is on the replica of its slot's master before the API says so; an
open node is refused like an open Redis; the banner, the health route and the shell analysis see every node."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from gateway.store import nodes
from gateway.store.guard import OpenStore, check_requires_auth, refuse_open_store, store_endpoints
from gateway.store.topology import parse
from tests.redis_cluster import Cluster, running
from tests.support import RedisServer, gateway_process, require

pytestmark = pytest.mark.redis
ADMIN_KEY = "cluster-admin-key"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
ALLOW_ALL = "rules:\n  - {name: all, priority: 1, action: allow}\n"
APPROVE_PUSH = "rules:\n  - {name: approve-push, priority: 1, action: request_approval, when: {tool: Bash}}\n"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running() as c:
        yield c


@pytest.fixture(scope="module")
def gateway(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"ACTEON_REDIS_URL": cluster.url, "ACTEON_ADMIN_KEY": ADMIN_KEY,
           "ACTEON_STATE_DIR": str(tmp_path_factory.mktemp("state"))}
    with gateway_process(env) as url:
        yield url


def test_decisions_and_approvals_on_every_master(cluster: Cluster, gateway: str) -> None:
    """Runs spread over the three masters; each approval is on its master's replica when the API answers."""
    with httpx.Client(base_url=gateway, timeout=10) as c:
        health = c.get("/v1/health").json()
        assert (health["status"], health["topology"], health["replica_acks"]) == ("ok", "cluster", 1)
        assert str(cluster.nodes[0].port) not in str(health)
        masters = set()
        for i in range(12):
            run_id = f"spread-{i}"
            masters.add(cluster.master_of(f"acteon:{{{run_id}}}:run"))
            r = c.post("/v1/runs", json={"run_id": run_id, "rules": APPROVE_PUSH}, headers=ADMIN)
            assert r.status_code == 201, r.text
            agent = {"Authorization": f"Bearer {r.json()['agent_key']}"}
            body = {"run_id": run_id, "agent_id": "a", "provider": "claude-code", "tool": "Bash",
                    "input": {"command": "git push"}, "cwd": "/w"}
            approval_id = c.post("/v1/dispatch", json=body, headers=agent).json()["approval_id"]
            r = c.post(f"/v1/approvals/{approval_id}/approve", json={"by": "alice", "reason": "ok"}, headers=ADMIN)
            assert r.status_code == 200 and r.json()["status"] == "approved"
            key = f"acteon:{{{run_id}}}:approval:{approval_id}"
            replica = _replica_of(cluster, cluster.master_of(key))
            with redis.Redis(port=replica, password=cluster.password, decode_responses=True) as rep:
                rep.execute_command("READONLY")
                assert rep.hget(key, "status") == "approved"  # WAIT had it confirmed: no wait of ours
            assert c.post("/v1/dispatch", json=body, headers=agent).json()["outcome"] == "executed"
        assert len(masters) == 3


def test_a_run_moved_to_another_master_mid_load_keeps_exact_counts(cluster: Cluster, gateway: str) -> None:
    """The run's slot migrates while 8 clients dispatch: the client follows ASK, TRYAGAIN and MOVED on its own.
    Every call is answered (a 503 at worst while a script's keys are split between the masters), and the quota,
    the stats and the audit count the calls that were executed — and at most the 503s besides: a call that timed
    out after its script ran on a master was decided, though its answer was lost (the agent was refused)."""
    with httpx.Client(base_url=gateway, headers=ADMIN, timeout=10) as c:
        r = c.post("/v1/runs", json={"run_id": "moving", "rules": ALLOW_ALL,
                                     "quota": {"max_actions": 1_000_000, "window_s": 3600}})
        key = r.json()["agent_key"]
    run_key = "acteon:{moving}:run"
    source = cluster.master_of(run_key)
    target = next(p for p, role in cluster.roles().items() if role == "master" and p != source)
    answers: list[tuple[int, str]] = []

    async def main() -> None:
        moved, started = asyncio.Event(), asyncio.Event()

        async def client(i: int) -> None:
            async with httpx.AsyncClient(base_url=gateway, headers={"Authorization": f"Bearer {key}"},
                                         timeout=10) as a:
                n, after = 0, 0
                while after < 40:
                    body = {"run_id": "moving", "agent_id": f"a{i}", "provider": "claude-code", "tool": "Bash",
                            "input": {"command": f"echo {n}"}, "cwd": "/w"}
                    r = await a.post("/v1/dispatch", json=body)
                    answers.append((r.status_code, r.json().get("outcome", "") if r.status_code == 200 else ""))
                    if len(answers) >= 200:
                        started.set()  # a count, not a duration: the move starts under load
                    n += 1
                    after += moved.is_set()

        async def mover() -> None:
            await started.wait()
            await asyncio.to_thread(cluster.move_slot, run_key, target)
            moved.set()

        await asyncio.gather(mover(), *(client(i) for i in range(8)))

    asyncio.run(main())
    assert cluster.master_of(run_key) == target
    assert {status for status, _ in answers} <= {200, 503}
    executed = sum(1 for status, outcome in answers if status == 200 and outcome == "executed")
    unanswered = sum(1 for status, _ in answers if status == 503)
    with httpx.Client(base_url=gateway, headers=ADMIN, timeout=10) as c:
        used = c.get("/v1/runs/moving").json()["quota"]["used"]
        counted = c.get("/v1/runs/moving/stats").json()["executed"]
    with cluster.client(target) as t:
        audited = t.xlen("acteon:{moving}:audit")
    for kept in (used, counted, audited):
        assert executed <= kept <= executed + unanswered
    print(f"\n{len(answers)} answers across the move, {sum(s == 503 for s, _ in answers)} of them 503")


def test_scripts_flushed_from_every_node_are_loaded_again(cluster: Cluster, gateway: str) -> None:
    for port, role in cluster.roles().items():
        if role == "master":
            with cluster.client(port) as c:
                c.script_flush()
    body = {"run_id": "default", "agent_id": "a", "provider": "claude-code", "tool": "Bash",
            "input": {"command": "ls"}, "cwd": "/w"}
    with httpx.Client(base_url=gateway, timeout=10) as c:
        assert c.post("/v1/dispatch", json=body, headers=ADMIN).json()["outcome"] == "executed"


def _replica_of(cluster: Cluster, master_port: int) -> int:
    with cluster.client(master_port) as c:
        info = c.info("replication")
    return next(int(v["port"]) for k, v in info.items() if k.startswith("slave") and isinstance(v, dict))


def test_the_guard_banner_and_shell_analysis_see_every_node(cluster: Cluster, tmp_path: Path) -> None:
    from gateway.config import Settings
    from gateway.rules import load_dir
    from gateway.startup import banner

    assert check_requires_auth(cluster.url) is True
    refuse_open_store(cluster.url)
    layout = nodes.layout(parse(cluster.url))
    assert len(layout.masters) == 3 and len(layout.replicas) == 3
    endpoints = store_endpoints(cluster.url)  # agents are kept away from every node, not only the seeds
    for node in cluster.nodes:
        assert f"tcp:127.0.0.1:{node.port}" in endpoints
    settings = Settings(redis_url=cluster.url, state_dir=tmp_path, admin_key="k")
    lines = "\n".join(banner(settings, load_dir(settings.rules_dir), host="127.0.0.1", port=1, workers=1))
    assert "Cluster via " in lines and cluster.password not in lines
    assert "3 masters (" in lines and "3 replicas (" in lines and "wait for 1 replica" in lines


def test_an_open_cluster_node_is_refused() -> None:
    """Through a node without a password anyone could rewrite the store or take over slots."""
    node = RedisServer(password=None, cluster=True)
    require("redis-server on PATH", node.binary is not None and shutil.which("redis-cli") is not None)
    node.start()
    try:
        url = f"redis+cluster://:whatever@127.0.0.1:{node.port}"
        assert check_requires_auth(url) is False
        with pytest.raises(OpenStore, match=f"cluster node at 127.0.0.1:{node.port} accepts commands without"):
            refuse_open_store(url)
    finally:
        node.stop()


def test_a_global_throttle_stops_the_gateway_at_start(cluster: Cluster, tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.support import ROOT

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "pack.yaml").write_text(
        "rules:\n  - {name: everyone, priority: 1, action: throttle, limit: 5, window_s: 60, per: global}\n")
    env = {"ACTEON_REDIS_URL": cluster.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "s"),
           "ACTEON_RULES_DIR": str(rules), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "gateway.cli", "--port", "1"], env=env, cwd=str(ROOT),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "'per: global' cannot be exact on a Redis Cluster" in out.stderr
    assert "Traceback" not in out.stderr
