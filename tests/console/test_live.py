"""The console's live feeds over real HTTP (Server-Sent Events from a gateway process), and webhooks to
a local receiver: a page that reconnects misses nothing and gets nothing twice; a notification is signed
and retried until the receiver takes it."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from gateway.webhooks import verify
from tests.console.conftest import ADMIN_KEY, Gateway
from tests.support import RedisServer, gateway_process, require, wait_until


def signed_in(gateway: Gateway, key: str) -> httpx.Client:
    client = httpx.Client(base_url=gateway.url, timeout=10)
    form = client.get("/console/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf is not None
    r = client.post("/console/login", data={"key": key, "csrf": csrf.group(1)})
    assert r.status_code == 303 and "acteon_session" in client.cookies
    return client


def events(client: httpx.Client, path: str, count: int, last_event_id: str | None = None) -> list[dict[str, str]]:
    """Read ``count`` events (pings aside) from an SSE stream, then hang up."""
    out: list[dict[str, str]] = []
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    with client.stream("GET", path, headers=headers, timeout=15) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        event: dict[str, str] = {}
        for line in r.iter_lines():
            if not line:
                if "event" in event:
                    out.append(event)
                    if len(out) == count:
                        return out
                event = {}
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = event[name] + "\n" + value if name == "data" and name in event else value
    return out


def test_a_reconnecting_run_page_resumes_from_its_last_event_id(gateway: Gateway) -> None:
    gateway.run("r1")
    client = signed_in(gateway, gateway.operator("vera", "viewer"))
    gateway.dispatch("r1", "echo one")
    gateway.api("POST", "/runs/r1/state", json={"task_id": "t1", "state": "running"})
    gateway.dispatch("r1", "echo two")
    # A page that saw nothing yet (id "0|0") gets the whole history, in order.
    first = events(client, "/console/live/runs/r1", 3, last_event_id="0|0")
    assert [e["event"] for e in first] == ["decision", "task", "decision"]
    assert "echo one" in first[0]["data"] and "echo two" in first[2]["data"]
    # It hangs up after the first two; meanwhile more happens.
    resume_from = first[1]["id"]
    gateway.dispatch("r1", "echo three")
    gateway.api("POST", "/runs/r1/state", json={"task_id": "t1", "state": "done"})
    again = events(client, "/console/live/runs/r1", 3, last_event_id=resume_from)
    assert [e["event"] for e in again] == ["decision", "decision", "task"]
    assert "echo two" in again[0]["data"] and "echo three" in again[1]["data"] and "done" in again[2]["data"]
    ids = [e["id"] for e in first[:2] + again]
    assert len(set(ids)) == len(ids)  # nothing twice


def test_the_queue_feed_starts_with_a_snapshot_then_pushes_changes(gateway: Gateway) -> None:
    gateway.run("r1")
    client = signed_in(gateway, gateway.operator("otto", "operator"))
    old = gateway.dispatch("r1", "git push origin main")["approval_id"]
    got: list[dict[str, str]] = []
    reader = threading.Thread(target=lambda: got.extend(events(client, "/console/live/approvals", 3)))
    reader.start()
    wait_until(lambda: bool(got) or _snapshot_sent(gateway), what="the snapshot")
    new = gateway.dispatch("r1", "npm publish")["approval_id"]
    gateway.api("POST", f"/approvals/{old}/reject", json={"reason": "no"})
    reader.join(timeout=15)
    assert [e["event"] for e in got] == ["snapshot", "approval", "resolved"]
    assert old in got[0]["data"] and new in got[1]["data"] and got[2]["data"] == old


def _snapshot_sent(gateway: Gateway) -> bool:
    # The reader thread cannot tell us before it has three events; the feed is up once the gateway's
    # metrics count a console subscriber. Without that, a fixed wait would be a guess.
    text = httpx.get(f"{gateway.url}/metrics", timeout=5).text
    return "acteon_console_subscribers 1.0" in text


def test_an_expired_or_revoked_session_cannot_read_the_feeds(gateway: Gateway) -> None:
    client = signed_in(gateway, gateway.operator("otto", "operator"))
    assert client.get("/console/runs").status_code == 200
    gateway.api("DELETE", "/operators/otto")
    r = client.get("/console/live/approvals")
    assert r.status_code == 401
    page = client.get("/console/runs", headers={"Accept": "text/html"})
    assert page.status_code == 303 and page.headers["location"] == "/console/login"


class Receiver:
    """A local webhook receiver that answers 500 to the first ``fail`` posts, then 200."""

    def __init__(self, fail: int) -> None:
        self.fail = fail
        self.posts: list[tuple[dict[str, str], bytes, int]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = 500 if len(outer.posts) < outer.fail else 200
                outer.posts.append(({k: v for k, v in self.headers.items()}, body, status))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(fail=2)
    try:
        yield r
    finally:
        r.close()


def _metric(url: str, sample: str) -> float:
    lines = httpx.get(f"{url}/metrics", timeout=5).text.splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(sample + " "))


@pytest.mark.slow
def test_webhooks_are_signed_retried_on_500_and_sent_once_by_two_gateways(tmp_path: Any, receiver: Receiver) -> None:
    redis = RedisServer()
    require("redis-server on PATH", redis.binary is not None)
    redis.start()
    secret = "webhook-secret-0123456789"
    env = {"ACTEON_REDIS_URL": redis.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "s"),
           "ACTEON_WEBHOOK_URL": receiver.url, "ACTEON_WEBHOOK_SECRET": secret,
           "ACTEON_CONSOLE_URL": "https://console.example"}
    try:
        with gateway_process(env) as url_a, gateway_process(env) as url_b:
            gw = Gateway(url_a)
            gw.run("r1")
            approval = gw.dispatch("r1", "git push origin main")["approval_id"]
            wait_until(lambda: any(status == 200 for *_x, status in receiver.posts), timeout_s=20,
                       what="the webhook delivery")
            gw.api("POST", "/runs/r1/state", json={"state": "done", "final": True})
            wait_until(lambda: len([p for p in receiver.posts if p[2] == 200]) == 2, timeout_s=20,
                       what="the run-end webhook")
            assert Gateway(url_b).api("GET", "/health").status_code == 200  # both processes were up
            # Each process counts what it sent (/metrics): two deliveries between them, the 500s as retries.
            sample = 'acteon_webhook_deliveries_total{result="delivered"}'
            assert sum(_metric(url, sample) for url in (url_a, url_b)) == 2
    finally:
        redis.stop()
    statuses = [status for *_x, status in receiver.posts]
    assert statuses == [500, 500, 200, 200]  # retried after each 500; each event sent by one gateway only
    for headers, body, _status in receiver.posts:
        assert verify(secret, headers["X-Acteon-Timestamp"], body, headers["X-Acteon-Signature"])
        assert not verify("another-secret-000000", headers["X-Acteon-Timestamp"], body, headers["X-Acteon-Signature"])
    created = json.loads(receiver.posts[2][1])
    assert created["event"] == "approval.created" and created["approval_id"] == approval
    assert created["link"] == f"https://console.example/console/approvals?focus={approval}"
    ended = json.loads(receiver.posts[3][1])
    assert (ended["event"], ended["run_id"], ended["state"]) == ("run.ended", "r1", "done")
