"""The console's pages and actions over the ASGI app, on both stores: sign-in, CSRF, roles, headers, errors.
(The browser tests in tests/console drive the same routes in chromium.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import ADMIN, ADMIN_KEY, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_gates import _run


def _login_form(client: Any) -> str:
    page = client.get("/console/login")
    assert page.status_code == 200
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def sign_in(client: Any, key: str) -> str:
    """Sign in; returns the session's CSRF token (from the page's meta tag)."""
    r = client.post("/console/login", data={"key": key, "csrf": _login_form(client)}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = client.get("/console/approvals")
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def _operator(client: Any, name: str, role: str) -> str:
    return str(client.post("/v1/operators", json={"name": name, "role": role}, headers=ADMIN).json()["operator_key"])


def test_pages_need_a_session_and_send_the_browser_to_sign_in(client) -> None:
    r = client.get("/console/runs", headers={"Accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/console/login"
    assert client.get("/console/live/approvals").status_code == 401
    assert client.post("/console/approvals/batch", json={"items": []}).status_code == 401


def test_the_gateways_address_opens_the_console_and_it_has_an_icon(client) -> None:
    r = client.get("/", headers={"Accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/console"
    icon = client.get("/favicon.ico")  # followed: the browser's own request
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert 'rel="icon"' in client.get("/console/login").text


def test_sign_in_refuses_agent_keys_unknown_keys_and_a_form_without_its_token(client) -> None:
    agent_key = _run(client, "r1")
    csrf = _login_form(client)
    refused = client.post("/console/login", data={"key": agent_key, "csrf": csrf}, follow_redirects=False)
    assert refused.status_code == 403 and "Agent keys cannot sign in" in refused.text
    unknown = client.post("/console/login", data={"key": "nope", "csrf": csrf}, follow_redirects=False)
    assert unknown.status_code == 401 and "Unknown key" in unknown.text
    forged = client.post("/console/login", data={"key": ADMIN_KEY, "csrf": "forged"}, follow_redirects=False)
    assert forged.status_code == 403 and "acteon_session" not in client.cookies


def test_the_session_cookie_is_httponly_strict_and_expires(client) -> None:
    r = client.post("/console/login", data={"key": ADMIN_KEY, "csrf": _login_form(client)}, follow_redirects=False)
    cookie = r.headers["set-cookie"]
    assert "acteon_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Max-Age=28800" in cookie and "Path=/console" in cookie


def test_every_console_response_carries_the_security_headers(client) -> None:
    sign_in(client, ADMIN_KEY)
    for path in ("/console/approvals", "/console/runs", "/console/audit", "/console/login"):
        h = client.get(path).headers
        assert h["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in h["content-security-policy"]
        assert "'unsafe-inline'" not in h["content-security-policy"] and h["cache-control"] == "no-store"
    static = client.get("/console/static/console.js")
    assert static.status_code == 200 and "max-age" in static.headers["cache-control"]


def test_state_changes_need_the_csrf_token(client) -> None:
    _run(client, "r1")
    csrf = sign_in(client, _operator(client, "otto", "operator"))
    assert client.post("/console/runs/r1/cancel", data={"csrf": "wrong"}).status_code == 403
    assert client.get("/v1/runs/r1", headers=ADMIN).json()["status"] == "active"
    assert client.post("/console/logout", data={}).status_code == 403
    ok = client.post("/console/runs/r1/cancel", data={"csrf": csrf}, follow_redirects=False)
    assert ok.status_code == 303 and client.get("/v1/runs/r1", headers=ADMIN).json()["status"] == "cancelled"
    out = client.post("/console/logout", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303
    assert client.get("/console/runs", headers={"Accept": "text/html"}, follow_redirects=False).status_code == 303


def test_a_viewer_cannot_cancel_and_a_rejection_needs_a_reason(client) -> None:
    agent = {"Authorization": f"Bearer {_run(client, 'r1')}"}
    aid = dispatch(client, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    sha = client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["shown_sha256"]
    csrf = sign_in(client, _operator(client, "vera", "viewer"))
    assert client.post("/console/runs/r1/cancel", data={"csrf": csrf}).status_code == 403
    client.cookies.clear()
    csrf = sign_in(client, _operator(client, "otto", "operator"))
    bare = client.post(f"/console/approvals/{aid}/reject", json={"shown_sha256": sha}, headers={"X-CSRF-Token": csrf})
    assert bare.status_code == 422 and "needs a reason" in bare.json()["error"]["message"]
    ok = client.post(f"/console/approvals/{aid}/reject", json={"shown_sha256": sha, "reason": "no"},
                     headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 200 and ok.json()["resolved_by"] == "otto"


def test_the_admin_key_decides_in_the_console_as_admin_with_the_hash(client) -> None:
    agent = {"Authorization": f"Bearer {_run(client, 'r1')}"}
    aid = dispatch(client, call(run_id="r1", command="git push"), headers=agent)["approval_id"]
    csrf = sign_in(client, ADMIN_KEY)
    sha = client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["shown_sha256"]
    r = client.post("/console/approvals/batch", json={"items": [{"approval_id": aid, "shown_sha256": sha},
                                                                {"approval_id": "apr-0000000000000000-r1",
                                                                 "shown_sha256": sha}]},
                    headers={"X-CSRF-Token": csrf})
    results = r.json()["results"]
    assert results[0] == {"approval_id": aid, "status": "approved"} and "not found" in results[1]["error"]
    assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["resolved_by"] == "admin"


@pytest.mark.parametrize("query", ["outcome=bogus", "action_type=nope", "since=yesterday", "run=missing"])
def test_bad_audit_filters_are_a_clear_error_page(client, query: str) -> None:
    _run(client, "r1")
    sign_in(client, ADMIN_KEY)
    r = client.get(f"/console/audit?{query}", headers={"Accept": "text/html"})
    assert r.status_code in (404, 422) and "<html" in r.text and "Traceback" not in r.text


def test_an_edit_is_shown_as_a_coloured_diff_whose_text_is_the_document(make_client, tmp_path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "p.yaml").write_text("rules:\n  - name: review-edits\n    priority: 1\n"
                                  "    when: {action_type: write_file}\n    action: request_approval\n")
    client = make_client(rules_dir=rules)
    agent = {"Authorization": f"Bearer {_run(client, 'r1')}"}
    body = call(tool="Edit", run_id="r1", input={"file_path": "/w/app.py", "old_string": "debug = False\n",
                                                 "new_string": "debug = True\n"})
    aid = dispatch(client, body, headers=agent)["approval_id"]
    sign_in(client, ADMIN_KEY)
    page = client.get("/console/approvals").text
    assert '<span class="diff-del">-debug = False\n</span><span class="diff-add">+debug = True\n</span>' in page
    shown = client.get(f"/v1/approvals/{aid}", headers=ADMIN).json()["shown"]
    block = page[page.index('<pre class="shown">') + len('<pre class="shown">'):page.index("</pre>")]
    assert re.sub(r"<[^>]+>", "", block).replace("&#39;", "'") == shown


def test_the_cancel_button_is_offered_only_while_the_run_can_still_stop(client) -> None:
    _run(client, "r1")
    sign_in(client, ADMIN_KEY)
    assert 'id="cancel-run"' in client.get("/console/runs/r1").text
    assert client.post("/v1/runs/r1/state", json={"state": "done", "final": True}, headers=ADMIN).status_code < 300
    page = client.get("/console/runs/r1").text
    assert 'id="cancel-run"' not in page and 'id="run-status">done<' in page


def test_a_task_waiting_for_a_person_shows_so_on_its_run_page(client) -> None:
    """An orchestrated Claude agent stopped at a call for a person: its task is `waiting_approval`, its slot free."""
    _run(client, "r1")
    sign_in(client, ADMIN_KEY)
    change = {"state": "waiting_approval", "task_id": "build",
              "reason": "build.b1 waits for a person to approve its Bash call"}
    assert client.post("/v1/runs/r1/state", json=change, headers=ADMIN).status_code < 300
    page = client.get("/console/runs/r1").text
    assert '<td>build</td><td class="state">waiting_approval</td>' in page
    assert "waits for a person to approve its Bash call" in page
