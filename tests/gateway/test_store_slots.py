"""No command the gateway sends names keys of two Redis Cluster slots (docs/ha.md).

A real Redis's MONITOR sees every command of a workload that goes through every part of the API: decisions
(allowed, throttled, deduplicated, approvals, quota, sub-agents, claims, attempts), approvals decided, runs and
their rules, the global pack, claims, operators, workers, the console. Redis itself names each command's keys
(``COMMAND GETKEYS``), and a transaction counts as one command. Every Lua script must have run, so a script
added later is scanned too. The same workload runs on a real cluster in the other tests; this one says which
command crossed, and covers the scripts by name.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import threading
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from redis.crc import key_slot

from gateway.app import create_app
from gateway.config import Settings
from tests.conftest import ADMIN, ADMIN_KEY, call
from tests.support import ROOT, RedisServer, wait_until

pytestmark = pytest.mark.redis
LUA = ROOT / "gateway" / "store" / "lua"
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')
RUN_RULES = """
rules:
  - {name: slow-down, priority: 1, action: throttle, limit: 2, window_s: 60, per: agent,
     when: {action_type: execute_command}}
  - {name: once, priority: 2, action: deduplicate, ttl_s: 60, key: path, scope: cross_agent,
     when: {action_type: write_file}}
  - {name: ask, priority: 3, action: request_approval, timeout_s: 60, when: {category: git_push}}
  - {name: all, priority: 9, action: allow}
"""


class Monitor:
    """Every command Redis runs, as (client, args), read from MONITOR in a thread."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.seen: list[tuple[str, list[str]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        with self.client.monitor() as m:
            self.ready = True
            while not self._stop.is_set():
                line = m.connection.read_response()
                text = line.decode("utf-8", "replace") if isinstance(line, bytes) else str(line)
                client = text.split("]", 1)[0].rsplit(" ", 1)[-1]
                args = [codecs.escape_decode(a.encode())[0].decode("utf-8", "replace")  # type: ignore[attr-defined]
                        for a in ARG.findall(text.split("]", 1)[1])]
                self.seen.append((client, args))

    def start(self) -> Monitor:
        self.ready = False
        self._thread.start()
        wait_until(lambda: self.ready, what="MONITOR")
        return self

    def stop(self) -> None:
        self._stop.set()
        self.client.ping()  # one more line, so the reader wakes and sees the stop flag
        self._thread.join(timeout=5)


def _workload(client: TestClient) -> None:
    """Every part of the API that reaches the store."""
    def ok(r: Any, *codes: int) -> Any:
        assert r.status_code in (codes or (200, 201, 202)), r.text
        return r.json() if r.headers.get("content-type", "").startswith("application/json") else r

    run = ok(client.post("/v1/runs", json={"run_id": "r1", "rules": RUN_RULES,
                                           "agents": {"max_live": 2, "max_depth": 2},
                                           "quota": {"max_actions": 50, "window_s": 3600}}, headers=ADMIN))
    agent = {"Authorization": f"Bearer {run['agent_key']}"}
    for _ in range(3):  # allowed, then throttled
        ok(client.post("/v1/dispatch", json=call(run_id="r1", command="echo hi"), headers=agent))
    for _ in range(2):  # a write, then its duplicate
        ok(client.post("/v1/dispatch", json=call("Write", run_id="r1", agent_id="w", file_path="/work/proj/a.py",
                                                 content="x = 1\n"), headers=agent))
    ok(client.post("/v1/dispatch", json=call("Task", run_id="r1", agent_id="lead", tool_use_id="t1",
                                             input={"description": "d", "prompt": "p"}), headers=agent))
    asked = ok(client.post("/v1/dispatch", json=call(run_id="r1", agent_id="p", command="git push origin main"),
                           headers=agent))
    ok(client.post(f"/v1/approvals/{asked['approval_id']}/approve", json={"by": "alice"}, headers=ADMIN))
    ok(client.get(f"/v1/approvals/{asked['approval_id']}/wait?timeout_s=0", headers=agent))
    ok(client.post("/v1/dispatch", json=call(run_id="r1", agent_id="p", command="git push origin main"),
                   headers=agent))
    other = ok(client.post("/v1/dispatch", json=call(run_id="r1", agent_id="q", command="git push origin dev"),
                           headers=agent))
    ok(client.post(f"/v1/approvals/{other['approval_id']}/reject", json={"by": "bob"}, headers=ADMIN))
    ok(client.get("/v1/approvals?run=r1", headers=ADMIN))
    ok(client.post("/v1/explain", json={"run_id": "r1", "command": "rm -rf /"}, headers=ADMIN))
    ok(client.put("/v1/runs/r1/rules", json={"yaml": RUN_RULES.replace("limit: 2", "limit: 3")}, headers=ADMIN))
    ok(client.put("/v1/rules", json={"yaml": (ROOT / "rules" / "default.yaml").read_text()}, headers=ADMIN))
    ok(client.post("/v1/dispatch", json=call(run_id="r1", command="ls"), headers=agent))
    for path in ("/v1/runs", "/v1/runs/r1", "/v1/runs/r1/stats", "/v1/runs/r1/audit", "/v1/runs/r1/rules",
                 "/v1/runs/r1/state", "/v1/rules", "/v1/health", "/metrics"):
        ok(client.get(path, headers=ADMIN))
    ok(client.post("/v1/runs/r1/state", json={"task_id": "t", "state": "running"}, headers=ADMIN))
    # claims, and an agent working under one
    repo = "/work/repo/.git"
    got = ok(client.post("/v1/claims", json={"repo": repo, "owner": "r1/a", "globs": ["src/**"]}, headers=ADMIN))
    ref = {"repo": repo, "claim_id": got["claim_id"], "token": got["token"]}
    fenced = ok(client.post("/v1/runs/r1/agent-keys", json={"agent_id": "c", "root": "/work/proj",
                                                             "files_scope": ["src/**"], "claim": ref}, headers=ADMIN))
    ok(client.post("/v1/dispatch", json=call(run_id="r1", agent_id="c", command="echo x > src/a.py",
                                             cwd="/work/proj"),
                   headers={"Authorization": f"Bearer {fenced['agent_key']}"}))
    ok(client.post(f"/v1/claims/{got['claim_id']}/renew", json={"repo": repo, "token": got["token"]}, headers=ADMIN))
    ok(client.get("/v1/claims", params={"repo": repo}, headers=ADMIN))
    ok(client.delete(f"/v1/claims/{got['claim_id']}", params={"repo": repo, "token": got["token"]}, headers=ADMIN))
    # operators, workers and their attempts, the console
    op = ok(client.post("/v1/operators", json={"name": "olga", "role": "operator"}, headers=ADMIN))
    ok(client.get("/v1/operators", headers=ADMIN))
    worker = ok(client.post("/v1/workers", json={"name": "box-1"}, headers=ADMIN))
    ok(client.post("/v1/runs/r1/attempts", json={"agent_id": "t.1", "attempt": 1, "root": "/work/proj"},
                   headers={"Authorization": f"Bearer {worker['worker_key']}"}))
    ok(client.get("/v1/runs/r1/attempts", headers=ADMIN))
    page = client.get("/console/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf, page
    ok(client.post("/console/login", data={"key": op["operator_key"], "csrf": csrf.group(1)},
                   follow_redirects=False), 303)
    for path in ("/console/approvals", "/console/runs", "/console/runs/r1", "/console/audit"):
        assert client.get(path).status_code == 200, path
    ok(client.post("/v1/runs/r1/cancel", headers=ADMIN))
    ok(client.delete("/v1/workers/box-1", headers=ADMIN))
    ok(client.delete("/v1/operators/olga", headers=ADMIN))


def test_no_command_names_keys_of_two_slots(own_redis: RedisServer, tmp_path: Path) -> None:
    monitor = Monitor(own_redis.url).start()
    settings = Settings(redis_url=own_redis.url, rules_dir=ROOT / "rules", state_dir=tmp_path / "state",
                        admin_key=ADMIN_KEY, home="/home/agent")
    try:
        with TestClient(create_app(settings)) as client:
            _workload(client)
    finally:
        monitor.stop()

    probe = redis.Redis.from_url(own_redis.url, decode_responses=True)
    probe.set_response_callback("COMMAND", lambda reply, **_: reply)  # GETKEYS: a plain list, not COMMAND INFO
    crossing: list[str] = []
    scripts_run: set[str] = set()
    open_transactions: dict[str, set[str]] = {}
    for who, args in monitor.seen:
        if not args:
            continue
        name = args[0].upper()
        if name in ("EVAL", "EVALSHA"):
            scripts_run.add(hashlib.sha1(args[1].encode()).hexdigest() if name == "EVAL" else args[1])
        if name == "MULTI":
            open_transactions[who] = set()
            continue
        if name == "EXEC":
            found = open_transactions.pop(who, set())
            if len({key_slot(k.encode()) for k in found}) > 1:
                crossing.append(f"MULTI … EXEC over {sorted(found)}")
            continue
        try:
            found_keys = probe.execute_command("COMMAND", "GETKEYS", *args)
        except redis.ResponseError:
            continue  # a command without keys
        if who in open_transactions:
            open_transactions[who].update(found_keys)
        elif len({key_slot(str(k).encode()) for k in found_keys}) > 1:
            crossing.append(f"{' '.join(args[:2])} … over {sorted(found_keys)}")
    assert not crossing, "\n".join(crossing)
    every_script = {p.name: hashlib.sha1(p.read_text().encode()).hexdigest() for p in LUA.glob("*.lua")}
    assert {n for n, sha in every_script.items() if sha not in scripts_run} == set()
