"""The operator console in a real browser (Debian's chromium, driven by Playwright) against a real gateway
process on a real Redis, and on a Redis Cluster: every action a person takes, and what the agent then sees."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import store_url
from tests.console.conftest import Gateway, artifact, gateway_on, sign_in


@pytest.fixture(params=["redis", "cluster"])
def gateway(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Gateway]:
    """A gateway process of its own on one Redis or on the cluster, emptied first: the queue shows only this test's
    approvals."""
    url = store_url(str(request.param), request)
    assert url is not None
    with gateway_on(url, tmp_path) as gw:
        yield gw


def _pending(gateway: Gateway, run_id: str, command: str, agent: str = "agent-1") -> str:
    d = gateway.dispatch(run_id, command, agent=agent)
    assert d["outcome"] == "pending_approval", d
    return str(d["approval_id"])


def _item(page: Any, approval_id: str) -> Any:
    return page.locator(f'article.approval[data-id="{approval_id}"]')


def test_sign_in_and_the_queue_updates_live_without_a_reload(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    first = _pending(gateway, "r1", "git push origin main")
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    assert _item(page, first).is_visible()
    page.evaluate("window.__notReloaded = true")
    second = _pending(gateway, "r1", "pip install requests", agent="agent-2")
    _item(page, second).wait_for()
    assert page.evaluate("window.__notReloaded") is True  # it arrived over the live feed, not a reload
    assert page.text_content("#count") == "2"
    item = _item(page, second)
    assert "agent agent-2" in item.locator(".agent").inner_text()
    assert "rule approve-risky-commands" in item.locator(".rule").inner_text()
    assert "input.command: pip install requests" in item.locator(".shown").inner_text()
    # Resolved elsewhere (the CLI, another operator): it leaves the queue live too.
    gateway.api("POST", f"/approvals/{first}/approve", json={"by": "cli-user"})
    _item(page, first).wait_for(state="detached")
    assert page.text_content("#count") == "1"


def test_keyboard_j_k_a_r_and_the_reason_reaches_the_agent(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    ids = [_pending(gateway, "r1", f"git push origin branch-{i}") for i in range(3)]
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    focused = lambda: page.get_attribute("article.approval.focused", "data-id")  # noqa: E731
    assert focused() == ids[2]  # newest first
    page.keyboard.press("j")
    assert focused() == ids[1]
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert focused() == ids[1]
    page.keyboard.press("a")
    _item(page, ids[1]).wait_for(state="detached")
    approved = gateway.approval(ids[1])
    assert approved["status"] == "approved" and approved["resolved_by"] == "otto"
    assert approved["resolved_shown_sha256"] == approved["shown_sha256"]
    # r asks for a reason; the agent's next try of that call is refused with it.
    target = focused()
    page.keyboard.press("r")
    page.wait_for_selector("#reject-dialog[open]")
    page.fill("#reject-reason", "not on a Friday")
    page.click("#reject-confirm")
    _item(page, target).wait_for(state="detached")
    command = f"git push origin branch-{ids.index(target)}"
    again = gateway.dispatch("r1", command)
    assert again["outcome"] == "suppressed" and "not on a Friday" in again["reason"] and "otto" in again["reason"]
    # The approved one now runs, once.
    assert gateway.dispatch("r1", "git push origin branch-1")["outcome"] == "executed"


def test_batch_approve_acts_only_on_the_reviewed_snapshot(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    ids = [_pending(gateway, "r1", f"npm install pkg-{i}") for i in range(3)]
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    for _ in range(2):  # select the two newest
        page.keyboard.press("x")
        page.keyboard.press("j")
    page.keyboard.press("A")
    page.wait_for_selector("#batch-dialog[open]")
    listed = page.locator("#batch-list li").evaluate_all("els => els.map(e => e.dataset.id)")
    assert listed == [ids[2], ids[1]]
    # While the person reviews, another approval arrives; the review did not include it.
    late = _pending(gateway, "r1", "npm install pkg-late")
    _item(page, late).wait_for()
    page.click("#batch-confirm")
    _item(page, ids[2]).wait_for(state="detached")
    _item(page, ids[1]).wait_for(state="detached")
    statuses = {i: gateway.approval(i)["status"] for i in (*ids, late)}
    assert statuses == {ids[0]: "pending", ids[1]: "approved", ids[2]: "approved", late: "pending"}


def test_hidden_characters_are_shown_and_the_decision_carries_the_hash_of_what_was_shown(
        gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    command = "git push origin \u200bmain # \u202edocs only"
    aid = _pending(gateway, "r1", command)
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    item = _item(page, aid)
    shown = item.locator(".shown")
    text = shown.text_content()
    assert "\u200b" not in text and "\u202e" not in text
    marks = shown.locator("mark.hidden-char").all_inner_texts()
    assert marks.count("⟦U+200B ZERO WIDTH SPACE⟧") == 2 and marks.count("⟦U+202E RIGHT-TO-LEFT OVERRIDE⟧") == 2
    assert "4 hidden or unusual characters" in item.locator(".banner").inner_text()
    item.screenshot(path=str(artifact("console-hidden-characters.png")))
    # The page's text is the document the gateway hashed, byte for byte.
    view = gateway.approval(aid)
    assert hashlib.sha256(text.encode()).hexdigest() == view["shown_sha256"]
    # A page whose shown text was altered (here by hand, as a stale or tampered page would be) cannot decide.
    shown.evaluate("el => el.append(' ')")
    page.keyboard.press("a")
    page.wait_for_selector("#toast.bad")
    assert "not what was shown" in page.text_content("#toast")
    assert gateway.approval(aid)["status"] == "pending"


def test_a_viewer_looks_but_cannot_approve(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    aid = _pending(gateway, "r1", "git push origin main")
    page = sign_in(context, gateway, gateway.operator("vera", "viewer"))
    item = _item(page, aid)
    assert item.locator("button.approve").count() == 0 and "viewers cannot decide" in item.inner_text()
    page.keyboard.press("a")
    page.wait_for_selector("#toast.bad")
    csrf = page.get_attribute('meta[name="csrf-token"]', "content")
    sha = gateway.approval(aid)["shown_sha256"]
    r = page.request.post(f"{gateway.url}/console/approvals/{aid}/approve", data=json.dumps({"shown_sha256": sha}),
                          headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
    assert r.status == 403 and "viewer" in r.json()["error"]["message"]
    assert gateway.approval(aid)["status"] == "pending"


def test_an_agent_key_cannot_sign_in_and_a_post_without_the_csrf_token_is_refused(
        gateway: Gateway, context: Any) -> None:
    agent_key = gateway.run("r1")
    aid = _pending(gateway, "r1", "git push origin main")
    page = context.new_page()
    page.goto(f"{gateway.url}/console/login")
    page.fill("#key", agent_key)
    page.click("#sign-in")
    assert "Agent keys cannot sign in" in page.text_content("#login-error")
    assert not any(c["name"] == "acteon_session" for c in context.cookies())
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    cookie = next(c for c in context.cookies() if c["name"] == "acteon_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    sha = gateway.approval(aid)["shown_sha256"]
    r = page.request.post(f"{gateway.url}/console/approvals/{aid}/approve", data=json.dumps({"shown_sha256": sha}),
                          headers={"Content-Type": "application/json"})
    assert r.status == 403 and "CSRF" in r.json()["error"]["message"]
    assert gateway.approval(aid)["status"] == "pending"
    headers = page.request.get(f"{gateway.url}/console/approvals").headers
    assert "script-src 'self'" in headers["content-security-policy"] and "'unsafe-inline'" not in headers[
        "content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["cache-control"] == "no-store"


def test_run_page_shows_tasks_and_decisions_live_and_cancel_stops_the_run(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    gateway.api("POST", "/runs/r1/state", json={"task_id": "build", "state": "running"})
    page = sign_in(context, gateway, gateway.operator("otto", "operator"))
    page.goto(f"{gateway.url}/console/runs/r1")
    page.wait_for_selector("#live-state.on")
    assert page.text_content("#task-build .state") == "running"
    gateway.dispatch("r1", "ls -la")
    page.locator("#decisions tr.decision", has_text="ls -la").wait_for()
    gateway.api("POST", "/runs/r1/state", json={"task_id": "build", "state": "done"})
    page.locator("#task-build .state", has_text="done").wait_for()
    assert page.locator(".rules td", has_text="approve-risky-commands").count() == 1
    page.click("#cancel-run")
    page.wait_for_selector("#cancel-dialog[open]")
    with page.expect_navigation():  # the form posts, then the run page loads again
        page.click("#cancel-confirm")
    assert page.text_content("#run-status") == "cancelled"
    assert gateway.dispatch("r1", "ls")["outcome"] == "cancelled"


def test_audit_filters_and_export(gateway: Gateway, context: Any) -> None:
    gateway.run("r1")
    gateway.dispatch("r1", "ls")
    gateway.dispatch("r1", "rm -rf /")
    gateway.dispatch("r1", "cat README.md", agent="agent-2")
    page = sign_in(context, gateway, gateway.operator("vera", "viewer"))
    page.goto(f"{gateway.url}/console/audit?run=r1")
    assert page.locator("#audit tr.decision").count() == 3
    page.select_option('select[name="outcome"]', "suppressed")
    page.click("#apply-filters")
    page.wait_for_url("**outcome=suppressed**")
    rows = page.locator("#audit tr.decision")
    assert rows.count() == 1 and "rm -rf /" in rows.inner_text()
    with page.expect_download() as csv_download:
        page.click("#export-csv")
    exported = list(csv.DictReader(io.StringIO(csv_download.value.path().read_text(encoding="utf-8"))))
    assert [(r["target"], r["outcome"]) for r in exported] == [("rm -rf /", "suppressed")]
    page.goto(f"{gateway.url}/console/audit?run=r1&agent=agent-2")
    with page.expect_download() as jsonl_download:
        page.click("#export-jsonl")
    lines = jsonl_download.value.path().read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["target"] for x in lines] == ["cat README.md"]
    page.screenshot(path=str(artifact("console-audit.png")), full_page=True)


@pytest.mark.slow
def test_ages_tick_and_an_expired_approval_leaves_the_queue(tmp_path: Any, context: Any) -> None:
    from tests.console.conftest import ADMIN_KEY
    from tests.support import RedisServer, gateway_process

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "p.yaml").write_text(
        "rules:\n  - name: quick-review\n    priority: 1\n    when: {command: {starts_with: 'git push'}}\n"
        "    action: request_approval\n    timeout_s: 3\n"
        "  - name: allow-rest\n    priority: 50\n    when: {action_type: execute_command}\n    action: allow\n")
    redis = RedisServer().start()
    try:
        env = {"ACTEON_REDIS_URL": redis.url, "ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(tmp_path / "s"),
               "ACTEON_RULES_DIR": str(rules)}
        with gateway_process(env) as url:
            gw = Gateway(url)
            gw.run("r1")
            aid = _pending(gw, "r1", "git push origin main")
            page = sign_in(context, gw, gw.operator("otto", "operator"))
            item = _item(page, aid)
            assert "expires in" in item.locator(".expiry").inner_text()
            item.wait_for(state="detached", timeout=10_000)  # gone once Redis time passes its expiry
            assert page.text_content("#count") == "0"
            assert gw.approval(aid)["status"] == "expired"
    finally:
        redis.stop()
