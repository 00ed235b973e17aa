"""The gateway on a Sentinel-watched Redis (docs/ha.md): real redis-server and sentinel processes on loopback,
every one password-protected. What a person decided is on a replica before the API says so; an open sentinel
is refused like an open Redis; without a replica to confirm, a decision is an error, never claimed done."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from gateway.store import nodes
from gateway.store.guard import OpenStore, check_requires_auth, refuse_open_store, store_endpoints
from gateway.store.topology import parse
from tests.redis_ha import SERVICE, Sentinels, running
from tests.support import free_port, gateway_process, wait_until

pytestmark = pytest.mark.redis
ADMIN_KEY = "sentinel-admin-key"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
APPROVE_PUSH = "rules:\n  - {name: approve-push, priority: 1, action: request_approval, when: {tool: Bash}}\n"


@pytest.fixture(scope="module")
def sentinels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sentinels]:
    with running(tmp_path_factory.mktemp("sentinel")) as ha:
        yield ha


@pytest.fixture(scope="module")
def gateway(sentinels: Sentinels, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"ACTEON_REDIS_URL": sentinels.url, "ACTEON_ADMIN_KEY": ADMIN_KEY,
           "ACTEON_STATE_DIR": str(tmp_path_factory.mktemp("state")), "ACTEON_REDIS_REPLICA_WAIT_MS": "300"}
    with gateway_process(env) as url:
        yield url


def _pending_approval(c: httpx.Client, run_id: str) -> tuple[dict[str, str], str]:
    r = c.post("/v1/runs", json={"run_id": run_id, "rules": APPROVE_PUSH}, headers=ADMIN)
    assert r.status_code == 201, r.text
    agent = {"Authorization": f"Bearer {r.json()['agent_key']}"}
    body = {"run_id": run_id, "agent_id": "a", "provider": "claude-code", "tool": "Bash",
            "input": {"command": "git push"}, "cwd": "/w"}
    d = c.post("/v1/dispatch", json=body, headers=agent).json()
    assert d["outcome"] == "pending_approval", d
    return agent, str(d["approval_id"])


def _on_replica(sentinels: Sentinels, run_id: str, approval_id: str) -> str | None:
    replica = sentinels.replicas[0]
    with redis.Redis(port=replica.port, password=sentinels.password, decode_responses=True) as r:
        value = r.hget(f"acteon:{{{run_id}}}:approval:{approval_id}", "status")
        return None if value is None else str(value)


def test_the_gateway_serves_from_the_master_the_sentinels_name(sentinels: Sentinels, gateway: str) -> None:
    with httpx.Client(base_url=gateway, timeout=10) as c:
        health = c.get("/v1/health").json()
        assert (health["status"], health["topology"], health["replica_acks"]) == ("ok", "sentinel", 1)
        assert str(sentinels.ports[0]) not in str(health)  # no key needed here: no addresses either
        body = {"run_id": "default", "agent_id": "a", "provider": "claude-code", "tool": "Bash",
                "input": {"command": "ls"}, "cwd": "/w"}
        assert c.post("/v1/dispatch", json=body, headers=ADMIN).json()["outcome"] == "executed"


def test_a_decision_is_on_a_replica_when_the_api_answers(sentinels: Sentinels, gateway: str) -> None:
    with httpx.Client(base_url=gateway, timeout=10) as c:
        _, approval_id = _pending_approval(c, "replicated")
        r = c.post(f"/v1/approvals/{approval_id}/approve", json={"by": "alice", "reason": "ok"}, headers=ADMIN)
        assert r.status_code == 200 and r.json()["status"] == "approved"
    # Read straight from the replica, with no wait of our own: WAIT already had it confirmed.
    assert _on_replica(sentinels, "replicated", approval_id) == "approved"


def test_without_a_replica_to_confirm_a_decision_is_an_error_not_done(sentinels: Sentinels, gateway: str) -> None:
    replica = sentinels.replicas[0]
    with httpx.Client(base_url=gateway, timeout=10) as c:
        _, approval_id = _pending_approval(c, "unconfirmed")
        replica.stop()
        try:
            r = c.post(f"/v1/approvals/{approval_id}/approve", json={"by": "alice", "reason": "ok"}, headers=ADMIN)
            assert r.status_code == 503
            assert r.json()["error"]["code"] == "not_replicated"
            assert "replica" in r.json()["error"]["message"]
        finally:
            replica.start()
        wait_until(lambda: sentinels.in_sync(sentinels.master_port()), timeout_s=20, what="the replica to catch up")
        # Whether the write survived is not claimed either way; once a replica confirms, asking again answers.
        def answered() -> bool:
            again = c.post(f"/v1/approvals/{approval_id}/approve", json={"by": "alice", "reason": "ok"},
                           headers=ADMIN)
            assert again.status_code in (200, 409, 503), again.text
            return again.status_code != 503

        wait_until(answered, timeout_s=20, what="a replica to confirm")
        assert c.get(f"/v1/approvals/{approval_id}", headers=ADMIN).json()["status"] == "approved"


def test_the_guard_reads_the_topology(sentinels: Sentinels) -> None:
    assert check_requires_auth(sentinels.url) is True
    refuse_open_store(sentinels.url)  # every node wants the password: no error
    layout = nodes.layout(parse(sentinels.url))
    assert layout.master == f"127.0.0.1:{sentinels.master_port()}"
    assert layout.replicas == tuple(f"127.0.0.1:{r.port}" for r in sentinels.replicas)
    assert len(layout.sentinels) == 3
    endpoints = store_endpoints(sentinels.url)  # agents are kept away from every node, sentinels included
    for port in (*sentinels.ports, sentinels.master.port, *(r.port for r in sentinels.replicas)):
        assert f"tcp:127.0.0.1:{port}" in endpoints


def test_an_open_sentinel_is_refused(sentinels: Sentinels, tmp_path: Path) -> None:
    """Through a sentinel without a password anyone could name another master; the gateway would follow."""
    port = free_port()
    conf = tmp_path / "open-sentinel.conf"
    conf.write_text(f"port {port}\nbind 127.0.0.1\ndir {tmp_path}\n"
                    f"sentinel monitor {SERVICE} 127.0.0.1 {sentinels.master_port()} 1\n"
                    f"sentinel auth-pass {SERVICE} {sentinels.password}\n")
    proc = subprocess.Popen([str(sentinels.master.binary), str(conf), "--sentinel"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def answers() -> bool:
            try:
                with redis.Redis(port=port, socket_timeout=0.5) as r:
                    return bool(r.ping())
            except redis.RedisError:
                return False

        wait_until(answers, what="open sentinel")
        url = f"redis+sentinel://:{sentinels.password}@127.0.0.1:{port}/{SERVICE}"
        assert check_requires_auth(url) is False
        with pytest.raises(OpenStore, match=f"sentinel at 127.0.0.1:{port} accepts commands without a password"):
            refuse_open_store(url)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_banner_names_master_replicas_and_sentinels(sentinels: Sentinels, tmp_path: Path) -> None:
    from gateway.config import Settings
    from gateway.rules import load_dir
    from gateway.startup import banner

    settings = Settings(redis_url=sentinels.url, state_dir=tmp_path, admin_key="k")
    lines = "\n".join(banner(settings, load_dir(settings.rules_dir), host="127.0.0.1", port=1, workers=1))
    assert f"Sentinel service '{SERVICE}' via " in lines and sentinels.password not in lines
    assert f"master 127.0.0.1:{sentinels.master_port()}; 1 replica" in lines
    assert "3 of 3 sentinels answering" in lines and "wait for 1 replica" in lines
    settings.replica_acks = 0  # ACTEON_REDIS_REPLICA_ACKS=0: the banner says what the gateway will do
    lines = "\n".join(banner(settings, load_dir(settings.rules_dir), host="127.0.0.1", port=1, workers=1))
    assert "do not wait for a replica (ACTEON_REDIS_REPLICA_ACKS=0)" in lines


@pytest.mark.slow
def test_everything_over_tls(tmp_path: Path) -> None:
    """rediss+sentinel://: TLS to the sentinels and the data nodes, replication over TLS too."""
    with running(tmp_path / "ha", tls=True) as ha:
        assert ha.url.startswith("rediss+sentinel://")
        assert check_requires_auth(ha.url) is True
        refuse_open_store(ha.url)
        assert nodes.layout(parse(ha.url)).master == f"127.0.0.1:{ha.master_port()}"
        env = {"ACTEON_REDIS_URL": ha.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "st")}
        with gateway_process(env) as url, httpx.Client(base_url=url, timeout=10) as c:
            assert c.get("/v1/health").json()["topology"] == "sentinel"
            _, approval_id = _pending_approval(c, "tls")
            r = c.post(f"/v1/approvals/{approval_id}/approve", json={"by": "alice", "reason": "ok"}, headers=ADMIN)
            assert r.status_code == 200, r.text
        with redis.Redis(host="127.0.0.1", port=ha.replicas[0].port, password=ha.password, ssl=True,
                         ssl_ca_certs=ha.tls[0] if ha.tls else None,
                         decode_responses=True) as replica:
            assert replica.hget(f"acteon:{{tls}}:approval:{approval_id}", "status") == "approved"
