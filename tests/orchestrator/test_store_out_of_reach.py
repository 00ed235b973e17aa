"""An orchestrated run on a real, password-protected Redis. No agent's environment
holds the store's URL, its password, the admin key or a key path, and an agent that reaches for the
store with a Redis client is blocked and audited (its write never lands)."""

from __future__ import annotations

import json
from pathlib import Path

import redis

from tests.orchestrator.test_run import cli, plan, task, write_plan
from tests.support import gateway_process

ADMIN = "store-test-admin-key-0123"


def test_agents_cannot_see_or_reach_the_store(tmp_path: Path, redis_server: str) -> None:
    store = redis.Redis.from_url(redis_server)
    store.delete("pwned")
    password = store.connection_pool.connection_kwargs["password"]
    port = store.connection_pool.connection_kwargs["port"]
    ws = tmp_path / "ws"
    ws.mkdir()
    # A project script that prints the environment (`env > file` itself is credential access now).
    (ws / "show_env.py").write_text("import os\nfor k, v in os.environ.items():\n    print(f'{k}={v}')\n")
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [
        task("look", "python3 show_env.py > agent-env.txt"),
        task("reach", f"redis-cli -p {port} -a {password} SET pwned 1"),
        task("reach-hidden", f"REDISCLI_AUTH=$(cat ~/.pw) valkey-cli -p {port} SET pwned 1"),
        task("reach-raw", f"printf 'AUTH x\\r\\nSET pwned 1\\r\\n' > /dev/tcp/127.0.0.1/{port}"),
    ]))
    gw_state = tmp_path / "gw-state"
    # The user's shell holds the store's URL (the gateway needs it); the orchestrator must not pass it on.
    user_env = {"ACTEON_REDIS_URL": redis_server, "ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(gw_state)}
    with gateway_process(user_env) as url:
        r = cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "store-run", "--json",
                env={**user_env, "ACTEON_URL": url})
        audit = cli("audit", "--run", "store-run", "--json", env={**user_env, "ACTEON_URL": url})
    report = json.loads(r.stdout)
    assert report["tasks"] == {"look": "done", "reach": "failed", "reach-hidden": "failed",
                               "reach-raw": "failed"}, r.stderr

    seen = (ws / "agent-env.txt").read_text()
    for secret in (redis_server, password, ADMIN, str(gw_state), "ACTEON_REDIS_URL", "ACTEON_ADMIN_KEY",
                   "ACTEON_AGENT_KEY_FILE", "ACTEON_STATE_DIR"):
        assert secret not in seen, f"{secret} reached the agent"
    assert "ACTEON_AGENT_KEY=" in seen  # its own run-scoped key, and nothing more

    assert store.get("pwned") is None
    assert audit.returncode == 0, audit.stderr
    records = [e for e in json.loads(audit.stdout) if e.get("rule") == "block-gateway-state"]
    assert len(records) == 3 and {e["outcome"] for e in records} == {"suppressed"}
